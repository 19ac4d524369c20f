/** `/auth/reset?token=…`: choose a new password with the link from the reset mail. */
import { ApiError, confirmPasswordReset } from "../api";
import { Field, Form, button, h, showScreen } from "../dom";
import { genericMessage } from "../messages";

/** The password policy (DESIGN.md §2 "Sign-in"); the API also refuses common passwords. */
const MIN_LENGTH = 8;
const MAX_LENGTH = 128;

export const PASSWORD_CHANGED = "Password changed — sign in again from your application.";

function expiredLink(): HTMLParagraphElement[] {
  return [
    h("p", {}, "This link has expired or was already used."),
    h("p", {}, h("a", { href: `${import.meta.env.BASE_URL}reset` }, "Ask for a new link")),
  ];
}

export function showResetConfirm(token: string): void {
  const password = new Field({
    name: "password",
    label: "New password",
    type: "password",
    autocomplete: "new-password",
    hint: `${MIN_LENGTH} to ${MAX_LENGTH} characters. Very common passwords are refused.`,
  });
  const confirmation = new Field({
    name: "confirmation",
    label: "Confirm new password",
    type: "password",
    autocomplete: "new-password",
  });

  const form = new Form([password, confirmation], [button("Change password")], async (form) => {
    form.clearErrors();
    const value = password.value;
    const length = [...value].length; // code points, as the API counts them
    const problems = [];
    if (length < MIN_LENGTH) {
      problems.push({ field: "password", message: `Use at least ${MIN_LENGTH} characters` });
    } else if (length > MAX_LENGTH) {
      problems.push({ field: "password", message: `Use at most ${MAX_LENGTH} characters` });
    }
    if (confirmation.value !== value) {
      problems.push({ field: "confirmation", message: "The two passwords do not match" });
    }
    if (form.showFieldErrors(problems)) {
      return false;
    }
    try {
      await confirmPasswordReset(token, value);
    } catch (error) {
      const errors = error instanceof ApiError ? (error.problem.errors ?? []) : [];
      if (error instanceof ApiError && (error.status === 404 || error.status === 410 || errors.some((e) => e.field === "token"))) {
        form.showError(expiredLink());
      } else if (error instanceof ApiError && error.status === 422 && errors.length > 0) {
        form.showFieldErrors(errors);
      } else if (error instanceof ApiError && error.status === 400) {
        form.showError(expiredLink());
      } else {
        form.showError(genericMessage(error));
      }
      return false;
    }
    showScreen("reset-done", "Password changed", h("p", { class: "notice" }, PASSWORD_CHANGED));
    return false;
  });

  showScreen("reset-confirm", "Choose a new password", form.element);
}
