/**
 * Passkeys on the sign-in page (src/passkey.ts does the ceremony):
 * - the step "passkey" ("Use your passkey"): the second step after the password, the
 *   person's own passkeys only;
 * - what the password step ("Sign in with a passkey", autofill) and the code step ("Use a
 *   passkey instead") share: run the ceremony inside their form, answer the API, and say
 *   what went wrong.
 */
import { ApiError, passkey } from "../api";
import { Form, button, h, screen, showScreen, statusLine, whenLeft } from "../dom";
import { t } from "../i18n";
import { type Assertion, cancelCeremony, ceremonyFailure, getAssertion } from "../passkey";
import { clientLine } from "./client";
import type { StepContext } from "./step";

/** Whether the passkey is the first way in (password step) or the second step. */
export type Factor = "first" | "second";

/** Sends the browser's answer; true when the browser is navigating away. */
export async function finishWithPasskey(flow: StepContext, assertion: Assertion, status: HTMLElement): Promise<boolean> {
  status.textContent = t("passkey.checking");
  const result = await passkey(flow.challenge.id, assertion.credential);
  status.textContent = "";
  return flow.advance(result);
}

/** Tells the person why the passkey did not sign them in. */
export function reportPasskeyFailure(
  flow: StepContext,
  form: Form,
  status: HTMLElement,
  error: unknown,
  factor: Factor,
): void {
  status.textContent = "";
  switch (ceremonyFailure(error)) {
    case "superseded":
      return;
    case "cancelled":
      status.textContent = t("passkey.cancelled");
      return;
    case "unavailable":
      form.showError(t("passkey.unavailable"));
      return;
    case null:
      break;
  }
  if (error instanceof ApiError && error.status === 401) {
    // One message whatever the cause (unknown passkey, another person's, expired...).
    form.showError(factor === "first" ? t("passkey.refused") : t("passkey.notAccepted"));
  } else {
    flow.fail(error, form);
  }
}

/**
 * The whole ceremony from a button, inside `form.run`: options, the browser's prompt, the
 * answer. True when the browser is navigating away.
 */
export async function signInWithPasskey(
  flow: StepContext,
  form: Form,
  status: HTMLElement,
  factor: Factor,
): Promise<boolean> {
  form.clearErrors();
  status.textContent = t("passkey.waiting");
  try {
    return await finishWithPasskey(flow, await getAssertion(flow.challenge.id), status);
  } catch (error) {
    reportPasskeyFailure(flow, form, status, error, factor);
    return false;
  }
}

/** Step "passkey": the second step, with one of the person's passkeys. */
export function showPasskey(flow: StepContext): void {
  screen(() => renderPasskey(flow));
}

function renderPasskey(flow: StepContext): void {
  whenLeft(cancelCeremony);
  const status = statusLine();
  const form: Form = new Form([], [button(t("passkey.submit")), status], (form) =>
    signInWithPasskey(flow, form, status, "second"),
  );
  showScreen(
    "passkey",
    t("passkey.title"),
    clientLine(flow.challenge),
    h("p", { class: "hint" }, t("passkey.hint")),
    form.element,
  );
}
