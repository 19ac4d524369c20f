/**
 * Administration of profile fields (`/admin/profile-fields`, spec part 2 "Profile field"):
 * the list in display order, a new field (from a preset or from scratch) and a field's
 * page (change, delete), each with a live preview of the claim it releases.
 */
import { useState } from "react";
import { type Page, del, get, patch, post } from "../../api/client";
import { hasScope } from "../../auth/session";
import { Link, navigate, useLocation } from "../../router";
import { Screen } from "../../ui/Screen";
import { ConfirmButton } from "../../ui/dialog";
import { useForm } from "../../ui/bind";
import { Loaded, useLoad } from "../../ui/load";
import { PagedTable, useUrlCursor } from "../../ui/paged";
import { Facts, Notice, nameColumn } from "../../ui/table";
import { ClaimPreview } from "./fields/ClaimPreview";
import { FieldForm } from "./fields/FieldForm";
import {
  EMPTY_DRAFT,
  type FieldCreate,
  type ProfileField,
  TYPE_LABELS,
  createBody,
  draftOf,
  flagsOf,
  localErrors,
  patchBody,
} from "./fields/model";
import { type EditorOptions, loadEditorOptions } from "./fields/options";

const LIST = "/console/admin/profile-fields";
const WRITE = "idp:profile-fields:write";
const fieldPath = (id: string): string => `/admin/profile-fields/${encodeURIComponent(id)}`;

export function ProfileFieldsScreen(_props: { params: Record<string, string> }) {
  const { query } = useLocation();
  const paging = useUrlCursor({ created: null, deleted: null });
  const { cursor } = paging;
  const created = query.get("created");
  const deleted = query.get("deleted");
  const load = useLoad(
    // Pages of 200: a provider rarely has more fields, so the whole list is usually one page.
    (signal) => get<Page<ProfileField>>("/admin/profile-fields", { cursor, limit: 200 }, signal),
    [cursor],
  );
  return (
    <Screen
      title="Profile fields"
      intro="The fields of every person's profile, in display order, and the claims they release."
      actions={
        hasScope(WRITE) ? (
          <Link to={`${LIST}/new`} className="button primary">
            New field
          </Link>
        ) : null
      }
    >
      {created ? <Notice>Field "{created}" created.</Notice> : null}
      {deleted ? <Notice>Field "{deleted}" deleted, with every value of it.</Notice> : null}
      <PagedTable
        load={load}
        paging={paging}
        label="Loading profile fields…"
        caption="Profile fields"
        rowKey={(field) => field.id}
        empty="No profile fields yet."
        columns={[
          nameColumn<ProfileField>("Label", (field) => `${LIST}/${encodeURIComponent(field.id)}`, (field) => field.label),
          { header: "Key", cell: (field) => <code>{field.key}</code> },
          { header: "Type", cell: (field) => TYPE_LABELS[field.dataType] ?? field.dataType },
          {
            header: "Flags",
            cell: (field) =>
              flagsOf(field).map((flag) => (
                <span className="tag" key={flag}>
                  {flag}
                </span>
              )),
          },
          {
            header: "Claim",
            cell: (field) =>
              field.claimName ? (
                <>
                  <code>{field.claimName}</code> <span className="muted">under {field.claimScope}</span>
                </>
              ) : (
                <span className="muted">none</span>
              ),
          },
          { header: "Order", cell: (field) => field.displayOrder },
        ]}
      />
    </Screen>
  );
}

/** `/console/admin/profile-fields/new` is the creation form; any other id is a field. */
export function ProfileFieldScreen({ params }: { params: Record<string, string> }) {
  const id = params.id ?? "";
  return id === "new" ? <NewFieldScreen /> : <FieldScreen id={id} />;
}

function NewFieldScreen() {
  const { state, reload } = useLoad(
    (signal) =>
      Promise.all([
        get<FieldCreate[]>("/admin/profile-fields/presets", undefined, signal),
        loadEditorOptions(signal),
      ]),
    [],
  );
  if (!hasScope(WRITE)) {
    return (
      <Screen title="New profile field">
        <p>Your account cannot create profile fields.</p>
        <p>
          <Link to={LIST}>Back to the profile fields</Link>
        </p>
      </Screen>
    );
  }
  return (
    <Screen
      title="New profile field"
      intro="Start from a preset or fill in the form; the preview shows the claim it would release."
      actions={<Link to={LIST}>Back to the list</Link>}
    >
      <Loaded state={state} reload={reload} label="Loading presets…">
        {([presets, options]) => <NewFieldForm presets={presets} options={options} />}
      </Loaded>
    </Screen>
  );
}

function NewFieldForm({ presets, options }: { presets: FieldCreate[]; options: EditorOptions }) {
  const form = useForm(
    EMPTY_DRAFT,
    async (draft) => {
      const field = await post<ProfileField>("/admin/profile-fields", createBody(draft));
      navigate(`${LIST}?created=${encodeURIComponent(field.key)}`);
    },
    localErrors,
  );
  return (
    <FieldForm
      form={form}
      options={options}
      presets={presets}
      stored={false}
      submitLabel="Create field"
      formLabel="New profile field"
    />
  );
}

function FieldScreen({ id }: { id: string }) {
  const { state, reload } = useLoad(
    (signal) => Promise.all([get<ProfileField>(fieldPath(id), undefined, signal), loadEditorOptions(signal)]),
    [id],
  );
  const title = state.status === "ready" ? `Profile field: ${state.data[0].key}` : "Profile field";
  return (
    <Screen title={title} actions={<Link to={LIST}>Back to the list</Link>}>
      <Loaded state={state} reload={reload} label="Loading the field…">
        {([field, options]) => <FieldDetail initial={field} options={options} />}
      </Loaded>
    </Screen>
  );
}

function FieldDetail({ initial, options }: { initial: ProfileField; options: EditorOptions }) {
  const [field, setField] = useState(initial);
  const [notice, setNotice] = useState<string | null>(null);
  const form = useForm(
    draftOf(initial),
    async (draft) => {
      setNotice(null);
      const changes = patchBody(field, draft);
      if (Object.keys(changes).length === 0) {
        setNotice("Nothing to save: no changes.");
        return;
      }
      const saved = await patch<ProfileField>(fieldPath(field.id), changes);
      setField(saved);
      form.setValues(draftOf(saved));
      setNotice("Saved.");
    },
    localErrors,
  );
  if (!hasScope(WRITE)) return <ReadOnlyField field={field} options={options} />;
  return (
    <>
      {notice ? <Notice>{notice}</Notice> : null}
      <FieldForm
        form={form}
        options={options}
        stored
        submitLabel="Save changes"
        formLabel="Change the profile field"
      />
      <section className="panel danger-zone" aria-labelledby="delete-field-title">
        <h2 id="delete-field-title">Delete this field</h2>
        <p>Deleting the field deletes every person's value of it. This cannot be undone.</p>
        <ConfirmButton
          label="Delete field"
          title={`Delete the field "${field.label}"?`}
          confirmLabel="Delete field and values"
          onConfirm={async () => {
            await del(fieldPath(field.id));
            navigate(`${LIST}?deleted=${encodeURIComponent(field.key)}`);
          }}
        >
          <p>
            Every person's value of <code>{field.key}</code> is deleted with it
            {field.claimName ? `, and applications no longer receive the claim "${field.claimName}"` : ""}. This
            cannot be undone.
          </p>
        </ConfirmButton>
      </section>
    </>
  );
}

/** For holders of the read scope only: the field's properties and its claim. */
function ReadOnlyField({ field, options }: { field: ProfileField; options: EditorOptions }) {
  const v = field.validators;
  const rules = [
    v.pattern !== undefined ? `pattern ${v.pattern}` : "",
    v.minLength !== undefined ? `at least ${v.minLength} characters` : "",
    v.maxLength !== undefined ? `at most ${v.maxLength} characters` : "",
    v.min !== undefined ? `minimum ${v.min}` : "",
    v.max !== undefined ? `maximum ${v.max}` : "",
  ].filter(Boolean);
  return (
    <div className="field-editor">
      <Facts
        rows={[
          ["Key", <code>{field.key}</code>],
          ["Label", field.label],
          ["Type", TYPE_LABELS[field.dataType] ?? field.dataType],
          ["Flags", flagsOf(field).join(", ") || "none"],
          ["Validation", rules.join("; ") || "none"],
          field.enumValues ? ["Permitted values", field.enumValues.join(", ")] : null,
          ["Display order", field.displayOrder],
          ["Group", field.groupId ? (options.groupNames.get(field.groupId) ?? field.groupId) : "Everyone"],
        ]}
      />
      <ClaimPreview draft={draftOf(field)} groupName={field.groupId ? options.groupNames.get(field.groupId) : undefined} />
    </div>
  );
}
