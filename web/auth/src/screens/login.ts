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
import { Field, Form, button, h, showScreen, statusLine } from "../dom";
import { FACE_UNAVAILABLE, WRONG_CREDENTIALS } from "../messages";
import { type Assertion, challengeExpired, getAssertion } from "../passkey";
import { clientLine } from "./client";
import { emailField } from "./email";
import { finishWithPasskey, reportPasskeyFailure, signInWithPasskey } from "./passkey";
import type { StepContext } from "./step";

export function showLogin(flow: StepContext): void {
  const email = emailField(flow, { webauthn: flow.offersPasskey });
  const password = new Field({
    name: "password",
    label: "Password",
    type: "password",
    autocomplete: "current-password",
  });

  const form = new Form([email, password], [button("Sign in")], async (form) => {
    form.clearErrors();
    const address = email.value.trim();
    const missing = [];
    if (address === "") {
      missing.push({ field: "email", message: "Enter your email address" });
    } else if (!address.includes("@")) {
      missing.push({ field: "email", message: "Enter an email address like name@example.com" });
    }
    if (password.value === "") {
      missing.push({ field: "password", message: "Enter your password" });
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
        form.showError(WRONG_CREDENTIALS, [email.input, password.input]);
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
    const faceButton = h("button", { type: "button", class: "secondary-button" }, "Sign in with your face");
    faceButton.addEventListener("click", () => {
      flow.email = email.value.trim();
      flow.chooseFace();
    });
    others.push(faceButton);
  }
  const choices = others.length > 0 && h("div", { class: "alternative" }, h("p", { class: "divider" }, "or"), ...others);

  showScreen(
    "login",
    "Sign in",
    clientLine("to continue to", flow.challenge),
    flow.challenge.face && flow.faceUnavailable && h("p", { class: "notice", role: "status" }, FACE_UNAVAILABLE),
    form.element,
    choices,
    h("p", { class: "secondary" }, h("a", { href: `${import.meta.env.BASE_URL}reset` }, "Forgot your password?")),
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
  const passkeyButton = h("button", { type: "button", class: "secondary-button" }, "Sign in with a passkey");
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
