/**
 * APIs and scopes: the resource APIs the provider issues tokens for (`/admin/apis`) and the
 * scopes of each (`/admin/apis/{id}/scopes`, `/admin/scopes/{id}`). The provider's own API
 * `idp` and its `idp:*` scopes are protected: the API's 409 message is shown as it comes.
 */
import { useState } from "react";
import { type Page, del, get, patch, post } from "../../api/client";
import { hasScope } from "../../auth/session";
import { navigate } from "../../router";
import { Panel } from "../../ui/Screen";
import { blankErrors, useForm } from "../../ui/bind";
import { carryNotice } from "../../ui/carry";
import { ConfirmButton } from "../../ui/dialog";
import { Form, SelectField, SubmitButton, TextField } from "../../ui/form";
import { useLoad } from "../../ui/load";
import { PagedTable, useCursor } from "../../ui/paged";
import { Facts, Notice, formatTime, nameColumn, rowLabel } from "../../ui/table";
import { type Api, SIGNING_ALGS, SIGNING_ALG_HINT, type Scope, type SigningAlg, seg } from "./catalogue/common";
import { FormDialog } from "./catalogue/FormDialog";
import { DeletePanel, DetailScreen, ListScreen } from "./catalogue/screens";

const WRITE = "idp:apis:write";
const LIST = "/console/admin/apis";

export function ApisScreen(_props: { params: Record<string, string> }) {
  return (
    <ListScreen<Api>
      title="APIs and scopes"
      intro="The APIs the provider issues access tokens for, and the scopes (permissions) each defines."
      apiPath="/admin/apis"
      caption="APIs"
      rowKey={(api) => api.id}
      empty="No APIs yet."
      columns={[
        nameColumn("Name", (api) => `${LIST}/${seg(api.id)}`, (api) => api.name),
        { header: "Audience", cell: (api) => <code>{api.audience}</code> },
        { header: "Signing", cell: (api) => api.accessTokenSigningAlg },
        { header: "Created", cell: (api) => formatTime(api.createdAt) },
      ]}
      create={{ title: "New API", writeScope: WRITE, form: <NewApiForm /> }}
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
    (values) => (api ? {} : blankErrors(values, { name: "Enter a name.", audience: "Enter the audience." })),
  );
  return (
    <Form submission={submission} label={label}>
      {notice ? <Notice>{notice}</Notice> : null}
      <TextField label="Name" hint={nameHint} {...text("name")} autoComplete="off" spellCheck={false} />
      <TextField label="Audience" hint={audienceHint} {...text("audience")} autoComplete="off" spellCheck={false} />
      <SelectField
        label="Access token signing algorithm"
        hint={`The algorithm of the access tokens for this API's audience. ${SIGNING_ALG_HINT}`}
        {...text("accessTokenSigningAlg")}
        options={[...SIGNING_ALGS]}
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
      label="New API"
      nameHint="Lowercase letters, digits, dot, underscore and hyphen; it begins each of its scopes (notes:items:read)."
      audienceHint="The aud claim of its access tokens, usually the API's address (https://notes.example.com)."
      submitLabel="Create API"
      busyLabel="Creating…"
      onSubmit={async (values) => {
        const api = await post<Api>("/admin/apis", values);
        const to = `${LIST}/${seg(api.id)}`;
        carryNotice(to, "API created. Add its scopes below.");
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
      title={(api) => `API ${api.name}`}
      fallbackTitle="API"
      back={{ to: LIST, label: "All APIs" }}
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
          ["Name", <code>{api.name}</code>],
          ["Audience", <code>{api.audience}</code>],
          ["Access token signing", api.accessTokenSigningAlg],
          ["Created", formatTime(api.createdAt)],
          ["Changed", formatTime(api.updatedAt)],
        ]}
      />
      <ScopesPanel api={api} />
      {canWrite ? (
        <>
          <Panel title="Edit API" id="edit-api">
            <ApiForm
              api={api}
              label="Edit API"
              nameHint="It cannot change while the API has scopes."
              submitLabel="Save API"
              onSubmit={async (values) => {
                await patch<Api>(`/admin/apis/${seg(api.id)}`, values);
                onChange();
                return "Saved.";
              }}
            />
          </Panel>
          <DeletePanel
            noun="API"
            name={api.name}
            apiPath={`/admin/apis/${seg(api.id)}`}
            listPath={LIST}
            warning="Deleting the API deletes its scopes, and every role, client and user loses them."
            consequence="Its scopes and every grant of them are deleted too. This cannot be undone."
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
    header: "Actions",
    cell: (scope: Scope) => (
      <div className="row-actions">
        <FormDialog label={rowLabel("Edit", scope.value)} title={`Edit ${scope.value}`}>
          {(close) => (
            <EditScopeForm
              scope={scope}
              onCancel={close}
              onSaved={() => {
                close();
                changed(`Scope ${scope.value} saved.`);
              }}
            />
          )}
        </FormDialog>
        <ConfirmButton
          label={rowLabel("Delete", scope.value)}
          title={`Delete the scope ${scope.value}?`}
          confirmLabel="Delete"
          onConfirm={async () => {
            await del(`/admin/scopes/${seg(scope.id)}`);
            changed(`Scope ${scope.value} deleted.`);
          }}
        >
          <p>Every role, client and user that holds it loses it.</p>
        </ConfirmButton>
      </div>
    ),
  };
  return (
    <Panel title="Scopes" id="scopes">
      {notice ? <Notice>{notice}</Notice> : null}
      <PagedTable
        load={{ state, reload }}
        paging={paging}
        caption={`Scopes of ${api.name}`}
        rowKey={(scope) => scope.id}
        empty="This API has no scopes yet."
        columns={[
          { header: "Value", rowHeader: true, cell: (scope) => <code>{scope.value}</code> },
          { header: "Description", cell: (scope) => scope.description },
          ...(canWrite ? [actions] : []),
        ]}
      />
      {canWrite ? <NewScopeForm api={api} onCreated={(value) => changed(`Scope ${value} added.`)} /> : null}
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
        : { value: `Enter the scope, shaped ${api.name}:<resource>:<action>.` }),
      ...blankErrors({ description }, { description: "Enter a description." }),
    }),
  );
  const { submission, text } = form;
  return (
    <Form submission={submission} label="New scope" className="form subform">
      <h3>Add a scope</h3>
      <TextField
        label="Scope"
        hint={`Shaped ${api.name}:<resource>:<action>, for example ${api.name}:items:read.`}
        {...text("value")}
        autoComplete="off"
        spellCheck={false}
      />
      <TextField
        label="Description"
        hint="The sentence the consent screen shows (See your notes)."
        {...text("description")}
        autoComplete="off"
      />
      <div>
        <SubmitButton busy={submission.busy} busyLabel="Adding…">
          Add scope
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
    (values) => blankErrors(values, { description: "Enter a description." }),
  );
  return (
    <Form submission={submission} label={`Edit ${scope.value}`}>
      <TextField label="Description" {...text("description")} autoComplete="off" autoFocus />
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <SubmitButton busy={submission.busy}>Save</SubmitButton>
      </div>
    </Form>
  );
}
