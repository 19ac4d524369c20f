/**
 * OAuth clients (`/admin/clients`): the list, a creation form (a confidential client's
 * secret is shown once, then the detail opens), and the detail: settings, secret rotation
 * (shown once again), the scopes it may request, deletion (the console's own client is
 * protected: the API's 409 message is shown), and the client's own brand.
 * A disabled client shows as such in the list and its facts; a writer switches it off and
 * on again on its screen (`clients/ClientEnabled`).
 */
import { useState } from "react";
import { patch, post } from "../../api/client";
import { hasScope } from "../../auth/session";
import { t } from "../../i18n";
import { navigate } from "../../router";
import { Panel } from "../../ui/Screen";
import { carryNotice } from "../../ui/carry";
import { ConfirmButton, RevealOnce } from "../../ui/dialog";
import { Facts, Notice, formatTime, nameColumn } from "../../ui/table";
import { ClientForm, type ClientSettings } from "./catalogue/ClientForm";
import { type Client, type ClientCreated, type SecretRotated, seg } from "./catalogue/common";
import { ScopeChoice } from "./catalogue/ScopeChoice";
import { DeletePanel, DetailScreen, ListScreen } from "./catalogue/screens";
import { BRANDING_READ } from "./clients/brand";
import { ClientBranding } from "./clients/ClientBranding";
import { ClientEnabled, ClientStatusTag } from "./clients/ClientEnabled";

const WRITE = "idp:clients:write";
const LIST = "/console/admin/clients";

export function ClientsScreen(_props: { params: Record<string, string> }) {
  return (
    <ListScreen<Client>
      title={t("admin-directory.clients.title")}
      intro={t("admin-directory.clients.intro")}
      apiPath="/admin/clients"
      caption={t("admin-directory.clients.caption")}
      rowKey={(client) => client.client_id}
      empty={t("admin-directory.clients.empty")}
      columns={[
        nameColumn(t("admin-directory.clients.name"), (client) => `${LIST}/${seg(client.client_id)}`, (client) => client.name),
        { header: t("admin-directory.clients.clientId"), cell: (client) => <code>{client.client_id}</code> },
        { header: t("admin-directory.clients.type"), cell: (client) => typeOf(client) },
        {
          header: t("admin-directory.clients.status"),
          cell: (client) => <ClientStatusTag disabled={client.disabled} />,
        },
        // Grant type names are protocol identifiers, listed as they are.
        { header: t("admin-directory.clients.grantTypes"), cell: (client) => client.grantTypes.join(", ") },
      ]}
      create={{ title: t("admin-directory.clients.new"), writeScope: WRITE, form: <NewClient /> }}
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
        label={t("admin-directory.clients.new")}
        submitLabel={t("admin-directory.clients.create")}
        onSubmit={async (settings: ClientSettings) => {
          const client = await post<ClientCreated>("/admin/clients", settings);
          if (client.client_secret) setCreated(client);
          else open(client, t("admin-directory.clients.created"));
          return null;
        }}
      />
      {created?.client_secret ? (
        <RevealOnce
          title={t("admin-directory.clients.secretTitle")}
          explanation={t("admin-directory.clients.secretExplanation")}
          value={<SecretValue clientId={created.client_id} secret={created.client_secret} />}
          onClose={() => open(created, t("admin-directory.clients.created"))}
        />
      ) : null}
    </>
  );
}

function SecretValue({ clientId, secret }: { clientId: string; secret: string }) {
  return (
    <Facts
      rows={[
        [t("admin-directory.clients.clientId"), <code>{clientId}</code>],
        [t("admin-directory.clients.secret"), <code>{secret}</code>],
      ]}
    />
  );
}

export function ClientScreen({ params }: { params: Record<string, string> }) {
  return (
    <DetailScreen<Client>
      apiPath={`/admin/clients/${seg(params.id ?? "")}`}
      title={(client) => t("admin-directory.clients.detailTitle", { name: client.name })}
      fallbackTitle={t("admin-directory.clients.singular")}
      back={{ to: LIST, label: t("admin-directory.clients.all") }}
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
          [t("admin-directory.clients.clientId"), <code>{client.client_id}</code>],
          [t("admin-directory.clients.type"), typeOf(client)],
          [t("admin-directory.clients.status"), <ClientStatusTag disabled={client.disabled} />],
          [t("admin-directory.clients.createdAt"), formatTime(client.createdAt)],
          [t("admin-directory.clients.changed"), formatTime(client.updatedAt)],
          // A writer sees these in the settings form.
          ...(canWrite
            ? []
            : ([
                [t("admin-directory.clients.redirects"), client.redirectUris.join(" ") || "—"],
                [t("admin-directory.clients.logouts"), client.postLogoutRedirectUris.join(" ") || "—"],
                [t("admin-directory.clients.backchannel"), client.backchannelLogoutUri ?? "—"],
                [t("admin-directory.clients.grantTypes"), client.grantTypes.join(", ")],
                [t("admin-directory.clients.skipsConsent"), yesNo(client.skipConsent)],
                [t("admin-directory.clients.idTokenSigning"), client.id_token_signed_response_alg],
                [
                  t("admin-directory.clients.userinfoSigning"),
                  client.userinfo_signed_response_alg ?? t("admin-directory.clients.userinfoPlain"),
                ],
                [t("admin-directory.clients.authMethod"), client.token_endpoint_auth_method],
                [
                  t("admin-directory.clients.keys"),
                  client.jwks ? t("admin-directory.clients.keysJwks") : (client.jwks_uri ?? "—"),
                ],
                [t("admin-directory.clients.requiresPar"), yesNo(client.require_pushed_authorization_requests)],
                [t("admin-directory.clients.requiresDpop"), yesNo(client.dpop_bound_access_tokens)],
                [
                  t("admin-directory.clients.profile"),
                  client.securityProfile === "fapi2"
                    ? t("admin-directory.clients.profileFapi2")
                    : t("admin-directory.clients.profileNone"),
                ],
                [t("admin-directory.clients.audiences"), client.tokenExchangeAudiences.join(" ") || "—"],
                [
                  t("admin-directory.clients.origins"),
                  client.allowedWebOrigins.join(" ") || t("admin-directory.clients.originsDefault"),
                ],
              ] as const)),
        ]}
      />
      {canWrite ? <ClientEnabled client={client} onChange={onChange} /> : null}
      {canWrite ? (
        <Panel title={t("admin-directory.clients.settings")} id="client-settings">
          <ClientForm
            client={client}
            label={t("admin-directory.clients.settingsForm")}
            submitLabel={t("admin-directory.clients.save")}
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
              return t("admin-directory.saved");
            }}
          />
        </Panel>
      ) : null}
      {canWrite && client.type === "confidential" ? <RotateSecret client={client} /> : null}
      <Panel title={t("admin-directory.clients.scopes")} id="client-scopes">
        <p className="hint">{t("admin-directory.clients.scopesHint")}</p>
        <ScopeChoice
          path={`${path}/scopes`}
          chosen={client.scopes}
          withOidc
          canWrite={canWrite}
          legend={t("admin-directory.clients.scopesLegend")}
        />
      </Panel>
      {hasScope(BRANDING_READ) ? <ClientBranding clientId={client.client_id} clientName={client.name} /> : null}
      {canWrite ? (
        <DeletePanel
          id="delete-client"
          title={t("admin-directory.clients.delete")}
          question={t("admin-directory.clients.deleteQuestion", { name: client.name })}
          deleted={t("admin-directory.clients.deleted", { name: client.name })}
          apiPath={path}
          listPath={LIST}
          warning={t("admin-directory.clients.deleteWarning")}
          consequence={t("admin-directory.clients.deleteConsequence")}
        />
      ) : null}
    </>
  );
}

/** "confidential" or "public", in the reader's language. */
const typeOf = (client: Client): string => t("admin-directory.clients.typeValue", { type: client.type });

const yesNo = (value: boolean): string => (value ? t("admin-directory.clients.yes") : t("admin-directory.clients.no"));

function RotateSecret({ client }: { client: Client }) {
  const [rotated, setRotated] = useState<SecretRotated | null>(null);
  const [done, setDone] = useState(false);
  return (
    <Panel title={t("admin-directory.clients.secret")} id="client-secret">
      {done ? <Notice>{t("admin-directory.clients.rotated")}</Notice> : null}
      <p>{t("admin-directory.clients.rotateExplanation")}</p>
      <ConfirmButton
        label={t("admin-directory.clients.rotate")}
        title={t("admin-directory.clients.rotateQuestion")}
        confirmLabel={t("admin-directory.clients.rotateConfirm")}
        onConfirm={async () => {
          setDone(false);
          setRotated(await post<SecretRotated>(`/admin/clients/${seg(client.client_id)}/rotate-secret`));
        }}
      >
        <p>{t("admin-directory.clients.rotateConsequence")}</p>
      </ConfirmButton>
      {rotated ? (
        <RevealOnce
          title={t("admin-directory.clients.newSecretTitle")}
          explanation={t("admin-directory.clients.newSecretExplanation")}
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
