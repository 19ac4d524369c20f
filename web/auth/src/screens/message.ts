/** Screens that only say something: signed out, errors, done. */
import { h, screen, showScreen } from "../dom";
import { t } from "../i18n";

export type ErrorKind = "missing" | "expired" | "network" | "unexpected" | "not-found";

/** Each error page's title and text, in the current language. */
function errorTexts(kind: ErrorKind): { title: string; text: string } {
  switch (kind) {
    case "missing":
      return { title: t("error.missing.title"), text: t("error.missing.text") };
    case "expired":
      return { title: t("error.expired.title"), text: t("error.expired.text") };
    case "network":
      return { title: t("error.network.title"), text: t("error.network.text") };
    case "unexpected":
      return { title: t("error.unexpected.title"), text: t("error.unexpected.text") };
    case "not-found":
      return { title: t("error.notFound.title"), text: t("error.notFound.text") };
  }
}

/** A clear error page; the network error offers to reload. */
export function showErrorPage(kind: ErrorKind): void {
  screen(() => {
    const { title, text } = errorTexts(kind);
    let retry: HTMLButtonElement | null = null;
    if (kind === "network") {
      retry = h("button", { type: "button" }, t("error.retry"));
      retry.addEventListener("click", () => window.location.reload());
    }
    showScreen(`error-${kind}`, title, h("p", { class: "notice notice-error" }, text), retry);
  });
}

export function showLoggedOut(): void {
  screen(() => showScreen("logged-out", t("loggedOut.title"), h("p", {}, t("loggedOut.text"))));
}

export function showDone(): void {
  screen(() => showScreen("done", t("done.title"), h("p", {}, t("done.text"))));
}
