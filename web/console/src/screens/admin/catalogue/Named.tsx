/**
 * The parts roles and groups share (both are a name and an optional description): the list
 * screen with its "New …" form, the detail screen, and its "Edit" and "Delete" panels.
 */
import type { ReactNode } from "react";
import { patch, post } from "../../../api/client";
import { hasScope } from "../../../auth/session";
import { navigate } from "../../../router";
import { Panel } from "../../../ui/Screen";
import { carryNotice } from "../../../ui/carry";
import { type Column, type Fact, Facts, nameColumn } from "../../../ui/table";
import { seg } from "./common";
import { NamedForm } from "./NamedForm";
import { DeletePanel, DetailScreen, ListScreen } from "./screens";

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

/** The kind named `noun`: its API at `/admin/<noun>s`, its screens at `/console/admin/<noun>s`. */
export function namedKind(noun: "role" | "group"): NamedKind {
  const plural = `${noun}s`;
  return {
    noun,
    plural: capital(plural),
    apiPath: `/admin/${plural}`,
    listPath: `/console/admin/${plural}`,
    writeScope: `idp:${plural}:write`,
  };
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
  const label = `New ${kind.noun}`;
  const form = (
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
  );
  return (
    <ListScreen<T>
      title={kind.plural}
      intro={intro}
      apiPath={kind.apiPath}
      caption={kind.plural}
      rowKey={(item) => item.id}
      empty={`No ${kind.plural.toLowerCase()} yet.`}
      columns={[nameColumn("Name", (item) => `${kind.listPath}/${seg(item.id)}`, (item) => item.name), ...columns]}
      create={{ title: label, writeScope: kind.writeScope, form }}
    />
  );
}

/**
 * The detail screen of the record `id` ("Role admins", "All roles"): its facts, its own
 * panels, then "Edit …" and "Delete …" for holders of the write scope.
 */
export function NamedScreen<T extends Named>({
  kind,
  id,
  facts,
  deleteWarning,
  children,
}: {
  kind: NamedKind;
  id: string;
  facts: (record: T) => Fact[];
  deleteWarning: string;
  /** The panels between the facts and the settings; `reload` reads the record again. */
  children: (record: T, reload: () => void) => ReactNode;
}) {
  return (
    <DetailScreen<T>
      apiPath={`${kind.apiPath}/${seg(id)}`}
      title={(record) => `${capital(kind.noun)} ${record.name}`}
      fallbackTitle={capital(kind.noun)}
      back={{ to: kind.listPath, label: `All ${kind.plural.toLowerCase()}` }}
    >
      {(record, reload) => (
        <>
          <Facts rows={facts(record)} />
          {children(record, reload)}
          {hasScope(kind.writeScope) ? (
            <NamedSettings kind={kind} record={record} onSaved={reload} deleteWarning={deleteWarning} />
          ) : null}
        </>
      )}
    </DetailScreen>
  );
}

/** "Edit …" (name and description) and "Delete …" (asks first, then back to the list). */
function NamedSettings({
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
      <DeletePanel
        noun={kind.noun}
        name={record.name}
        apiPath={path}
        listPath={kind.listPath}
        warning={deleteWarning}
        consequence="This cannot be undone."
      />
    </>
  );
}
