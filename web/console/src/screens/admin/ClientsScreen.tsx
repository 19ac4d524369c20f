/**
 * OAuth clients (`/admin/clients`): the list, a creation form (a confidential client's
 * secret is shown once, then the detail opens), and the detail: settings, secret rotation
 * (shown once again), the scopes it may request, deletion (the console's own client is
 * protected: the API's 409 message is shown).
 */
import { useState } from "react";
import { type Page, del, get, patch, post } from "../../api/client";
import { hasScope } from "../../auth/session";
import { Link, navigate } from "../../router";
import { Panel, Screen } from "../../ui/Screen";
import { ConfirmButton, RevealOnce } from "../../ui/dialog";
import { Loaded, useLoad } from "../../ui/load";
import { DataTable, Notice, Pager, formatTime } from "../../ui/table";
import { ClientForm, type ClientSettings } from "./catalogue/ClientForm";
import {
  type Client,
  type ClientCreated,
  type SecretRotated,
  carryNotice,
  seg,
  useCarriedNotice,
  useUrlCursor,
} from "./catalogue/common";
import { ScopeChoice } from "./catalogue/ScopeChoice";

const WRITE = "idp:clients:write";
const LIST = "/console/admin/clients";

export function ClientsScreen(_props: { params: Record<string, string> }) {
  const { cursor, next, first } = useUrlCursor();
  const { state, reload } = useLoad((signal) => get<Page<Client>>("/admin/clients", { cursor }, signal), [cursor]);
  const notice = useCarriedNotice();
  return (
    <Screen title="Clients" intro="The applications that sign people in through the provider or call its APIs.">
      {notice ? <Notice>{notice}</Notice> : null}
      <Loaded state={state} reload={reload}>
        {(page) => (
          <>
            <DataTable
              caption="Clients"
              rows={page.items}
              rowKey={(client) => client.client_id}
              empty="No clients yet."
              columns={[
                {
                  header: "Name",
                  rowHeader: true,
                  cell: (client) => <Link to={`${LIST}/${seg(client.client_id)}`}>{client.name}</Link>,
                },
                { header: "Client ID", cell: (client) => <code>{client.client_id}</code> },
                { header: "Type", cell: (client) => client.type },
                { header: "Grant types", cell: (client) => client.grantTypes.join(", ") },
              ]}
            />
            <Pager nextCursor={page.nextCursor} atStart={!cursor} onNext={next} onFirst={first} />
          </>
        )}
      </Loaded>
      {hasScope(WRITE) ? (
        <Panel title="New client">
          <NewClient />
        </Panel>
      ) : null}
    </Screen>
  );
}

function NewClient() {
  const [created, setCreated] = useState<ClientCreated | null>(null);
  const open = (client: Client, text: string): void => {
    const to = `${LIST}/${seg(client.client_id)}`;
    carryNotice(to, text);
    navigate(to);
  };
  return (
    <>
      <ClientForm
        label="New client"
        submitLabel="Create client"
        onSubmit={async (settings: ClientSettings) => {
          const client = await post<ClientCreated>("/admin/clients", settings);
          if (client.client_secret) setCreated(client);
          else open(client, "Client created.");
          return null;
        }}
      />
      {created?.client_secret ? (
        <RevealOnce
          title="Client created: its secret"
          explanation="Copy the client secret now and keep it in the application's configuration. It is not shown again; if it is lost, rotate it."
          value={<SecretValue clientId={created.client_id} secret={created.client_secret} />}
          onClose={() => open(created, "Client created.")}
        />
      ) : null}
    </>
  );
}

function SecretValue({ clientId, secret }: { clientId: string; secret: string }) {
  return (
    <dl className="facts">
      <dt>Client ID</dt>
      <dd>
        <code>{clientId}</code>
      </dd>
      <dt>Client secret</dt>
      <dd>
        <code>{secret}</code>
      </dd>
    </dl>
  );
}

export function ClientScreen({ params }: { params: Record<string, string> }) {
  const id = params.id ?? "";
  const { state, reload } = useLoad((signal) => get<Client>(`/admin/clients/${seg(id)}`, undefined, signal), [id]);
  const created = useCarriedNotice();
  return (
    <Screen
      title={state.status === "ready" ? `Client ${state.data.name}` : "Client"}
      actions={<Link to={LIST}>All clients</Link>}
    >
      {created ? <Notice>{created}</Notice> : null}
      <Loaded state={state} reload={reload}>
        {(client) => <ClientDetail client={client} onChange={reload} />}
      </Loaded>
    </Screen>
  );
}

function ClientDetail({ client, onChange }: { client: Client; onChange: () => void }) {
  const canWrite = hasScope(WRITE);
  const path = `/admin/clients/${seg(client.client_id)}`;
  return (
    <>
      <dl className="facts">
        <dt>Client ID</dt>
        <dd>
          <code>{client.client_id}</code>
        </dd>
        <dt>Type</dt>
        <dd>{client.type}</dd>
        <dt>Created</dt>
        <dd>{formatTime(client.createdAt)}</dd>
        <dt>Changed</dt>
        <dd>{formatTime(client.updatedAt)}</dd>
        {canWrite ? null : (
          <>
            <dt>Redirect URIs</dt>
            <dd>{client.redirectUris.join(" ") || "—"}</dd>
            <dt>Post-logout redirect URIs</dt>
            <dd>{client.postLogoutRedirectUris.join(" ") || "—"}</dd>
            <dt>Back-channel logout URI</dt>
            <dd>{client.backchannelLogoutUri ?? "—"}</dd>
            <dt>Grant types</dt>
            <dd>{client.grantTypes.join(", ")}</dd>
            <dt>Skips consent</dt>
            <dd>{client.skipConsent ? "Yes" : "No"}</dd>
          </>
        )}
      </dl>
      {canWrite ? (
        <Panel title="Settings" id="client-settings">
          <ClientForm
            client={client}
            label="Client settings"
            submitLabel="Save client"
            onSubmit={async (settings) => {
              await patch<Client>(path, {
                name: settings.name,
                redirectUris: settings.redirectUris,
                postLogoutRedirectUris: settings.postLogoutRedirectUris,
                backchannelLogoutUri: settings.backchannelLogoutUri,
                grantTypes: settings.grantTypes,
                skipConsent: settings.skipConsent,
              });
              onChange();
              return "Saved.";
            }}
          />
        </Panel>
      ) : null}
      {canWrite && client.type === "confidential" ? <RotateSecret client={client} /> : null}
      <Panel title="Scopes" id="client-scopes">
        <p className="hint">The scopes this client may request. People still consent to them unless consent is skipped.</p>
        <ScopeChoice
          path={`${path}/scopes`}
          chosen={client.scopes}
          withOidc
          canWrite={canWrite}
          legend="Scopes the client may request"
        />
      </Panel>
      {canWrite ? (
        <Panel title="Delete client" id="delete-client">
          <p>Its secret, codes, refresh tokens and consents are deleted with it.</p>
          <ConfirmButton
            label="Delete client"
            title={`Delete the client ${client.name}?`}
            confirmLabel="Delete"
            onConfirm={async () => {
              await del(path);
              carryNotice(LIST, `Client ${client.name} deleted.`);
              navigate(LIST);
            }}
          >
            <p>The application stops working at once. This cannot be undone.</p>
          </ConfirmButton>
        </Panel>
      ) : null}
    </>
  );
}

function RotateSecret({ client }: { client: Client }) {
  const [rotated, setRotated] = useState<SecretRotated | null>(null);
  const [done, setDone] = useState(false);
  return (
    <Panel title="Client secret" id="client-secret">
      {done ? <Notice>The secret was replaced; the old one no longer works.</Notice> : null}
      <p>The secret is stored only as a digest. Rotating it makes a new one and the old one stops working at once.</p>
      <ConfirmButton
        label="Rotate secret"
        title="Rotate the client secret?"
        confirmLabel="Rotate"
        onConfirm={async () => {
          setDone(false);
          setRotated(await post<SecretRotated>(`/admin/clients/${seg(client.client_id)}/rotate-secret`));
        }}
      >
        <p>The application must be given the new secret; until then it cannot get tokens.</p>
      </ConfirmButton>
      {rotated ? (
        <RevealOnce
          title="The new client secret"
          explanation="Copy the new secret now. It is not shown again."
          value={<SecretValue clientId={rotated.client_id} secret={rotated.client_secret} />}
          onClose={() => {
            setRotated(null);
            setDone(true);
          }}
        />
      ) : null}
    </Panel>
  );
}
