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
import { t } from "../../i18n";
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
            <span className="tag">{t("account.connections.firstParty")}</span>
          </>
        ) : null}
      </h2>
      <dl className="facts">
        <dt>{t("account.connections.clientId")}</dt>
        <dd>
          <code>{connection.clientId}</code>
        </dd>
        <dt>{connection.firstParty ? t("account.connections.accessSince") : t("account.connections.approved")}</dt>
        <dd>{formatTime(connection.grantedAt)}</dd>
      </dl>
      <h3>{t("account.connections.canDo")}</h3>
      {connection.scopes.length === 0 ? (
        <p className="empty">{t("account.connections.signInOnly")}</p>
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
        <p className="hint">{t("account.connections.itself")}</p>
      ) : hasScope("idp:connections:write") ? (
        <ConfirmButton
          label={
            <>
              {t("account.connections.withdraw")}<span className="visually-hidden"> {t("account.connections.ofApp", { name: connection.name || connection.clientId })}</span>
            </>
          }
          title={t("account.connections.withdrawQuestion", { name: connection.name || connection.clientId })}
          confirmLabel={t("account.connections.withdraw")}
          onConfirm={async () => {
            await del(`/entity/connections/${encodeURIComponent(connection.clientId)}`);
            onWithdrawn();
          }}
        >
          <p>{t("account.connections.withdrawText")}</p>
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
      title={t("account.connections.title")}
      intro={t("account.connections.intro")}
    >
      {notice ? <Notice>{notice}</Notice> : null}
      <Loaded state={state} reload={reload} label={t("account.connections.loading")}>
        {(page) => (
          <>
            {page.items.length === 0 ? (
              <p className="empty">{t("account.connections.empty")}</p>
            ) : (
              <ul className="cards" aria-label={t("account.connections.listLabel")}>
                {page.items.map((connection) => (
                  <ConnectionCard
                    key={connection.clientId}
                    connection={connection}
                    onWithdrawn={() => {
                      setNotice(t("account.connections.withdrawn", { name: connection.name || connection.clientId }));
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
