import { useEffect, useState } from "react";
import { Screen } from "./ui/Screen";
import { Notice } from "./ui/table";
import { SignInFailed, beginSignIn, completeSignIn, hasScope, signedIn, takeNotice } from "./auth/session";
import { ROUTES } from "./routes";
import { Link, match, navigate, useLocation } from "./router";
import { Shell } from "./Shell";

type Phase = { kind: "starting" } | { kind: "ready" } | { kind: "failed"; message: string } | { kind: "signed-out" };

/** Where a fresh page load starts: finish a callback, or sign in (silently when the provider's session is alive). */
let started = false;

function useSignIn(): Phase {
  const [phase, setPhase] = useState<Phase>({ kind: "starting" });
  useEffect(() => {
    // Once per page load (React's development mode runs effects twice).
    if (started) return;
    started = true;
    const { pathname, search } = window.location;
    if (pathname === "/console/callback") {
      completeSignIn(search).then(
        (returnTo) => {
          navigate(returnTo, { replace: true });
          setPhase({ kind: "ready" });
        },
        (error: unknown) =>
          setPhase({
            kind: "failed",
            message: error instanceof SignInFailed ? error.message : "The sign-in could not be completed.",
          }),
      );
    } else if (new URLSearchParams(search).get("state") === "signed-out") {
      window.history.replaceState(null, "", "/console/");
      setPhase({ kind: "signed-out" });
    } else if (!signedIn()) {
      void beginSignIn(pathname + search);
    }
  }, []);
  return phase;
}

function Routed() {
  const { path } = useLocation();
  // A notice left before a sign-in round trip shows on the screen the person came back to.
  const [notice] = useState(() => ({ text: takeNotice(), path }));
  for (const route of ROUTES) {
    const params = match(route.path, path);
    if (!params) continue;
    if (!hasScope(route.scope)) {
      return (
        <Screen title="Not available">
          <p>Your account does not have access to this page.</p>
          <p>
            <Link to="/console/">Go to your profile</Link>
          </p>
        </Screen>
      );
    }
    const View = route.screen;
    return (
      <>
        {notice.text && notice.path === path ? <Notice>{notice.text}</Notice> : null}
        <View key={path} params={params} />
      </>
    );
  }
  return (
    <Screen title="Page not found">
      <p>
        There is no page at this address. <Link to="/console/">Go to your profile</Link>.
      </p>
    </Screen>
  );
}

export function App() {
  const phase = useSignIn();
  if (phase.kind === "failed" || phase.kind === "signed-out") {
    return (
      <main className="standalone" id="content">
        <Screen title={phase.kind === "failed" ? "Sign-in failed" : "You are signed out"}>
          {phase.kind === "failed" ? <p role="alert">{phase.message}</p> : null}
          <button type="button" className="button primary" onClick={() => void beginSignIn("/console/")}>
            Sign in
          </button>
        </Screen>
      </main>
    );
  }
  if (phase.kind === "starting" && !signedIn()) {
    return (
      <main className="standalone" id="content">
        <p className="loading" role="status">
          Signing in…
        </p>
      </main>
    );
  }
  return (
    <Shell>
      <Routed />
    </Shell>
  );
}
