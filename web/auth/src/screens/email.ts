import { Field } from "../dom";
import { t } from "../i18n";
import type { StepContext } from "./step";

/**
 * The account's email, pre-filled from what was typed or the login hint (password and face
 * steps). With `webauthn`, the browser may offer passkeys in its autofill list
 * (conditional mediation; the token must come last).
 */
export function emailField(flow: StepContext, options: { webauthn?: boolean } = {}): Field {
  return new Field({
    name: "email",
    label: t("field.email"),
    type: "email",
    autocomplete: options.webauthn === true ? "username webauthn" : "username",
    inputmode: "email",
    spellcheck: false,
    value: flow.emailHint,
  });
}
