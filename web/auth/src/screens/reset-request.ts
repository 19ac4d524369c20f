/** `/auth/reset`: ask for a reset link. The answer never says whether the address exists. */
import { ApiError, requestPasswordReset } from "../api";
import { Field, Form, button, h, screen, showScreen } from "../dom";
import { t } from "../i18n";
import { genericMessage } from "../messages";

/** How long a reset link works (docs/design.md §2 "Sign-in"). */
const LINK_MINUTES = 30;

export function showResetRequest(): void {
  screen(renderResetRequest);
}

function showResetSent(): void {
  screen(() =>
    showScreen(
      "reset-sent",
      t("reset.sentTitle"),
      h("p", { class: "notice" }, t("reset.sent")),
      h("p", {}, t("reset.sentHint", { minutes: LINK_MINUTES })),
    ),
  );
}

function renderResetRequest(): void {
  const email = new Field({
    name: "email",
    label: t("field.email"),
    type: "email",
    autocomplete: "email",
    inputmode: "email",
    spellcheck: false,
  });

  const form = new Form([email], [button(t("reset.submit"))], async (form) => {
    form.clearErrors();
    const address = email.value.trim();
    if (!address.includes("@")) {
      const message = address === "" ? t("field.email.missing") : t("field.email.invalid");
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
    showResetSent();
    return false;
  });

  showScreen("reset-request", t("reset.title"), h("p", {}, t("reset.intro")), form.element);
}
