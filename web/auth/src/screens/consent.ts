/** Step "consent": what the application asks for, and Allow / Deny. */
import { consent } from "../api";
import { Form, button, h, showScreen } from "../dom";
import { clientName } from "./client";
import type { StepContext } from "./step";

export function showConsent(flow: StepContext): void {
  const name = clientName(flow.challenge);
  const decide = (approve: boolean) => async (): Promise<boolean> => {
    form.clearErrors();
    try {
      return await flow.advance(await consent(flow.challenge.id, approve));
    } catch (error) {
      flow.fail(error, form);
      return false;
    }
  };

  const deny = button("Deny", { type: "button", class: "secondary-button" });
  const actions = h("div", { class: "actions" }, button("Allow"), deny);
  const form: Form = new Form([], [actions], (): Promise<boolean> => decide(true)());
  deny.addEventListener("click", () => void form.run(decide(false)));

  const listId = "consent-scopes";
  showScreen(
    "consent",
    `Allow ${name} to access your account?`,
    h("p", { id: `${listId}-intro` }, h("strong", {}, name), " is asking to:"),
    h(
      "ul",
      { id: listId, class: "scopes", "aria-labelledby": `${listId}-intro` },
      ...flow.challenge.scopes.map((scope) => h("li", {}, scope.description || scope.value)),
    ),
    h("p", { class: "hint" }, "You can withdraw this access later from your account."),
    form.element,
  );
}
