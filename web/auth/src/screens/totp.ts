/**
 * Step "totp": the 6-digit one-time code from the person's authenticator app; for a person
 * who also has passkeys (the challenge says `passkey`), "Use a passkey instead".
 */
import { ApiError, totp } from "../api";
import { Field, Form, button, h, showScreen, statusLine } from "../dom";
import { clientLine } from "./client";
import { signInWithPasskey } from "./passkey";
import type { StepContext } from "./step";

export function showTotp(flow: StepContext): void {
  const code = new Field({
    name: "code",
    label: "One-time code",
    inputmode: "numeric",
    autocomplete: "one-time-code",
    hint: "Open your authenticator app and enter the 6-digit code it shows.",
    spellcheck: false,
  });
  code.input.setAttribute("pattern", "[0-9]*");

  const form = new Form([code], [button("Verify")], async (form) => {
    form.clearErrors();
    const value = code.value.replace(/\s+/g, "");
    if (!/^\d{6}$/.test(value)) {
      form.showFieldErrors([{ field: "code", message: "Enter the 6-digit code" }]);
      return false;
    }
    try {
      return await flow.advance(await totp(flow.challenge.id, value));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        code.input.value = "";
        form.showError("That code is not correct. Check your authenticator app and try again.", [code.input]);
      } else {
        flow.fail(error, form);
      }
      return false;
    }
  });

  let passkeyChoice: HTMLDivElement | null = null;
  if (flow.offersPasskey) {
    const status = statusLine();
    const passkeyButton = h("button", { type: "button", class: "secondary-button" }, "Use a passkey instead");
    form.alsoDisable(passkeyButton);
    passkeyButton.addEventListener("click", () => {
      void form.run(() => signInWithPasskey(flow, form, status, "second"));
    });
    passkeyChoice = h("div", { class: "alternative" }, h("p", { class: "divider" }, "or"), passkeyButton, status);
  }

  showScreen("totp", "Enter your code", clientLine("to continue to", flow.challenge), form.element, passkeyChoice);
}
