/**
 * APIs and scopes: the resource APIs the provider issues tokens for (`/admin/apis`) and the
 * scopes of each (`/admin/apis/{id}/scopes`, `/admin/scopes/{id}`). The provider's own API
 * `idp` and its `idp:*` scopes are protected: the API's 409 message is shown as it comes.
 */
import { useState } from "react";
import { type Page, del, get, patch, post } from "../../api/client";
import { hasScope } from "../../auth/session";
import { Link, navigate } from "../../router";
import { Panel, Screen } from "../../ui/Screen";
import { ConfirmButton } from "../../ui/dialog";
import { Form, SubmitButton, TextField, useSubmit } from "../../ui/form";
import { Loaded, useLoad } from "../../ui/load";
import { DataTable, Notice, Pager, formatTime } from "../../ui/table";
import { type Api, type Scope, carryNotice, seg, useCarriedNotice, useUrlCursor } from "./catalogue/common";
import { FormDialog } from "./catalogue/FormDialog";

const WRITE = "idp:apis:write";
const LIST = "/console/admin/apis";

export function ApisScreen(_props: { params: Record<string, string> }) {
  const { cursor, next, first } = useUrlCursor();
  const { state, reload } = useLoad((signal) => get<Page<Api>>("/admin/apis", { cursor }, signal), [cursor]);
  const notice = useCarriedNotice();
  return (
    <Screen
      title="APIs and scopes"
      intro="The APIs the provider issues access tokens for, and the scopes (permissions) each defines."
    >
      {notice ? <Notice>{notice}</Notice> : null}
      <Loaded state={state} reload={reload}>
        {(page) => (
          <>
            <DataTable
              caption="APIs"
              rows={page.items}
              rowKey={(api) => api.id}
              empty="No APIs yet."
              columns={[
                { header: "Name", rowHeader: true, cell: (api) => <Link to={`${LIST}/${seg(api.id)}`}>{api.name}</Link> },
                { header: "Audience", cell: (api) => <code>{api.audience}</code> },
                { header: "Created", cell: (api) => formatTime(api.createdAt) },
              ]}
            />
            <Pager nextCursor={page.nextCursor} atStart={!cursor} onNext={next} onFirst={first} />
          </>
        )}
      </Loaded>
      {hasScope(WRITE) ? (
        <Panel title="New API">
          <NewApiForm />
        </Panel>
      ) : null}
    </Screen>
  );
}

function NewApiForm() {
  const [name, setName] = useState("");
  const [audience, setAudience] = useState("");
  const submission = useSubmit(
    async () => {
      const api = await post<Api>("/admin/apis", { name: name.trim(), audience: audience.trim() });
      const to = `${LIST}/${seg(api.id)}`;
      carryNotice(to, "API created. Add its scopes below.");
      navigate(to);
    },
    () => {
      const errors: Record<string, string> = {};
      if (!name.trim()) errors.name = "Enter a name.";
      if (!audience.trim()) errors.audience = "Enter the audience.";
      return errors;
    },
  );
  return (
    <Form submission={submission} label="New API">
      <TextField
        label="Name"
        hint="Lowercase letters, digits, dot, underscore and hyphen; it begins each of its scopes (notes:items:read)."
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
        error={submission.fieldError("name")}
        autoComplete="off"
        spellCheck={false}
      />
      <TextField
        label="Audience"
        hint="The aud claim of its access tokens, usually the API's address (https://notes.example.com)."
        value={audience}
        onChange={(event) => setAudience(event.currentTarget.value)}
        error={submission.fieldError("audience")}
        autoComplete="off"
        spellCheck={false}
      />
      <div>
        <SubmitButton busy={submission.busy} busyLabel="Creating…">
          Create API
        </SubmitButton>
      </div>
    </Form>
  );
}

export function ApiScreen({ params }: { params: Record<string, string> }) {
  const id = params.id ?? "";
  const { state, reload } = useLoad((signal) => get<Api>(`/admin/apis/${seg(id)}`, undefined, signal), [id]);
  const created = useCarriedNotice();
  return (
    <Screen
      title={state.status === "ready" ? `API ${state.data.name}` : "API"}
      actions={<Link to={LIST}>All APIs</Link>}
    >
      {created ? <Notice>{created}</Notice> : null}
      <Loaded state={state} reload={reload}>
        {(api) => <ApiDetail api={api} onChange={reload} />}
      </Loaded>
    </Screen>
  );
}

function ApiDetail({ api, onChange }: { api: Api; onChange: () => void }) {
  const canWrite = hasScope(WRITE);
  return (
    <>
      <dl className="facts">
        <dt>Name</dt>
        <dd>
          <code>{api.name}</code>
        </dd>
        <dt>Audience</dt>
        <dd>
          <code>{api.audience}</code>
        </dd>
        <dt>Created</dt>
        <dd>{formatTime(api.createdAt)}</dd>
        <dt>Changed</dt>
        <dd>{formatTime(api.updatedAt)}</dd>
      </dl>
      <ScopesPanel api={api} />
      {canWrite ? (
        <>
          <Panel title="Edit API" id="edit-api">
            <EditApiForm api={api} onSaved={onChange} />
          </Panel>
          <Panel title="Delete API" id="delete-api">
            <p>Deleting the API deletes its scopes, and every role, client and user loses them.</p>
            <ConfirmButton
              label="Delete API"
              title={`Delete the API ${api.name}?`}
              confirmLabel="Delete"
              onConfirm={async () => {
                await del(`/admin/apis/${seg(api.id)}`);
                carryNotice(LIST, `API ${api.name} deleted.`);
                navigate(LIST);
              }}
            >
              <p>Its scopes and every grant of them are deleted too. This cannot be undone.</p>
            </ConfirmButton>
          </Panel>
        </>
      ) : null}
    </>
  );
}

function EditApiForm({ api, onSaved }: { api: Api; onSaved: () => void }) {
  const [name, setName] = useState(api.name);
  const [audience, setAudience] = useState(api.audience);
  const [saved, setSaved] = useState(false);
  const submission = useSubmit(async () => {
    setSaved(false);
    await patch<Api>(`/admin/apis/${seg(api.id)}`, { name: name.trim(), audience: audience.trim() });
    setSaved(true);
    onSaved();
  });
  return (
    <Form submission={submission} label="Edit API">
      {saved ? <Notice>Saved.</Notice> : null}
      <TextField
        label="Name"
        hint="It cannot change while the API has scopes."
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
        error={submission.fieldError("name")}
        autoComplete="off"
        spellCheck={false}
      />
      <TextField
        label="Audience"
        value={audience}
        onChange={(event) => setAudience(event.currentTarget.value)}
        error={submission.fieldError("audience")}
        autoComplete="off"
        spellCheck={false}
      />
      <div>
        <SubmitButton busy={submission.busy}>Save API</SubmitButton>
      </div>
    </Form>
  );
}

function ScopesPanel({ api }: { api: Api }) {
  const canWrite = hasScope(WRITE);
  const [cursor, setCursor] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const { state, reload } = useLoad(
    (signal) => get<Page<Scope>>(`/admin/apis/${seg(api.id)}/scopes`, { cursor }, signal),
    [api.id, cursor],
  );
  const changed = (text: string): void => {
    setNotice(text);
    reload();
  };
  return (
    <Panel title="Scopes" id="scopes">
      {notice ? <Notice>{notice}</Notice> : null}
      <Loaded state={state} reload={reload}>
        {(page) => (
          <>
            <DataTable
              caption={`Scopes of ${api.name}`}
              rows={page.items}
              rowKey={(scope) => scope.id}
              empty="This API has no scopes yet."
              columns={[
                { header: "Value", rowHeader: true, cell: (scope) => <code>{scope.value}</code> },
                { header: "Description", cell: (scope) => scope.description },
                ...(canWrite
                  ? [
                      {
                        header: "Actions",
                        cell: (scope: Scope) => (
                          <div className="row-actions">
                            <FormDialog
                              label={
                                <>
                                  Edit<span className="visually-hidden"> {scope.value}</span>
                                </>
                              }
                              title={`Edit ${scope.value}`}
                            >
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
                              label={
                                <>
                                  Delete<span className="visually-hidden"> {scope.value}</span>
                                </>
                              }
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
                      },
                    ]
                  : []),
              ]}
            />
            <Pager
              nextCursor={page.nextCursor}
              atStart={cursor === null}
              onNext={setCursor}
              onFirst={() => setCursor(null)}
            />
          </>
        )}
      </Loaded>
      {canWrite ? <NewScopeForm api={api} onCreated={(value) => changed(`Scope ${value} added.`)} /> : null}
    </Panel>
  );
}

function NewScopeForm({ api, onCreated }: { api: Api; onCreated: (value: string) => void }) {
  const prefix = `${api.name}:`;
  const [value, setValue] = useState(prefix);
  const [description, setDescription] = useState("");
  const submission = useSubmit(
    async () => {
      const scope = await post<Scope>(`/admin/apis/${seg(api.id)}/scopes`, {
        value: value.trim(),
        description: description.trim(),
      });
      setValue(prefix);
      setDescription("");
      onCreated(scope.value);
    },
    () => {
      const errors: Record<string, string> = {};
      if (!value.trim() || value.trim() === prefix) errors.value = `Enter the scope, shaped ${api.name}:<resource>:<action>.`;
      if (!description.trim()) errors.description = "Enter a description.";
      return errors;
    },
  );
  return (
    <Form submission={submission} label="New scope" className="form subform">
      <h3>Add a scope</h3>
      <TextField
        label="Scope"
        hint={`Shaped ${api.name}:<resource>:<action>, for example ${api.name}:items:read.`}
        value={value}
        onChange={(event) => setValue(event.currentTarget.value)}
        error={submission.fieldError("value")}
        autoComplete="off"
        spellCheck={false}
      />
      <TextField
        label="Description"
        hint="The sentence the consent screen shows (See your notes)."
        value={description}
        onChange={(event) => setDescription(event.currentTarget.value)}
        error={submission.fieldError("description")}
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
  const [description, setDescription] = useState(scope.description);
  const submission = useSubmit(
    async () => {
      await patch<Scope>(`/admin/scopes/${seg(scope.id)}`, { description: description.trim() });
      onSaved();
    },
    () => (description.trim() ? {} : { description: "Enter a description." }),
  );
  return (
    <Form submission={submission} label={`Edit ${scope.value}`}>
      <TextField
        label="Description"
        value={description}
        onChange={(event) => setDescription(event.currentTarget.value)}
        error={submission.fieldError("description")}
        autoComplete="off"
        autoFocus
      />
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <SubmitButton busy={submission.busy}>Save</SubmitButton>
      </div>
    </Form>
  );
}
