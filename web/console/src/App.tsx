import { useEffect, useState } from "react";
import { I18nProvider } from "react-aria-components";
import { t, useLocale } from "./i18n";
import { applySavedLocale } from "./i18n/preference";
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
        async (returnTo) => {
          // The saved language first (briefly), so the shell does not flash another one.
          await applySavedLocale();
          navigate(returnTo, { replace: true });
          setPhase({ kind: "ready" });
        },
        (error: unknown) =>
          setPhase({
            kind: "failed",
            message: error instanceof SignInFailed ? error.message : t("shell.signIn.notCompleted"),
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
        <Screen title={t("shell.notAvailable.title")}>
          <p>{t("shell.notAvailable.text")}</p>
          <p>
            <Link to="/console/">{t("shell.goToProfile")}</Link>
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
    <Screen title={t("shell.notFound.title")}>
      <p>
        {t("shell.notFound.text")} <Link to="/console/">{t("shell.goToProfile")}</Link>
      </p>
    </Screen>
  );
}

/** The whole console in the current language: React Aria's components (and their reading
 * direction) follow it, and the screens remount on a change so every text is read again. */
export function App() {
  const locale = useLocale();
  return (
    <I18nProvider locale={locale}>
      <Console locale={locale} />
    </I18nProvider>
  );
}

function Console({ locale }: { locale: string }) {
  const phase = useSignIn();
  if (phase.kind === "failed" || phase.kind === "signed-out") {
    return (
      <main className="standalone" id="content">
        <Screen title={phase.kind === "failed" ? t("shell.signIn.failed") : t("shell.signedOut")}>
          {phase.kind === "failed" ? <p role="alert">{phase.message}</p> : null}
          <button type="button" className="button primary" onClick={() => void beginSignIn("/console/")}>
            {t("shell.signIn.button")}
          </button>
        </Screen>
      </main>
    );
  }
  // Still on the callback while the saved language loads (a change of language re-renders).
  if (phase.kind === "starting" && (!signedIn() || window.location.pathname === "/console/callback")) {
    return (
      <main className="standalone" id="content">
        <p className="loading" role="status">
          {t("common.signingIn")}
        </p>
      </main>
    );
  }
  return (
    <Shell>
      <Routed key={locale} />
    </Shell>
  );
}
