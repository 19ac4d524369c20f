/**
 * "Connected applications": the applications with access to the person's account
 * (`GET /entity/connections`): those they approved, and first-party ones holding a refresh
 * token of theirs, each with the scopes granted and what they allow. Withdrawing one
 * (`DELETE /entity/connections/{client_id}`) deletes the consent and revokes its refresh
 * tokens; its next sign-in asks again. This console is listed but not offered for
 * withdrawal (signing out is the way to end its access).
 */
import { useState } from "react";
import { type Page, del, get } from "../../api/client";
import { hasScope } from "../../auth/session";
import { useLocation } from "../../router";
import { Screen } from "../../ui/Screen";
import { ConfirmButton } from "../../ui/dialog";
import { Loaded, useLoad } from "../../ui/load";
import { Notice, UrlPager, formatTime } from "../../ui/table";
import type { Connection } from "./api";

const CONSOLE_CLIENT = "console";

function ConnectionCard({ connection, onWithdrawn }: { connection: Connection; onWithdrawn: () => void }) {
  const itself = connection.clientId === CONSOLE_CLIENT;
  return (
    <li className="panel connection">
      <h2>
        {connection.name || connection.clientId}
        {connection.firstParty ? (
          <>
            {" "}
            <span className="tag">first-party</span>
          </>
        ) : null}
      </h2>
      <dl className="facts">
        <dt>Application id</dt>
        <dd>
          <code>{connection.clientId}</code>
        </dd>
        <dt>{connection.firstParty ? "Access since" : "Approved"}</dt>
        <dd>{formatTime(connection.grantedAt)}</dd>
      </dl>
      <h3>What it can do</h3>
      {connection.scopes.length === 0 ? (
        <p className="empty">Sign you in only.</p>
      ) : (
        <ul className="scopes">
          {connection.scopes.map((scope) => (
            <li key={scope.value}>
              <span className="scope-description">{scope.description || scope.value}</span>{" "}
              <code className="muted">{scope.value}</code>
            </li>
          ))}
        </ul>
      )}
      {itself ? (
        <p className="hint">This is the console you are using. Sign out to end its access.</p>
      ) : hasScope("idp:connections:write") ? (
        <ConfirmButton
          label={
            <>
              Withdraw access<span className="visually-hidden"> of {connection.name || connection.clientId}</span>
            </>
          }
          title={`Withdraw the access of ${connection.name || connection.clientId}?`}
          confirmLabel="Withdraw access"
          onConfirm={async () => {
            await del(`/entity/connections/${encodeURIComponent(connection.clientId)}`);
            onWithdrawn();
          }}
        >
          <p>
            It can no longer renew its access to your account; what it holds now runs out within minutes. The next
            time you use it, it asks for your approval again.
          </p>
        </ConfirmButton>
      ) : null}
    </li>
  );
}

export function ConnectionsScreen(_props: { params: Record<string, string> }) {
  const cursor = useLocation().query.get("cursor");
  const [notice, setNotice] = useState<string | null>(null);
  const { state, reload } = useLoad(
    (signal) => get<Page<Connection>>("/entity/connections", { limit: 20, cursor }, signal),
    [cursor],
  );
  return (
    <Screen
      title="Connected applications"
      intro="Applications that can use your account, and what each may do."
    >
      {notice ? <Notice>{notice}</Notice> : null}
      <Loaded state={state} reload={reload} label="Loading your applications…">
        {(page) => (
          <>
            {page.items.length === 0 ? (
              <p className="empty">No application has access to your account.</p>
            ) : (
              <ul className="cards" aria-label="Applications">
                {page.items.map((connection) => (
                  <ConnectionCard
                    key={connection.clientId}
                    connection={connection}
                    onWithdrawn={() => {
                      setNotice(`Access withdrawn from ${connection.name || connection.clientId}.`);
                      reload();
                    }}
                  />
                ))}
              </ul>
            )}
            <UrlPager nextCursor={page.nextCursor} />
          </>
        )}
      </Loaded>
    </Screen>
  );
}
