import type { ReactNode } from "react";
import { type EffectiveScope, type ScopeSource, sourceKey } from "../api/permissions";
import { t } from "../i18n";
import { DataTable } from "./table";

/** Each scope a person holds with every reason, said by `why` (the admin and the self-service wording differ). */
export function EffectiveScopesTable({
  caption,
  items,
  empty,
  whyHeader,
  listClass,
  why,
}: {
  caption: string;
  items: EffectiveScope[];
  empty: string;
  whyHeader: string;
  listClass: string;
  why: (source: ScopeSource) => ReactNode;
}) {
  return (
    <DataTable
      caption={caption}
      rows={items}
      rowKey={(item) => item.scope}
      empty={empty}
      columns={[
        { header: t("ui.scopes.scope"), rowHeader: true, cell: (item) => <code>{item.scope}</code> },
        {
          header: whyHeader,
          cell: (item) => (
            <ul className={listClass}>
              {item.sources.map((source) => (
                <li key={sourceKey(source)}>{why(source)}</li>
              ))}
            </ul>
          ),
        },
      ]}
    />
  );
}
