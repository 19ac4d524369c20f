/** `/auth/reset`: ask for a reset link. The answer never says whether the address exists. */
import { ApiError, requestPasswordReset } from "../api";
import { Field, Form, button, h, showScreen } from "../dom";
import { genericMessage } from "../messages";

export const RESET_SENT = "If an account exists for that address, we sent a link.";

export function showResetRequest(): void {
  const email = new Field({
    name: "email",
    label: "Email",
    type: "email",
    autocomplete: "email",
    inputmode: "email",
    spellcheck: false,
  });

  const form = new Form([email], [button("Send link")], async (form) => {
    form.clearErrors();
    const address = email.value.trim();
    if (!address.includes("@")) {
      const message = address === "" ? "Enter your email address" : "Enter an email address like name@example.com";
      form.showFieldErrors([{ field: "email", message }]);
      return false;
    }
    try {
      await requestPasswordReset(address);
    } catch (error) {
      if (error instanceof ApiError && error.status === 422 && error.problem.errors?.length) {
        form.showFieldErrors(error.problem.errors);
      } else {
        form.showError(genericMessage(error));
      }
      return false;
    }
    showScreen(
      "reset-sent",
      "Check your email",
      h("p", { class: "notice" }, RESET_SENT),
      h("p", {}, "The link works once, for 30 minutes. If nothing arrives, check the address and ask again."),
    );
    return false;
  });

  showScreen(
    "reset-request",
    "Reset your password",
    h("p", {}, "Enter the email address of your account. We will send you a link to choose a new password."),
    form.element,
  );
}
