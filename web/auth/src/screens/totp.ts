/**
 * Step "totp": the 6-digit one-time code from the person's authenticator app; for a person
 * who also has passkeys (the challenge says `passkey`), "Use a passkey instead".
 */
import { ApiError, totp } from "../api";
import { Field, Form, button, h, screen, showScreen, statusLine, whenLeft } from "../dom";
import { t } from "../i18n";
import { genericMessage } from "../messages";
import { cancelCeremony } from "../passkey";
import { clientLine } from "./client";
import { signInWithPasskey } from "./passkey";
import type { StepContext } from "./step";

/** Digits of a one-time code (RFC 6238 as the provider issues them). */
const DIGITS = 6;

export function showTotp(flow: StepContext): void {
  screen(() => renderTotp(flow));
}

function renderTotp(flow: StepContext): void {
  whenLeft(cancelCeremony);
  const code = new Field({
    name: "code",
    label: t("totp.label"),
    inputmode: "numeric",
    autocomplete: "one-time-code",
    hint: t("totp.hint", { digits: DIGITS }),
    spellcheck: false,
  });
  code.input.setAttribute("pattern", "[0-9]*");

  const form = new Form([code], [button(t("totp.submit"))], async (form) => {
    form.clearErrors();
    const value = code.value.replace(/\s+/g, "");
    if (!/^\d{6}$/.test(value)) {
      form.showFieldErrors([{ field: "code", message: t("totp.format", { digits: DIGITS }) }]);
      return false;
    }
    try {
      return await flow.advance(await totp(flow.challenge.id, value));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        code.input.value = "";
        form.showError(t("totp.wrong"), [code.input]);
      } else if (error instanceof ApiError && error.problem.code === "auth.totp_unavailable") {
        form.showError(genericMessage(error));
      } else {
        flow.fail(error, form);
      }
      return false;
    }
  });

  let passkeyChoice: HTMLDivElement | null = null;
  if (flow.offersPasskey) {
    const status = statusLine();
    const passkeyButton = h("button", { type: "button", class: "secondary-button" }, t("totp.usePasskey"));
    form.alsoDisable(passkeyButton);
    passkeyButton.addEventListener("click", () => {
      void form.run(() => signInWithPasskey(flow, form, status, "second"));
    });
    passkeyChoice = h("div", { class: "alternative" }, h("p", { class: "divider" }, t("login.or")), passkeyButton, status);
  }

  showScreen("totp", t("totp.title"), clientLine(flow.challenge), form.element, passkeyChoice);
}
