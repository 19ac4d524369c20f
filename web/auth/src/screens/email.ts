import { Field } from "../dom";
import type { SignInFlow } from "../signin";

/** The account's email, pre-filled from what was typed or the login hint (password and face steps). */
export function emailField(flow: SignInFlow): Field {
  return new Field({
    name: "email",
    label: "Email",
    type: "email",
    autocomplete: "username",
    inputmode: "email",
    spellcheck: false,
    value: flow.emailHint,
  });
}
