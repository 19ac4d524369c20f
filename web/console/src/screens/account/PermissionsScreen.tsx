/**
 * "My permissions": every scope the person holds and why (`GET /entity/permissions`, the
 * shape of the admin `effective-scopes`): given directly, through a role, through a role of
 * a group, or held by every person. Role and group names link to their administration
 * screens for those who may read them.
 */
import { Fragment, type ReactNode } from "react";
import { get } from "../../api/client";
import { hasScope } from "../../auth/session";
import { Link } from "../../router";
import { t } from "../../i18n";
import { Screen } from "../../ui/Screen";
import { Loaded, useLoad } from "../../ui/load";
import { EffectiveScopesTable } from "../../ui/EffectiveScopes";
import type { EffectiveScope, ScopeSource } from "./api";

function named(kind: "roles" | "groups", id: string, name: string): ReactNode {
  return hasScope(`idp:${kind}:read`) ? <Link to={`/console/admin/${kind}/${encodeURIComponent(id)}`}>{name}</Link> : name;
}

/** Markers put in a sentence where a link goes, so the translation decides the word order. */
const ROLE = "\u0001role\u0001";
const GROUP = "\u0001group\u0001";

/** A translated sentence with its markers replaced by elements (the role and group links). */
function parts(sentence: string, slots: Record<string, ReactNode>): ReactNode[] {
  return sentence.split("\u0001").map((piece, index) => (
    <Fragment key={index}>{index % 2 === 1 ? (slots[piece] ?? piece) : piece}</Fragment>
  ));
}

function Source({ source }: { source: ScopeSource }) {
  switch (source.kind) {
    case "direct":
      return <>{t("account.permissions.direct")}</>;
    case "default":
      return <>{t("account.permissions.default")}</>;
    case "role":
      return <>{parts(t("account.permissions.roleTemplate", { role: ROLE }), { role: named("roles", source.roleId, source.roleName) })}</>;
    case "group":
      return (
        <>
          {parts(t("account.permissions.groupTemplate", { role: ROLE, group: GROUP }), {
            role: named("roles", source.roleId, source.roleName),
            group: named("groups", source.groupId, source.groupName),
          })}
        </>
      );
  }
}

export function PermissionsScreen(_props: { params: Record<string, string> }) {
  const { state, reload } = useLoad(
    (signal) => get<{ items: EffectiveScope[] }>("/entity/permissions", undefined, signal),
    [],
  );
  return (
    <Screen
      title={t("account.permissions.title")}
      intro={t("account.permissions.intro")}
    >
      <Loaded state={state} reload={reload} label={t("account.permissions.loading")}>
        {(answer) => (
          <EffectiveScopesTable
            caption={t("account.permissions.yours")}
            items={answer.items}
            empty={t("account.permissions.empty")}
            whyHeader={t("account.permissions.why")}
            listClass="plain"
            why={(source) => <Source source={source} />}
          />
        )}
      </Loaded>
    </Screen>
  );
}
