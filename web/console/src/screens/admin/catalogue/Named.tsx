/**
 * The parts roles and groups share (both are a name and an optional description): the list
 * screen with its "New …" form, and the "Edit" and "Delete" panels of the detail screen.
 */
import { type Page, del, get, patch, post } from "../../../api/client";
import { hasScope } from "../../../auth/session";
import { Link, navigate } from "../../../router";
import { Panel, Screen } from "../../../ui/Screen";
import { ConfirmButton } from "../../../ui/dialog";
import { Loaded, useLoad } from "../../../ui/load";
import { type Column, DataTable, Notice, Pager } from "../../../ui/table";
import { carryNotice, seg, useCarriedNotice, useUrlCursor } from "./common";
import { NamedForm } from "./NamedForm";

export interface Named {
  id: string;
  name: string;
  description: string;
}

/** How a named resource is called and where it lives. */
export interface NamedKind {
  /** "role", "group". */
  noun: string;
  /** "Roles", "Groups": the screen title and the table caption. */
  plural: string;
  apiPath: string;
  listPath: string;
  writeScope: string;
}

const capital = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** The list (name linked to its detail, then `columns`), paged, and the creation form. */
export function NamedListScreen<T extends Named>({
  kind,
  intro,
  columns,
  createdNotice,
}: {
  kind: NamedKind;
  intro: string;
  columns: Column<T>[];
  createdNotice: string;
}) {
  const { cursor, next, first } = useUrlCursor();
  const { state, reload } = useLoad((signal) => get<Page<T>>(kind.apiPath, { cursor }, signal), [cursor]);
  const notice = useCarriedNotice();
  const label = `New ${kind.noun}`;
  return (
    <Screen title={kind.plural} intro={intro}>
      {notice ? <Notice>{notice}</Notice> : null}
      <Loaded state={state} reload={reload}>
        {(page) => (
          <>
            <DataTable
              caption={kind.plural}
              rows={page.items}
              rowKey={(item) => item.id}
              empty={`No ${kind.plural.toLowerCase()} yet.`}
              columns={[
                {
                  header: "Name",
                  rowHeader: true,
                  cell: (item) => <Link to={`${kind.listPath}/${seg(item.id)}`}>{item.name}</Link>,
                },
                ...columns,
              ]}
            />
            <Pager nextCursor={page.nextCursor} atStart={!cursor} onNext={next} onFirst={first} />
          </>
        )}
      </Loaded>
      {hasScope(kind.writeScope) ? (
        <Panel title={label}>
          <NamedForm
            label={label}
            submitLabel={`Create ${kind.noun}`}
            onSubmit={async (values) => {
              const created = await post<T>(kind.apiPath, values);
              const to = `${kind.listPath}/${seg(created.id)}`;
              carryNotice(to, createdNotice);
              navigate(to);
              return null;
            }}
          />
        </Panel>
      ) : null}
    </Screen>
  );
}

/** "Edit …" (name and description) and "Delete …" (asks first, then back to the list). */
export function NamedSettings({
  kind,
  record,
  onSaved,
  deleteWarning,
}: {
  kind: NamedKind;
  record: Named;
  onSaved: () => void;
  deleteWarning: string;
}) {
  const path = `${kind.apiPath}/${seg(record.id)}`;
  return (
    <>
      <Panel title={`Edit ${kind.noun}`} id={`edit-${kind.noun}`}>
        <NamedForm
          label={`Edit ${kind.noun}`}
          submitLabel={`Save ${kind.noun}`}
          initial={record}
          onSubmit={async (values) => {
            await patch<Named>(path, values);
            onSaved();
            return "Saved.";
          }}
        />
      </Panel>
      <Panel title={`Delete ${kind.noun}`} id={`delete-${kind.noun}`}>
        <p>{deleteWarning}</p>
        <ConfirmButton
          label={`Delete ${kind.noun}`}
          title={`Delete the ${kind.noun} ${record.name}?`}
          confirmLabel="Delete"
          onConfirm={async () => {
            await del(path);
            carryNotice(kind.listPath, `${capital(kind.noun)} ${record.name} deleted.`);
            navigate(kind.listPath);
          }}
        >
          <p>This cannot be undone.</p>
        </ConfirmButton>
      </Panel>
    </>
  );
}
