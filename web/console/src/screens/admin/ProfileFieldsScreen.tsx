/**
 * Administration of profile fields (`/admin/profile-fields`, contract §2 "Profile field"):
 * the list in display order, a new field (from a preset or from scratch) and a field's
 * page (change, delete), each with a live preview of the claim it releases.
 */
import { useState } from "react";
import { type Page, del, get, patch, post } from "../../api/client";
import { hasScope } from "../../auth/session";
import { intl, t } from "../../i18n";
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
  createBody,
  draftOf,
  flagsOf,
  localErrors,
  patchBody,
  typeLabel,
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
      title={t("admin-ops.fields.title")}
      intro={t("admin-ops.fields.intro")}
      actions={
        hasScope(WRITE) ? (
          <Link to={`${LIST}/new`} className="button primary">
            {t("admin-ops.fields.new")}
          </Link>
        ) : null
      }
    >
      {created ? <Notice>{t("admin-ops.fields.created", { key: created })}</Notice> : null}
      {deleted ? <Notice>{t("admin-ops.fields.deleted", { key: deleted })}</Notice> : null}
      <PagedTable
        load={load}
        paging={paging}
        label={t("admin-ops.fields.loading")}
        caption={t("admin-ops.fields.title")}
        rowKey={(field) => field.id}
        empty={t("admin-ops.fields.empty")}
        columns={[
          nameColumn<ProfileField>(t("admin-ops.fields.col.label"), (field) => `${LIST}/${encodeURIComponent(field.id)}`, (field) => field.label),
          { header: t("admin-ops.fields.col.key"), cell: (field) => <code>{field.key}</code> },
          { header: t("admin-ops.fields.col.type"), cell: (field) => typeLabel(field.dataType) },
          {
            header: t("admin-ops.fields.col.flags"),
            cell: (field) =>
              flagsOf(field).map((flag) => (
                <span className="tag" key={flag}>
                  {flag}
                </span>
              )),
          },
          {
            header: t("admin-ops.fields.col.claim"),
            cell: (field) =>
              field.claimName ? (
                <>
                  <code>{field.claimName}</code>{" "}
                  <span className="muted">{t("admin-ops.fields.claimUnder", { scope: field.claimScope ?? "" })}</span>
                </>
              ) : (
                <span className="muted">{t("admin-ops.fields.none")}</span>
              ),
          },
          { header: t("admin-ops.fields.col.order"), cell: (field) => field.displayOrder },
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
      <Screen title={t("admin-ops.fields.new.title")}>
        <p>{t("admin-ops.fields.new.cannot")}</p>
        <p>
          <Link to={LIST}>{t("admin-ops.fields.backToFields")}</Link>
        </p>
      </Screen>
    );
  }
  return (
    <Screen
      title={t("admin-ops.fields.new.title")}
      intro={t("admin-ops.fields.new.intro")}
      actions={<Link to={LIST}>{t("admin-ops.fields.backToList")}</Link>}
    >
      <Loaded state={state} reload={reload} label={t("admin-ops.fields.loadingPresets")}>
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
      submitLabel={t("admin-ops.fields.create")}
      formLabel={t("admin-ops.fields.new.title")}
    />
  );
}

function FieldScreen({ id }: { id: string }) {
  const { state, reload } = useLoad(
    (signal) => Promise.all([get<ProfileField>(fieldPath(id), undefined, signal), loadEditorOptions(signal)]),
    [id],
  );
  const title =
    state.status === "ready" ? t("admin-ops.fields.detail.title", { key: state.data[0].key }) : t("admin-ops.fields.detail.fallback");
  return (
    <Screen title={title} actions={<Link to={LIST}>{t("admin-ops.fields.backToList")}</Link>}>
      <Loaded state={state} reload={reload} label={t("admin-ops.fields.loadingField")}>
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
        setNotice(t("admin-ops.fields.nothingToSave"));
        return;
      }
      const saved = await patch<ProfileField>(fieldPath(field.id), changes);
      setField(saved);
      form.setValues(draftOf(saved));
      setNotice(t("admin-ops.fields.saved"));
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
        submitLabel={t("admin-ops.fields.save")}
        formLabel={t("admin-ops.fields.edit.form")}
      />
      <section className="panel danger-zone" aria-labelledby="delete-field-title">
        <h2 id="delete-field-title">{t("admin-ops.fields.delete.title")}</h2>
        <p>{t("admin-ops.fields.delete.warning")}</p>
        <ConfirmButton
          label={t("admin-ops.fields.delete.button")}
          title={t("admin-ops.fields.delete.question", { label: field.label })}
          confirmLabel={t("admin-ops.fields.delete.confirm")}
          onConfirm={async () => {
            await del(fieldPath(field.id));
            navigate(`${LIST}?deleted=${encodeURIComponent(field.key)}`);
          }}
        >
          <p>
            {t("admin-ops.fields.delete.consequence", {
              key: field.key,
              claim: field.claimName ?? "",
              hasClaim: field.claimName ? "yes" : "no",
            })}
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
    v.pattern !== undefined ? t("admin-ops.fields.rule.pattern", { pattern: v.pattern }) : "",
    v.minLength !== undefined ? t("admin-ops.fields.rule.minLength", { count: v.minLength }) : "",
    v.maxLength !== undefined ? t("admin-ops.fields.rule.maxLength", { count: v.maxLength }) : "",
    v.min !== undefined ? t("admin-ops.fields.rule.min", { value: String(v.min) }) : "",
    v.max !== undefined ? t("admin-ops.fields.rule.max", { value: String(v.max) }) : "",
  ].filter(Boolean);
  return (
    <div className="field-editor">
      <Facts
        rows={[
          [t("admin-ops.fields.col.key"), <code>{field.key}</code>],
          [t("admin-ops.fields.col.label"), field.label],
          [t("admin-ops.fields.col.type"), typeLabel(field.dataType)],
          [t("admin-ops.fields.col.flags"), intl().formatList(flagsOf(field), { type: "unit" }) || t("admin-ops.fields.none")],
          [t("admin-ops.fields.validation"), rules.join("; ") || t("admin-ops.fields.none")],
          field.enumValues ? [t("admin-ops.fields.permittedValues"), intl().formatList(field.enumValues, { type: "unit" })] : null,
          [t("admin-ops.fields.displayOrder"), field.displayOrder],
          [
            t("admin-ops.fields.group"),
            field.groupId ? (options.groupNames.get(field.groupId) ?? field.groupId) : t("admin-ops.fields.everyone"),
          ],
        ]}
      />
      <ClaimPreview draft={draftOf(field)} groupName={field.groupId ? options.groupNames.get(field.groupId) : undefined} />
    </div>
  );
}
