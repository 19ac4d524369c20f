/**
 * APIs and scopes: the resource APIs the provider issues tokens for (`/admin/apis`) and the
 * scopes of each (`/admin/apis/{id}/scopes`, `/admin/scopes/{id}`). The provider's own API
 * `idp` and its `idp:*` scopes are protected: the API's 409 message is shown as it comes.
 */
import { useState } from "react";
import { type Page, del, get, patch, post } from "../../api/client";
import { hasScope } from "../../auth/session";
import { t } from "../../i18n";
import { navigate } from "../../router";
import { Panel } from "../../ui/Screen";
import { blankErrors, useForm } from "../../ui/bind";
import { carryNotice } from "../../ui/carry";
import { ConfirmButton } from "../../ui/dialog";
import { Form, SelectField, SubmitButton, TextField } from "../../ui/form";
import { useLoad } from "../../ui/load";
import { PagedTable, useCursor } from "../../ui/paged";
import { Facts, Notice, formatTime, nameColumn, rowLabel } from "../../ui/table";
import { type Api, type Scope, type SigningAlg, seg, signingAlgHint, signingAlgs } from "./catalogue/common";
import { FormDialog } from "./catalogue/FormDialog";
import { DeletePanel, DetailScreen, ListScreen } from "./catalogue/screens";

const WRITE = "idp:apis:write";
const LIST = "/console/admin/apis";

export function ApisScreen(_props: { params: Record<string, string> }) {
  return (
    <ListScreen<Api>
      title={t("admin-directory.apis.title")}
      intro={t("admin-directory.apis.intro")}
      apiPath="/admin/apis"
      caption={t("admin-directory.apis.caption")}
      rowKey={(api) => api.id}
      empty={t("admin-directory.apis.empty")}
      columns={[
        nameColumn(t("admin-directory.apis.name"), (api) => `${LIST}/${seg(api.id)}`, (api) => api.name),
        { header: t("admin-directory.apis.audience"), cell: (api) => <code>{api.audience}</code> },
        { header: t("admin-directory.apis.signing"), cell: (api) => api.accessTokenSigningAlg },
        { header: t("admin-directory.apis.created"), cell: (api) => formatTime(api.createdAt) },
      ]}
      create={{ title: t("admin-directory.apis.new"), writeScope: WRITE, form: <NewApiForm /> }}
    />
  );
}

/** The name, audience and token signing algorithm of an API, for its creation and for a change. */
function ApiForm({
  api,
  label,
  nameHint,
  audienceHint,
  submitLabel,
  busyLabel,
  onSubmit,
}: {
  api?: Api;
  label: string;
  nameHint: string;
  audienceHint?: string;
  submitLabel: string;
  busyLabel?: string;
  onSubmit: (values: { name: string; audience: string; accessTokenSigningAlg: SigningAlg }) => Promise<string | null>;
}) {
  const [notice, setNotice] = useState<string | null>(null);
  const { submission, text } = useForm(
    { name: api?.name ?? "", audience: api?.audience ?? "", accessTokenSigningAlg: api?.accessTokenSigningAlg ?? "RS256" },
    async ({ name, audience, accessTokenSigningAlg }) => {
      setNotice(null);
      setNotice(
        await onSubmit({
          name: name.trim(),
          audience: audience.trim(),
          accessTokenSigningAlg: accessTokenSigningAlg as SigningAlg,
        }),
      );
    },
    // A change sends what it has; the API names what it refuses.
    (values) => (api ? {} : blankErrors(values, {
            name: t("admin-directory.apis.nameMissing"),
            audience: t("admin-directory.apis.audienceMissing"),
          })),
  );
  return (
    <Form submission={submission} label={label}>
      {notice ? <Notice>{notice}</Notice> : null}
      <TextField
        label={t("admin-directory.apis.name")}
        hint={nameHint}
        {...text("name")}
        autoComplete="off"
        spellCheck={false}
      />
      <TextField
        label={t("admin-directory.apis.audience")}
        hint={audienceHint}
        {...text("audience")}
        autoComplete="off"
        spellCheck={false}
      />
      <SelectField
        label={t("admin-directory.apis.alg")}
        hint={t("admin-directory.apis.algHint", { keyHint: signingAlgHint() })}
        {...text("accessTokenSigningAlg")}
        options={signingAlgs()}
      />
      <div>
        <SubmitButton busy={submission.busy} {...(busyLabel ? { busyLabel } : {})}>
          {submitLabel}
        </SubmitButton>
      </div>
    </Form>
  );
}

function NewApiForm() {
  return (
    <ApiForm
      label={t("admin-directory.apis.new")}
      nameHint={t("admin-directory.apis.nameHint")}
      audienceHint={t("admin-directory.apis.audienceHint")}
      submitLabel={t("admin-directory.apis.create")}
      busyLabel={t("admin-directory.apis.creating")}
      onSubmit={async (values) => {
        const api = await post<Api>("/admin/apis", values);
        const to = `${LIST}/${seg(api.id)}`;
        carryNotice(to, t("admin-directory.apis.createdNotice"));
        navigate(to);
        return null;
      }}
    />
  );
}

export function ApiScreen({ params }: { params: Record<string, string> }) {
  return (
    <DetailScreen<Api>
      apiPath={`/admin/apis/${seg(params.id ?? "")}`}
      title={(api) => t("admin-directory.apis.detailTitle", { name: api.name })}
      fallbackTitle={t("admin-directory.apis.singular")}
      back={{ to: LIST, label: t("admin-directory.apis.all") }}
    >
      {(api, reload) => <ApiDetail api={api} onChange={reload} />}
    </DetailScreen>
  );
}

function ApiDetail({ api, onChange }: { api: Api; onChange: () => void }) {
  const canWrite = hasScope(WRITE);
  return (
    <>
      <Facts
        rows={[
          [t("admin-directory.apis.name"), <code>{api.name}</code>],
          [t("admin-directory.apis.audience"), <code>{api.audience}</code>],
          [t("admin-directory.apis.accessTokenSigning"), api.accessTokenSigningAlg],
          [t("admin-directory.apis.created"), formatTime(api.createdAt)],
          [t("admin-directory.apis.changed"), formatTime(api.updatedAt)],
        ]}
      />
      <ScopesPanel api={api} />
      {canWrite ? (
        <>
          <Panel title={t("admin-directory.apis.edit")} id="edit-api">
            <ApiForm
              api={api}
              label={t("admin-directory.apis.edit")}
              nameHint={t("admin-directory.apis.nameFixed")}
              submitLabel={t("admin-directory.apis.save")}
              onSubmit={async (values) => {
                await patch<Api>(`/admin/apis/${seg(api.id)}`, values);
                onChange();
                return t("admin-directory.saved");
              }}
            />
          </Panel>
          <DeletePanel
            id="delete-api"
            title={t("admin-directory.apis.delete")}
            question={t("admin-directory.apis.deleteQuestion", { name: api.name })}
            deleted={t("admin-directory.apis.deleted", { name: api.name })}
            apiPath={`/admin/apis/${seg(api.id)}`}
            listPath={LIST}
            warning={t("admin-directory.apis.deleteWarning")}
            consequence={t("admin-directory.apis.deleteConsequence")}
          />
        </>
      ) : null}
    </>
  );
}

function ScopesPanel({ api }: { api: Api }) {
  const canWrite = hasScope(WRITE);
  const paging = useCursor();
  const { cursor } = paging;
  const [notice, setNotice] = useState<string | null>(null);
  const { state, reload } = useLoad(
    (signal) => get<Page<Scope>>(`/admin/apis/${seg(api.id)}/scopes`, { cursor }, signal),
    [api.id, cursor],
  );
  const changed = (text: string): void => {
    setNotice(text);
    reload();
  };
  const actions = {
    header: t("admin-directory.scope.actions"),
    cell: (scope: Scope) => (
      <div className="row-actions">
        <FormDialog
          label={rowLabel(t("admin-directory.scope.editButton"), scope.value)}
          title={t("admin-directory.scope.editTitle", { value: scope.value })}
        >
          {(close) => (
            <EditScopeForm
              scope={scope}
              onCancel={close}
              onSaved={() => {
                close();
                changed(t("admin-directory.scope.saved", { value: scope.value }));
              }}
            />
          )}
        </FormDialog>
        <ConfirmButton
          label={rowLabel(t("admin-directory.scope.deleteButton"), scope.value)}
          title={t("admin-directory.scope.deleteQuestion", { value: scope.value })}
          confirmLabel={t("admin-directory.scope.deleteButton")}
          onConfirm={async () => {
            await del(`/admin/scopes/${seg(scope.id)}`);
            changed(t("admin-directory.scope.deleted", { value: scope.value }));
          }}
        >
          <p>{t("admin-directory.scope.deleteConsequence")}</p>
        </ConfirmButton>
      </div>
    ),
  };
  return (
    <Panel title={t("admin-directory.scope.panel")} id="scopes">
      {notice ? <Notice>{notice}</Notice> : null}
      <PagedTable
        load={{ state, reload }}
        paging={paging}
        caption={t("admin-directory.scope.caption", { api: api.name })}
        rowKey={(scope) => scope.id}
        empty={t("admin-directory.scope.empty")}
        columns={[
          { header: t("admin-directory.scope.value"), rowHeader: true, cell: (scope) => <code>{scope.value}</code> },
          { header: t("admin-directory.scope.description"), cell: (scope) => scope.description },
          ...(canWrite ? [actions] : []),
        ]}
      />
      {canWrite ? <NewScopeForm api={api} onCreated={(value) => changed(t("admin-directory.scope.added", { value }))} /> : null}
    </Panel>
  );
}

function NewScopeForm({ api, onCreated }: { api: Api; onCreated: (value: string) => void }) {
  const prefix = `${api.name}:`;
  const form = useForm(
    { value: prefix, description: "" },
    async ({ value, description }) => {
      const scope = await post<Scope>(`/admin/apis/${seg(api.id)}/scopes`, {
        value: value.trim(),
        description: description.trim(),
      });
      form.reset();
      onCreated(scope.value);
    },
    ({ value, description }) => ({
      ...(value.trim() && value.trim() !== prefix
        ? {}
        : { value: t("admin-directory.scope.valueMissing", { shape: `${api.name}:<resource>:<action>` }) }),
      ...blankErrors({ description }, { description: t("admin-directory.scope.descriptionMissing") }),
    }),
  );
  const { submission, text } = form;
  return (
    <Form submission={submission} label={t("admin-directory.scope.new")} className="form subform">
      <h3>{t("admin-directory.scope.add")}</h3>
      <TextField
        label={t("admin-directory.scope.scope")}
        hint={t("admin-directory.scope.valueHint", {
          shape: `${api.name}:<resource>:<action>`,
          example: `${api.name}:items:read`,
        })}
        {...text("value")}
        autoComplete="off"
        spellCheck={false}
      />
      <TextField
        label={t("admin-directory.scope.description")}
        hint={t("admin-directory.scope.descriptionHint")}
        {...text("description")}
        autoComplete="off"
      />
      <div>
        <SubmitButton busy={submission.busy} busyLabel={t("admin-directory.scope.adding")}>
          {t("admin-directory.scope.addButton")}
        </SubmitButton>
      </div>
    </Form>
  );
}

function EditScopeForm({ scope, onSaved, onCancel }: { scope: Scope; onSaved: () => void; onCancel: () => void }) {
  const { submission, text } = useForm(
    { description: scope.description },
    async ({ description }) => {
      await patch<Scope>(`/admin/scopes/${seg(scope.id)}`, { description: description.trim() });
      onSaved();
    },
    (values) => blankErrors(values, { description: t("admin-directory.scope.descriptionMissing") }),
  );
  return (
    <Form submission={submission} label={t("admin-directory.scope.editTitle", { value: scope.value })}>
      <TextField label={t("admin-directory.scope.description")} {...text("description")} autoComplete="off" autoFocus />
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel}>
          {t("admin-directory.scope.cancel")}
        </button>
        <SubmitButton busy={submission.busy}>{t("admin-directory.scope.save")}</SubmitButton>
      </div>
    </Form>
  );
}
