/**
 * Webhooks (`/admin/webhooks`): the endpoints with their enabled switch, a
 * creation form (the signing secret is shown once, then the endpoint's screen opens), and
 * an endpoint's screen: its settings, secret rotation (shown once again), the delivery log
 * with "Send again", deletion. Without `idp:webhooks:write` every screen is read-only.
 */
import { useId, useState } from "react";
import { describeError } from "../../api/client";
import { hasScope } from "../../auth/session";
import { intl, t } from "../../i18n";
import { navigate } from "../../router";
import { Panel } from "../../ui/Screen";
import { carryNotice } from "../../ui/carry";
import { ConfirmButton } from "../../ui/dialog";
import { Facts, Notice, formatTime, nameColumn } from "../../ui/table";
import { DeletePanel, DetailScreen, ListScreen } from "./catalogue/screens";
import { Deliveries } from "./webhooks/Deliveries";
import { EndpointForm } from "./webhooks/EndpointForm";
import {
  WEBHOOKS_API,
  WEBHOOKS_SCREEN,
  WEBHOOKS_WRITE,
  type WebhookCreated,
  type WebhookEndpoint,
  changesOf,
  createEndpoint,
  endpointPath,
  endpointScreen,
  endpointTitle,
  rotateSecret,
  updateEndpoint,
} from "./webhooks/model";
import { SecretShownOnce } from "./webhooks/SecretShownOnce";

export function WebhooksScreen(_props: { params: Record<string, string> }) {
  const canWrite = hasScope(WEBHOOKS_WRITE);
  return (
    <ListScreen<WebhookEndpoint>
      title={t("admin-ops.webhooks.title")}
      intro={t("admin-ops.webhooks.intro")}
      apiPath={WEBHOOKS_API}
      caption={t("admin-ops.webhooks.caption")}
      rowKey={(endpoint) => endpoint.id}
      empty={t("admin-ops.webhooks.empty")}
      columns={[
        nameColumn(t("admin-ops.webhooks.url"), (endpoint) => endpointScreen(endpoint.id), (endpoint) => endpoint.url),
        { header: t("admin-ops.webhooks.description"), cell: (endpoint) => endpoint.description || "—" },
        {
          header: t("admin-ops.webhooks.eventTypes"),
          cell: (endpoint) => (
            <span title={intl().formatList(endpoint.eventTypes, { type: "unit" })}>
              {t("admin-ops.webhooks.typeCount", { count: endpoint.eventTypes.length })}
            </span>
          ),
        },
        {
          header: t("admin-ops.webhooks.enabled"),
          cell: (endpoint) =>
            canWrite ? <EnabledSwitch endpoint={endpoint} /> : <EnabledTag enabled={endpoint.enabled} />,
        },
      ]}
      create={{ title: t("admin-ops.webhooks.new"), writeScope: WEBHOOKS_WRITE, form: <NewEndpoint /> }}
    />
  );
}

function EnabledTag({ enabled }: { enabled: boolean }) {
  return enabled ? (
    <span className="tag ok">{t("admin-ops.webhooks.enabled")}</span>
  ) : (
    <span className="tag">{t("admin-ops.webhooks.disabled")}</span>
  );
}

/** A switch in the list: `PATCH {enabled}` at once; a refusal puts it back and says why. */
function EnabledSwitch({ endpoint }: { endpoint: WebhookEndpoint }) {
  const id = useId();
  const [enabled, setEnabled] = useState(endpoint.enabled);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const flip = async (next: boolean): Promise<void> => {
    setBusy(true);
    setError(null);
    setEnabled(next);
    try {
      setEnabled((await updateEndpoint(endpoint.id, { enabled: next })).enabled);
    } catch (caught) {
      setEnabled(!next);
      setError(describeError(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="switch">
      <input
        id={id}
        type="checkbox"
        role="switch"
        checked={enabled}
        disabled={busy}
        aria-describedby={error ? `${id}-error` : undefined}
        aria-invalid={error ? true : undefined}
        onChange={(event) => void flip(event.currentTarget.checked)}
      />
      {/* The name stays "Enabled …" and the state is the switch's own ("on", "off"). */}
      <label htmlFor={id}>
        {t("admin-ops.webhooks.enabled")}
        <span className="visually-hidden"> {endpoint.url}</span>
      </label>
      {error ? (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

function NewEndpoint() {
  const [created, setCreated] = useState<WebhookCreated | null>(null);
  const open = (endpoint: WebhookEndpoint): void => {
    const to = endpointScreen(endpoint.id);
    carryNotice(to, t("admin-ops.webhooks.created"));
    navigate(to);
  };
  return (
    <>
      <EndpointForm
        label={t("admin-ops.webhooks.new")}
        submitLabel={t("admin-ops.webhooks.create")}
        onSubmit={async (values) => {
          setCreated(await createEndpoint(values));
          return null;
        }}
      />
      {created ? (
        <SecretShownOnce
          title={t("admin-ops.webhooks.createdSecret")}
          secret={created.secret} onClose={() => open(created)} />
      ) : null}
    </>
  );
}

export function WebhookScreen({ params }: { params: Record<string, string> }) {
  return (
    <DetailScreen<WebhookEndpoint>
      apiPath={endpointPath(params.id ?? "")}
      title={endpointTitle}
      fallbackTitle={t("admin-ops.webhooks.endpoint")}
      back={{ to: WEBHOOKS_SCREEN, label: t("admin-ops.webhooks.all") }}
    >
      {(endpoint, reload) => <EndpointDetail endpoint={endpoint} onChange={reload} />}
    </DetailScreen>
  );
}

function EndpointDetail({ endpoint, onChange }: { endpoint: WebhookEndpoint; onChange: () => void }) {
  const canWrite = hasScope(WEBHOOKS_WRITE);
  return (
    <>
      <Facts
        rows={[
          [t("admin-ops.webhooks.url"), <code>{endpoint.url}</code>],
          [t("admin-ops.webhooks.description"), endpoint.description || "—"],
          [t("admin-ops.webhooks.status"), <EnabledTag enabled={endpoint.enabled} />],
          // A writer sees them in the settings form.
          !canWrite && [
            t("admin-ops.webhooks.eventTypes"),
            <ul className="plain-list">
              {endpoint.eventTypes.map((type) => (
                <li key={type}>
                  <code>{type}</code>
                </li>
              ))}
            </ul>,
          ],
          [t("admin-ops.webhooks.createdAt"), formatTime(endpoint.createdAt)],
          [t("admin-ops.webhooks.changedAt"), formatTime(endpoint.updatedAt)],
          [t("admin-ops.webhooks.id"), <code>{endpoint.id}</code>],
        ]}
      />
      {canWrite ? (
        <Panel title={t("admin-ops.webhooks.settings")} id="webhook-settings">
          <EndpointForm
            endpoint={endpoint}
            label={t("admin-ops.webhooks.settings.form")}
            submitLabel={t("admin-ops.webhooks.save")}
            onSubmit={async (values) => {
              const body = changesOf(endpoint, values);
              if (Object.keys(body).length === 0) return t("admin-ops.webhooks.nothingChanged");
              await updateEndpoint(endpoint.id, body);
              onChange();
              return t("admin-ops.webhooks.saved");
            }}
          />
        </Panel>
      ) : null}
      {canWrite ? <RotateSecret endpoint={endpoint} /> : null}
      <Panel title={t("admin-ops.webhooks.deliveries")} id="webhook-deliveries">
        <p className="hint">
          {t("admin-ops.webhooks.deliveries.hint")}
        </p>
        <Deliveries endpointId={endpoint.id} canWrite={canWrite} />
      </Panel>
      {canWrite ? (
        <DeletePanel
          id="delete-endpoint"
          title={t("admin-ops.webhooks.delete")}
          question={t("admin-ops.webhooks.delete.question", { url: endpoint.url })}
          deleted={t("admin-ops.webhooks.deleted", { url: endpoint.url })}
          apiPath={endpointPath(endpoint.id)}
          listPath={WEBHOOKS_SCREEN}
          warning={t("admin-ops.webhooks.delete.warning")}
          consequence={t("admin-ops.webhooks.delete.consequence")}
        />
      ) : null}
    </>
  );
}

function RotateSecret({ endpoint }: { endpoint: WebhookEndpoint }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  return (
    <Panel title={t("admin-ops.webhooks.secret")} id="webhook-secret">
      {done ? <Notice>{t("admin-ops.webhooks.secret.replaced")}</Notice> : null}
      <p>
        {t("admin-ops.webhooks.secret.about")}
      </p>
      <ConfirmButton
        label={t("admin-ops.webhooks.rotate")}
        title={t("admin-ops.webhooks.rotate.question")}
        confirmLabel={t("admin-ops.webhooks.rotate.confirm")}
        onConfirm={async () => {
          setDone(false);
          setSecret((await rotateSecret(endpoint.id)).secret);
        }}
      >
        <p>{t("admin-ops.webhooks.rotate.consequence")}</p>
      </ConfirmButton>
      {secret ? (
        <SecretShownOnce
          title={t("admin-ops.webhooks.rotated")}
          secret={secret}
          onClose={() => {
            setSecret(null);
            setDone(true);
          }}
        />
      ) : null}
    </Panel>
  );
}
