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
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system;
}

/** The browser in a few words; the whole header behind a disclosure. */
function Agent({ agent }: { agent: string | null }) {
  if (!agent) return <>—</>;
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
  if (session.applications.length === 0) return <span className="muted">None yet</span>;
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
      header: "Started",
      rowHeader: true,
      cell: (s) => (
        <>
          {formatTime(s.createdAt)}
          {s.current ? (
            <>
              {" "}
              <span className="tag ok">This browser</span>
            </>
          ) : null}
        </>
      ),
    },
    { header: "Last seen", cell: (s) => formatTime(s.lastSeen) },
    { header: "IP address", cell: (s) => s.ip ?? "—" },
    { header: "Browser", cell: (s) => <Agent agent={s.userAgent} /> },
    { header: "Applications reached", cell: (s) => <Applications session={s} /> },
  ];
  if (canWrite) {
    columns.push({
      header: "Actions",
      cell: (s) =>
        s.current ? (
          <button type="button" className="button" onClick={signOut}>
            Sign out<span className="visually-hidden"> of this browser</span>
          </button>
        ) : (
          <ConfirmButton
            label={
              <>
                End session<span className="visually-hidden"> started {formatTime(s.createdAt)}</span>
              </>
            }
            title="End this session?"
            confirmLabel="End session"
            onConfirm={async () => {
              await del(`/entity/sessions/${encodeURIComponent(s.id)}`);
              setNotice("Session ended. That browser is signed out, and so are the applications reached in it.");
              reload();
            }}
          >
            <p>
              The browser that started it on {formatTime(s.createdAt)}
              {s.ip ? ` from ${s.ip}` : ""} is signed out, and so is every application reached in it.
            </p>
          </ConfirmButton>
        ),
    });
  }
  return (
    <Screen
      title="Sessions"
      intro="Where you are signed in. End a session you do not recognise, then change your password."
    >
      {notice ? <Notice>{notice}</Notice> : null}
      <Loaded state={state} reload={reload} label="Loading your sessions…">
        {(page) => (
          <>
            <DataTable
              caption="Your sessions"
              columns={columns}
              rows={page.items}
              rowKey={(s) => s.id}
              empty="No session is open."
            />
            <UrlPager nextCursor={page.nextCursor} />
          </>
        )}
      </Loaded>
    </Screen>
  );
}
