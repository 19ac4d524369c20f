/**
 * "Sessions": the person's browser sessions (`GET /entity/sessions`, newest first), each with
 * the applications reached in it. Ending one (`DELETE /entity/sessions/{id}`) signs that
 * browser out of the provider and of those applications (back-channel logout). The session
 * of this browser is marked and offers "Sign out" instead.
 */
import { useState } from "react";
import { type Page, del, get } from "../../api/client";
import { hasScope, signOut } from "../../auth/session";
import { useLocation } from "../../router";
import { t } from "../../i18n";
import { Screen } from "../../ui/Screen";
import { ConfirmButton } from "../../ui/dialog";
import { Loaded, useLoad } from "../../ui/load";
import { type Column, DataTable, Notice, UrlPager, formatTime } from "../../ui/table";
import type { SessionRead } from "./api";

const BROWSERS: [RegExp, string][] = [
  [/Edg(?:e|A|iOS)?\/(\d+)/, "Edge"],
  [/OPR\/(\d+)/, "Opera"],
  [/Firefox\/(\d+)/, "Firefox"],
  [/(?:Headless)?Chrom(?:e|ium)\/(\d+)/, "Chrome"],
  [/Version\/(\d+)[^ ]* (?:Mobile\/\S+ )?Safari\//, "Safari"],
];

const SYSTEMS: [RegExp, string][] = [
  [/Windows NT/, "Windows"],
  [/Android/, "Android"],
  [/iPhone|iPad|iPod/, "iOS"],
  [/Mac OS X/, "macOS"],
  [/CrOS/, "ChromeOS"],
  [/Linux/, "Linux"],
];

/** "Firefox 128 on Windows" from a User-Agent header, or null when it names neither. */
function describeAgent(agent: string): string | null {
  let browser: string | null = null;
  for (const [pattern, name] of BROWSERS) {
    const found = pattern.exec(agent);
    if (found) {
      browser = `${name} ${found[1] ?? ""}`.trim();
      break;
    }
  }
  const system = SYSTEMS.find(([pattern]) => pattern.test(agent))?.[1] ?? null;
  if (browser && system) return t("account.sessions.browserOn", { browser, system });
  return browser ?? system;
}

/** The browser in a few words; the whole header behind a disclosure. */
function Agent({ agent }: { agent: string | null }) {
  if (!agent) return <>{t("common.none")}</>;
  const short = describeAgent(agent);
  if (!short) return <span className="user-agent">{agent}</span>;
  return (
    <details className="user-agent">
      <summary>{short}</summary>
      {agent}
    </details>
  );
}

function Applications({ session }: { session: SessionRead }) {
  if (session.applications.length === 0) return <span className="muted">{t("account.sessions.noApps")}</span>;
  return (
    <ul className="plain">
      {session.applications.map((app) => (
        <li key={app.clientId}>{app.name || app.clientId}</li>
      ))}
    </ul>
  );
}

export function SessionsScreen(_props: { params: Record<string, string> }) {
  const cursor = useLocation().query.get("cursor");
  const canWrite = hasScope("idp:sessions:write");
  const [notice, setNotice] = useState<string | null>(null);
  const { state, reload } = useLoad(
    (signal) => get<Page<SessionRead>>("/entity/sessions", { limit: 20, cursor }, signal),
    [cursor],
  );
  const columns: Column<SessionRead>[] = [
    {
      header: t("account.sessions.started"),
      rowHeader: true,
      cell: (s) => (
        <>
          {formatTime(s.createdAt)}
          {s.current ? (
            <>
              {" "}
              <span className="tag ok">{t("account.sessions.thisBrowser")}</span>
            </>
          ) : null}
        </>
      ),
    },
    { header: t("account.sessions.lastSeen"), cell: (s) => formatTime(s.lastSeen) },
    { header: t("account.sessions.ip"), cell: (s) => s.ip ?? t("common.none") },
    { header: t("account.sessions.browser"), cell: (s) => <Agent agent={s.userAgent} /> },
    { header: t("account.sessions.apps"), cell: (s) => <Applications session={s} /> },
  ];
  if (canWrite) {
    columns.push({
      header: t("account.actions"),
      cell: (s) =>
        s.current ? (
          <button type="button" className="button" onClick={signOut}>
            {t("shell.signOut")}<span className="visually-hidden"> {t("account.sessions.ofThisBrowser")}</span>
          </button>
        ) : (
          <ConfirmButton
            label={
              <>
                {t("account.sessions.end")}<span className="visually-hidden"> {t("account.sessions.startedAt", { time: formatTime(s.createdAt) })}</span>
              </>
            }
            title={t("account.sessions.endQuestion")}
            confirmLabel={t("account.sessions.end")}
            onConfirm={async () => {
              await del(`/entity/sessions/${encodeURIComponent(s.id)}`);
              setNotice(t("account.sessions.ended"));
              reload();
            }}
          >
            <p>
              {s.ip
                ? t("account.sessions.endTextFrom", { time: formatTime(s.createdAt), ip: s.ip })
                : t("account.sessions.endText", { time: formatTime(s.createdAt) })}
            </p>
          </ConfirmButton>
        ),
    });
  }
  return (
    <Screen
      title={t("account.sessions.title")}
      intro={t("account.sessions.intro")}
    >
      {notice ? <Notice>{notice}</Notice> : null}
      <Loaded state={state} reload={reload} label={t("account.sessions.loading")}>
        {(page) => (
          <>
            <DataTable
              caption={t("account.sessions.yours")}
              columns={columns}
              rows={page.items}
              rowKey={(s) => s.id}
              empty={t("account.sessions.empty")}
            />
            <UrlPager nextCursor={page.nextCursor} />
          </>
        )}
      </Loaded>
    </Screen>
  );
}
