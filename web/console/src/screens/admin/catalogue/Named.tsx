/**
 * The parts roles and groups share (both are a name and an optional description): the list
 * screen with its "New …" form, the detail screen, and its "Edit" and "Delete" panels.
 */
import type { ReactNode } from "react";
import { patch, post } from "../../../api/client";
import { hasScope } from "../../../auth/session";
import { t } from "../../../i18n";
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
  /** "role", "group": the ids of its panels. */
  noun: "role" | "group";
  apiPath: string;
  listPath: string;
  writeScope: string;
  /** Its texts in the language chosen (read at render time). */
  texts: () => NamedTexts;
}

/** What the shared screens say about a kind: whole sentences, so each language can inflect. */
export interface NamedTexts {
  /** "Roles": the screen title and the table caption. */
  plural: string;
  /** "Role": the title while the record loads. */
  singular: string;
  title: (name: string) => string;
  all: string;
  empty: string;
  create: string;
  createButton: string;
  edit: string;
  save: string;
  remove: string;
  question: (name: string) => string;
  deleted: (name: string) => string;
}

const TEXTS: Record<NamedKind["noun"], () => NamedTexts> = {
  role: () => ({
    plural: t("admin-directory.roles.title"),
    singular: t("admin-directory.roles.singular"),
    title: (name) => t("admin-directory.roles.detailTitle", { name }),
    all: t("admin-directory.roles.all"),
    empty: t("admin-directory.roles.empty"),
    create: t("admin-directory.roles.new"),
    createButton: t("admin-directory.roles.create"),
    edit: t("admin-directory.roles.edit"),
    save: t("admin-directory.roles.save"),
    remove: t("admin-directory.roles.delete"),
    question: (name) => t("admin-directory.roles.deleteQuestion", { name }),
    deleted: (name) => t("admin-directory.roles.deleted", { name }),
  }),
  group: () => ({
    plural: t("admin-directory.groups.title"),
    singular: t("admin-directory.groups.singular"),
    title: (name) => t("admin-directory.groups.detailTitle", { name }),
    all: t("admin-directory.groups.all"),
    empty: t("admin-directory.groups.empty"),
    create: t("admin-directory.groups.new"),
    createButton: t("admin-directory.groups.create"),
    edit: t("admin-directory.groups.edit"),
    save: t("admin-directory.groups.save"),
    remove: t("admin-directory.groups.delete"),
    question: (name) => t("admin-directory.groups.deleteQuestion", { name }),
    deleted: (name) => t("admin-directory.groups.deleted", { name }),
  }),
};

/** The kind named `noun`: its API at `/admin/<noun>s`, its screens at `/console/admin/<noun>s`. */
export function namedKind(noun: "role" | "group"): NamedKind {
  const plural = `${noun}s`;
  return {
    noun,
    apiPath: `/admin/${plural}`,
    listPath: `/console/admin/${plural}`,
    writeScope: `idp:${plural}:write`,
    texts: TEXTS[noun],
  };
}

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
  const texts = kind.texts();
  const label = texts.create;
  const form = (
    <NamedForm
      label={label}
      submitLabel={texts.createButton}
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
      title={texts.plural}
      intro={intro}
      apiPath={kind.apiPath}
      caption={texts.plural}
      rowKey={(item) => item.id}
      empty={texts.empty}
      columns={[nameColumn(t("admin-directory.named.name"), (item) => `${kind.listPath}/${seg(item.id)}`, (item) => item.name), ...columns]}
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
  const texts = kind.texts();
  return (
    <DetailScreen<T>
      apiPath={`${kind.apiPath}/${seg(id)}`}
      title={(record) => texts.title(record.name)}
      fallbackTitle={texts.singular}
      back={{ to: kind.listPath, label: texts.all }}
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
  const texts = kind.texts();
  return (
    <>
      <Panel title={texts.edit} id={`edit-${kind.noun}`}>
        <NamedForm
          label={texts.edit}
          submitLabel={texts.save}
          initial={record}
          onSubmit={async (values) => {
            await patch<Named>(path, values);
            onSaved();
            return t("admin-directory.saved");
          }}
        />
      </Panel>
      <DeletePanel
        id={`delete-${kind.noun}`}
        title={texts.remove}
        question={texts.question(record.name)}
        deleted={texts.deleted(record.name)}
        apiPath={path}
        listPath={kind.listPath}
        warning={deleteWarning}
        consequence={t("admin-directory.named.cannotUndo")}
      />
    </>
  );
}
