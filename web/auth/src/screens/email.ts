import { Field } from "../dom";
import type { StepContext } from "./step";

/** The account's email, pre-filled from what was typed or the login hint (password and face steps). */
export function emailField(flow: StepContext): Field {
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
