/**
 * The screens every catalogue resource shares (APIs, clients, roles, groups): the list
 * (paged, its cursor in the URL, a "New …" panel for writers) and the detail (loaded by
 * id, titled by the record, with the notice a creation carried to it), and the panel that
 * deletes the record and goes back to the list.
 */
import type { ReactNode } from "react";
import { type Page, del, get } from "../../../api/client";
import { t } from "../../../i18n";
import { hasScope } from "../../../auth/session";
import { Link, navigate } from "../../../router";
import { Panel, Screen } from "../../../ui/Screen";
import { carryNotice, useCarriedNotice } from "../../../ui/carry";
import { ConfirmButton } from "../../../ui/dialog";
import { Loaded, useLoad } from "../../../ui/load";
import { PagedTable, useUrlCursor } from "../../../ui/paged";
import { type Column, Notice } from "../../../ui/table";

export function ListScreen<T>({
  title,
  intro,
  apiPath,
  caption,
  rowKey,
  empty,
  columns,
  create,
}: {
  title: string;
  intro: string;
  apiPath: string;
  caption: string;
  rowKey: (row: T) => string;
  empty: string;
  columns: Column<T>[];
  /** The "New …" panel, shown to holders of `writeScope`. */
  create: { title: string; writeScope: string; form: ReactNode };
}) {
  const paging = useUrlCursor();
  const { cursor } = paging;
  const load = useLoad((signal) => get<Page<T>>(apiPath, { cursor }, signal), [cursor]);
  const notice = useCarriedNotice();
  return (
    <Screen title={title} intro={intro}>
      {notice ? <Notice>{notice}</Notice> : null}
      <PagedTable
        load={load}
        paging={paging}
        caption={caption}
        rowKey={rowKey}
        empty={empty}
        columns={columns}
      />
      {hasScope(create.writeScope) ? <Panel title={create.title}>{create.form}</Panel> : null}
    </Screen>
  );
}

export function DetailScreen<T>({
  apiPath,
  title,
  fallbackTitle,
  back,
  children,
}: {
  apiPath: string;
  title: (record: T) => string;
  /** The title while the record loads ("Client"). */
  fallbackTitle: string;
  /** The link back to the list. */
  back: { to: string; label: string };
  children: (record: T, reload: () => void) => ReactNode;
}) {
  const { state, reload } = useLoad((signal) => get<T>(apiPath, undefined, signal), [apiPath]);
  const created = useCarriedNotice();
  return (
    <Screen
      title={state.status === "ready" ? title(state.data) : fallbackTitle}
      actions={<Link to={back.to}>{back.label}</Link>}
    >
      {created ? <Notice>{created}</Notice> : null}
      <Loaded state={state} reload={reload}>
        {(record) => children(record, reload)}
      </Loaded>
    </Screen>
  );
}

/** The texts of a {@link DeletePanel}, whole sentences from the caller's catalogue. */
interface DeleteTexts {
  /** The panel's id ("delete-api"). */
  id: string;
  /** The panel's title and the button's text ("Delete API"). */
  title: string;
  /** The confirmation's title ("Delete the API notes?"). */
  question: string;
  /** The notice the list shows afterwards ("API notes deleted."). */
  deleted: string;
}

/** The older form, English only: the texts built from the noun ("endpoint") and the name. */
interface DeleteNoun {
  noun: string;
  name: string;
}

const capital = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

function textsOf(props: DeleteTexts | DeleteNoun): DeleteTexts {
  if ("title" in props) return props;
  const { noun, name } = props;
  return {
    id: `delete-${noun.toLowerCase()}`,
    title: `Delete ${noun}`,
    question: `Delete the ${noun} ${name}?`,
    deleted: `${capital(noun)} ${name} deleted.`,
  };
}

/** "Delete …": asks first, deletes `apiPath`, then goes back to the list, which says so. */
export function DeletePanel(
  props: (DeleteTexts | DeleteNoun) & {
    apiPath: string;
    listPath: string;
    /** What deleting takes with it, said on the panel. */
    warning: string;
    /** The last word of the confirmation dialog. */
    consequence: string;
  },
) {
  const { apiPath, listPath, warning, consequence } = props;
  const { id, title, question, deleted } = textsOf(props);
  return (
    <Panel title={title} id={id}>
      <p>{warning}</p>
      <ConfirmButton
        label={title}
        title={question}
        confirmLabel={t("admin-directory.delete.confirm")}
        onConfirm={async () => {
          await del(apiPath);
          carryNotice(listPath, deleted);
          navigate(listPath);
        }}
      >
        <p>{consequence}</p>
      </ConfirmButton>
    </Panel>
  );
}
