/**
 * Step "password": email (pre-filled from `loginHint`) and password. When the challenge
 * offers them, other ways in:
 * - "Sign in with a passkey" (screens/passkey.ts), and the same passkeys offered in the
 *   email field's autofill list (conditional mediation) from the moment the page loads;
 * - "Sign in with your face" (src/screens/face.ts); once the face step has answered 503,
 *   the choice is gone and a short note says why.
 */
import { browserSupportsWebAuthnAutofill } from "@simplewebauthn/browser";
import { ApiError, login } from "../api";
import { Field, Form, button, h, screen, showScreen, statusLine, whenLeft } from "../dom";
import { t } from "../i18n";
import { type Assertion, cancelCeremony, challengeExpired, getAssertion } from "../passkey";
import { clientLine } from "./client";
import { emailField } from "./email";
import { finishWithPasskey, reportPasskeyFailure, signInWithPasskey } from "./passkey";
import type { StepContext } from "./step";

export function showLogin(flow: StepContext): void {
  screen(() => renderLogin(flow));
}

function renderLogin(flow: StepContext): void {
  // A waiting autofill ceremony must not outlive the screen (a redraw in another language).
  whenLeft(cancelCeremony);
  const email = emailField(flow, { webauthn: flow.offersPasskey });
  const password = new Field({
    name: "password",
    label: t("field.password"),
    type: "password",
    autocomplete: "current-password",
  });

  const form = new Form([email, password], [button(t("login.submit"))], async (form) => {
    form.clearErrors();
    const address = email.value.trim();
    const missing = [];
    if (address === "") {
      missing.push({ field: "email", message: t("field.email.missing") });
    } else if (!address.includes("@")) {
      missing.push({ field: "email", message: t("field.email.invalid") });
    }
    if (password.value === "") {
      missing.push({ field: "password", message: t("field.password.missing") });
    }
    if (form.showFieldErrors(missing)) {
      return false;
    }
    try {
      return await flow.advance(await login(flow.challenge.id, address, password.value));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        // One message whatever the cause: the page never tells which part was wrong.
        password.input.value = "";
        form.showError(t("login.wrongCredentials"), [email.input, password.input]);
      } else {
        flow.fail(error, form);
      }
      return false;
    }
  });

  const others: HTMLElement[] = [];
  if (flow.offersPasskey) {
    others.push(...passkeyChoice(flow, form));
  }
  if (flow.offersFace) {
    const faceButton = h("button", { type: "button", class: "secondary-button" }, t("login.withFace"));
    faceButton.addEventListener("click", () => {
      flow.email = email.value.trim();
      flow.chooseFace();
    });
    others.push(faceButton);
  }
  const choices = others.length > 0 && h("div", { class: "alternative" }, h("p", { class: "divider" }, t("login.or")), ...others);

  showScreen(
    "login",
    t("login.title"),
    clientLine(flow.challenge),
    flow.challenge.face && flow.faceUnavailable && h("p", { class: "notice", role: "status" }, t("login.faceUnavailable")),
    form.element,
    choices,
    h("p", { class: "secondary" }, h("a", { href: `${import.meta.env.BASE_URL}reset` }, t("login.forgot"))),
  );
}

/**
 * "Sign in with a passkey" and its status line, and the autofill ceremony that waits for
 * the person to pick a passkey in the email field's list. The button takes over from a
 * waiting autofill (the library aborts it); once a button attempt failed, autofill starts
 * again. An autofill answer refused because its challenge expired (it can wait for
 * minutes) quietly starts a fresh one, once.
 */
function passkeyChoice(flow: StepContext, form: Form): HTMLElement[] {
  const status = statusLine();
  const passkeyButton = h("button", { type: "button", class: "secondary-button" }, t("login.withPasskey"));
  form.alsoDisable(passkeyButton);
  /** Bumped by each button press: an autofill ceremony started before it steps aside. */
  let generation = 0;
  const onScreen = (): boolean => passkeyButton.isConnected;

  async function autofill(quietRetry: boolean): Promise<void> {
    const mine = generation;
    const wanted = (): boolean => mine === generation && onScreen();
    if (!(await browserSupportsWebAuthnAutofill().catch(() => false)) || !wanted()) {
      return;
    }
    let assertion: Assertion;
    try {
      assertion = await getAssertion(flow.challenge.id, { autofill: true, stillWanted: wanted });
    } catch {
      // Superseded by the button or another screen, or not possible here: the button
      // still offers the passkey, so there is nothing to say.
      return;
    }
    if (!wanted()) {
      return;
    }
    let again = false;
    await form.run(async () => {
      form.clearErrors();
      try {
        return await finishWithPasskey(flow, assertion, status);
      } catch (error) {
        if (quietRetry && challengeExpired(error, assertion)) {
          status.textContent = "";
          again = true;
        } else {
          reportPasskeyFailure(flow, form, status, error, "first");
        }
        return false;
      }
    });
    if (again && onScreen()) {
      void autofill(false);
    }
  }

  passkeyButton.addEventListener("click", () => {
    generation += 1;
    void form.run(async () => {
      const leaving = await signInWithPasskey(flow, form, status, "first");
      if (!leaving && onScreen()) {
        void autofill(true);
      }
      return leaving;
    });
  });

  // Offered as the page loads, after the screen is in place (the library looks for the
  // field whose autocomplete ends in "webauthn").
  queueMicrotask(() => void autofill(true));
  return [passkeyButton, status];
}
