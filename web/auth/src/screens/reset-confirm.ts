/** `/auth/reset?token=…`: choose a new password with the link from the reset mail. */
import { ApiError, confirmPasswordReset } from "../api";
import { Field, Form, button, h, screen, showScreen } from "../dom";
import { t } from "../i18n";
import { genericMessage, passwordProblem } from "../messages";

/** The password policy (docs/design.md §2 "Sign-in"); the API also refuses common passwords. */
const MIN_LENGTH = 8;
const MAX_LENGTH = 128;

function expiredLink(): HTMLParagraphElement[] {
  return [
    h("p", {}, t("resetConfirm.expired")),
    h("p", {}, h("a", { href: `${import.meta.env.BASE_URL}reset` }, t("resetConfirm.askAgain"))),
  ];
}

export function showResetConfirm(token: string): void {
  screen(() => renderResetConfirm(token));
}

function showPasswordChanged(): void {
  screen(() =>
    showScreen("reset-done", t("resetConfirm.doneTitle"), h("p", { class: "notice" }, t("resetConfirm.done"))),
  );
}

function renderResetConfirm(token: string): void {
  const password = new Field({
    name: "password",
    label: t("resetConfirm.new"),
    type: "password",
    autocomplete: "new-password",
    hint: t("resetConfirm.hint", { min: MIN_LENGTH, max: MAX_LENGTH }),
  });
  const confirmation = new Field({
    name: "confirmation",
    label: t("resetConfirm.confirm"),
    type: "password",
    autocomplete: "new-password",
  });

  const form = new Form([password, confirmation], [button(t("resetConfirm.submit"))], async (form) => {
    form.clearErrors();
    const value = password.value;
    const length = [...value].length; // code points, as the API counts them
    const problems = [];
    if (length < MIN_LENGTH) {
      problems.push({ field: "password", message: t("resetConfirm.tooShort", { min: MIN_LENGTH }) });
    } else if (length > MAX_LENGTH) {
      problems.push({ field: "password", message: t("resetConfirm.tooLong", { max: MAX_LENGTH }) });
    }
    if (confirmation.value !== value) {
      problems.push({ field: "confirmation", message: t("resetConfirm.mismatch") });
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
        const code = error.problem.code;
        form.showFieldErrors(errors.map((e) => ({ field: e.field, message: passwordProblem(code, e.message) })));
      } else if (error instanceof ApiError && error.status === 400) {
        form.showError(expiredLink());
      } else {
        form.showError(genericMessage(error));
      }
      return false;
    }
    showPasswordChanged();
    return false;
  });

  showScreen("reset-confirm", t("resetConfirm.title"), form.element);
}
