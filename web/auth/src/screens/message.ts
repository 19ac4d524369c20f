/** Screens that only say something: signed out, errors, done. */
import { h, showScreen } from "../dom";

export type ErrorKind = "missing" | "expired" | "network" | "unexpected" | "not-found";

const ERRORS: Record<ErrorKind, { title: string; text: string }> = {
  missing: {
    title: "Start from your application",
    text: "This page is opened by an application that asks you to sign in. Go back to the application and start signing in from there.",
  },
  expired: {
    title: "This sign-in request has expired",
    text: "Sign-in requests are only valid for a few minutes, or this one was already used. Go back to the application and start signing in again.",
  },
  network: {
    title: "We could not reach the server",
    text: "Check your connection, then try again.",
  },
  unexpected: {
    title: "Something went wrong",
    text: "Go back to the application and start signing in again. If it keeps happening, contact your administrator.",
  },
  "not-found": {
    title: "Page not found",
    text: "There is nothing at this address. Go back to the application and start signing in from there.",
  },
};

/** A clear error page; the network error offers to reload. */
export function showErrorPage(kind: ErrorKind): void {
  const { title, text } = ERRORS[kind];
  let retry: HTMLButtonElement | null = null;
  if (kind === "network") {
    retry = h("button", { type: "button" }, "Try again");
    retry.addEventListener("click", () => window.location.reload());
  }
  showScreen(`error-${kind}`, title, h("p", { class: "notice notice-error" }, text), retry);
}

export function showLoggedOut(): void {
  showScreen(
    "logged-out",
    "You are signed out",
    h("p", {}, "You can close this window, or go back to an application to sign in again."),
  );
}

export function showDone(): void {
  showScreen(
    "done",
    "You are signed in",
    h("p", {}, "This sign-in request is complete. Go back to the application to continue."),
  );
}
