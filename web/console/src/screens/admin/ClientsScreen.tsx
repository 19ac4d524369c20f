/**
 * OAuth clients (`/admin/clients`): the list, a creation form (a confidential client's
 * secret is shown once, then the detail opens), and the detail: settings, secret rotation
 * (shown once again), the scopes it may request, deletion (the console's own client is
 * protected: the API's 409 message is shown).
 */
import { useState } from "react";
import { patch, post } from "../../api/client";
import { hasScope } from "../../auth/session";
import { navigate } from "../../router";
import { Panel } from "../../ui/Screen";
import { carryNotice } from "../../ui/carry";
import { ConfirmButton, RevealOnce } from "../../ui/dialog";
import { Facts, Notice, formatTime, nameColumn } from "../../ui/table";
import { ClientForm, type ClientSettings } from "./catalogue/ClientForm";
import { type Client, type ClientCreated, type SecretRotated, seg } from "./catalogue/common";
import { ScopeChoice } from "./catalogue/ScopeChoice";
import { DeletePanel, DetailScreen, ListScreen } from "./catalogue/screens";

const WRITE = "idp:clients:write";
const LIST = "/console/admin/clients";

export function ClientsScreen(_props: { params: Record<string, string> }) {
  return (
    <ListScreen<Client>
      title="Clients"
      intro="The applications that sign people in through the provider or call its APIs."
      apiPath="/admin/clients"
      caption="Clients"
      rowKey={(client) => client.client_id}
      empty="No clients yet."
      columns={[
        nameColumn("Name", (client) => `${LIST}/${seg(client.client_id)}`, (client) => client.name),
        { header: "Client ID", cell: (client) => <code>{client.client_id}</code> },
        { header: "Type", cell: (client) => client.type },
        { header: "Grant types", cell: (client) => client.grantTypes.join(", ") },
      ]}
      create={{ title: "New client", writeScope: WRITE, form: <NewClient /> }}
    />
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
    <Facts
      rows={[
        ["Client ID", <code>{clientId}</code>],
        ["Client secret", <code>{secret}</code>],
      ]}
    />
  );
}

export function ClientScreen({ params }: { params: Record<string, string> }) {
  return (
    <DetailScreen<Client>
      apiPath={`/admin/clients/${seg(params.id ?? "")}`}
      title={(client) => `Client ${client.name}`}
      fallbackTitle="Client"
      back={{ to: LIST, label: "All clients" }}
    >
      {(client, reload) => <ClientDetail client={client} onChange={reload} />}
    </DetailScreen>
  );
}

function ClientDetail({ client, onChange }: { client: Client; onChange: () => void }) {
  const canWrite = hasScope(WRITE);
  const path = `/admin/clients/${seg(client.client_id)}`;
  return (
    <>
      <Facts
        rows={[
          ["Client ID", <code>{client.client_id}</code>],
          ["Type", client.type],
          ["Created", formatTime(client.createdAt)],
          ["Changed", formatTime(client.updatedAt)],
          // A writer sees these in the settings form.
          ...(canWrite
            ? []
            : ([
                ["Redirect URIs", client.redirectUris.join(" ") || "—"],
                ["Post-logout redirect URIs", client.postLogoutRedirectUris.join(" ") || "—"],
                ["Back-channel logout URI", client.backchannelLogoutUri ?? "—"],
                ["Grant types", client.grantTypes.join(", ")],
                ["Skips consent", client.skipConsent ? "Yes" : "No"],
                ["ID token signing", client.id_token_signed_response_alg],
                ["Userinfo signing", client.userinfo_signed_response_alg ?? "None (plain JSON)"],
                ["Token endpoint authentication", client.token_endpoint_auth_method],
                ["Public keys", client.jwks ? "JWK Set (jwks)" : (client.jwks_uri ?? "—")],
                ["Requires PAR", client.require_pushed_authorization_requests ? "Yes" : "No"],
                ["Requires DPoP", client.dpop_bound_access_tokens ? "Yes" : "No"],
                ["Security profile", client.securityProfile === "fapi2" ? "FAPI 2.0" : "None"],
                ["Token exchange audiences", client.tokenExchangeAudiences.join(" ") || "—"],
                ["Allowed web origins", client.allowedWebOrigins.join(" ") || "Those of the redirect URIs"],
              ] as const)),
        ]}
      />
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
                id_token_signed_response_alg: settings.id_token_signed_response_alg,
                userinfo_signed_response_alg: settings.userinfo_signed_response_alg,
                token_endpoint_auth_method: settings.token_endpoint_auth_method,
                jwks: settings.jwks,
                jwks_uri: settings.jwks_uri,
                require_pushed_authorization_requests: settings.require_pushed_authorization_requests,
                dpop_bound_access_tokens: settings.dpop_bound_access_tokens,
                securityProfile: settings.securityProfile,
                tokenExchangeAudiences: settings.tokenExchangeAudiences,
                allowedWebOrigins: settings.allowedWebOrigins,
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
        <DeletePanel
          noun="client"
          name={client.name}
          apiPath={path}
          listPath={LIST}
          warning="Its secret, codes, refresh tokens and consents are deleted with it."
          consequence="The application stops working at once. This cannot be undone."
        />
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
