/**
 * Webhooks (`/admin/webhooks`, issue #27): the endpoints with their enabled switch, a
 * creation form (the signing secret is shown once, then the endpoint's screen opens), and
 * an endpoint's screen: its settings, secret rotation (shown once again), the delivery log
 * with "Send again", deletion. Without `idp:webhooks:write` every screen is read-only.
 */
import { useId, useState } from "react";
import { describeError } from "../../api/client";
import { hasScope } from "../../auth/session";
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
      title="Webhooks"
      intro="Endpoints that receive a signed POST for each event they chose: people, sign-ins, sessions, consent and clients."
      apiPath={WEBHOOKS_API}
      caption="Webhook endpoints"
      rowKey={(endpoint) => endpoint.id}
      empty="No webhook endpoints yet."
      columns={[
        nameColumn("URL", (endpoint) => endpointScreen(endpoint.id), (endpoint) => endpoint.url),
        { header: "Description", cell: (endpoint) => endpoint.description || "—" },
        {
          header: "Event types",
          cell: (endpoint) => (
            <span title={endpoint.eventTypes.join(", ")}>
              {endpoint.eventTypes.length === 1 ? "1 type" : `${endpoint.eventTypes.length} types`}
            </span>
          ),
        },
        {
          header: "Enabled",
          cell: (endpoint) =>
            canWrite ? <EnabledSwitch endpoint={endpoint} /> : <EnabledTag enabled={endpoint.enabled} />,
        },
      ]}
      create={{ title: "New endpoint", writeScope: WEBHOOKS_WRITE, form: <NewEndpoint /> }}
    />
  );
}

function EnabledTag({ enabled }: { enabled: boolean }) {
  return enabled ? <span className="tag ok">Enabled</span> : <span className="tag">Disabled</span>;
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
        Enabled<span className="visually-hidden"> {endpoint.url}</span>
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
    carryNotice(to, "Endpoint created.");
    navigate(to);
  };
  return (
    <>
      <EndpointForm
        label="New endpoint"
        submitLabel="Create endpoint"
        onSubmit={async (values) => {
          setCreated(await createEndpoint(values));
          return null;
        }}
      />
      {created ? (
        <SecretShownOnce title="Endpoint created: its signing secret" secret={created.secret} onClose={() => open(created)} />
      ) : null}
    </>
  );
}

export function WebhookScreen({ params }: { params: Record<string, string> }) {
  return (
    <DetailScreen<WebhookEndpoint>
      apiPath={endpointPath(params.id ?? "")}
      title={endpointTitle}
      fallbackTitle="Webhook endpoint"
      back={{ to: WEBHOOKS_SCREEN, label: "All webhooks" }}
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
          ["URL", <code>{endpoint.url}</code>],
          ["Description", endpoint.description || "—"],
          ["Status", <EnabledTag enabled={endpoint.enabled} />],
          // A writer sees them in the settings form.
          !canWrite && [
            "Event types",
            <ul className="plain-list">
              {endpoint.eventTypes.map((type) => (
                <li key={type}>
                  <code>{type}</code>
                </li>
              ))}
            </ul>,
          ],
          ["Created", formatTime(endpoint.createdAt)],
          ["Changed", formatTime(endpoint.updatedAt)],
          ["Endpoint id", <code>{endpoint.id}</code>],
        ]}
      />
      {canWrite ? (
        <Panel title="Settings" id="webhook-settings">
          <EndpointForm
            endpoint={endpoint}
            label="Endpoint settings"
            submitLabel="Save endpoint"
            onSubmit={async (values) => {
              const body = changesOf(endpoint, values);
              if (Object.keys(body).length === 0) return "Nothing changed.";
              await updateEndpoint(endpoint.id, body);
              onChange();
              return "Saved.";
            }}
          />
        </Panel>
      ) : null}
      {canWrite ? <RotateSecret endpoint={endpoint} /> : null}
      <Panel title="Deliveries" id="webhook-deliveries">
        <p className="hint">
          Each event sent to this endpoint, retried with growing pauses until it succeeds or the retry time runs out.
        </p>
        <Deliveries endpointId={endpoint.id} canWrite={canWrite} />
      </Panel>
      {canWrite ? (
        <DeletePanel
          noun="endpoint"
          name={endpoint.url}
          apiPath={endpointPath(endpoint.id)}
          listPath={WEBHOOKS_SCREEN}
          warning="Its delivery log goes with it; deliveries still queued are not sent."
          consequence="The receiver gets no more events. This cannot be undone."
        />
      ) : null}
    </>
  );
}

function RotateSecret({ endpoint }: { endpoint: WebhookEndpoint }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  return (
    <Panel title="Signing secret" id="webhook-secret">
      {done ? <Notice>The secret was replaced; requests are now signed with the new one.</Notice> : null}
      <p>
        Every request carries a <code>webhook-signature</code> made with this secret. It was shown once, when the
        endpoint was created; rotating it makes a new one, and the old one stops being used at once.
      </p>
      <ConfirmButton
        label="Rotate secret"
        title="Rotate the signing secret?"
        confirmLabel="Rotate"
        onConfirm={async () => {
          setDone(false);
          setSecret((await rotateSecret(endpoint.id)).secret);
        }}
      >
        <p>The receiver must be given the new secret; until then it will refuse the requests as unsigned.</p>
      </ConfirmButton>
      {secret ? (
        <SecretShownOnce
          title="The new signing secret"
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
