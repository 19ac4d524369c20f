/** Step "password": email (pre-filled from `loginHint`) and password. */
import { ApiError, login } from "../api";
import { Field, Form, button, h, showScreen } from "../dom";
import { WRONG_CREDENTIALS } from "../messages";
import type { SignInFlow } from "../signin";
import { clientLine } from "./client";

export function showLogin(flow: SignInFlow): void {
  const email = new Field({
    name: "email",
    label: "Email",
    type: "email",
    autocomplete: "username",
    inputmode: "email",
    spellcheck: false,
    value: flow.challenge.loginHint ?? "",
  });
  const password = new Field({
    name: "password",
    label: "Password",
    type: "password",
    autocomplete: "current-password",
  });

  const form = new Form([email, password], [button("Sign in")], async (form) => {
    form.clearErrors();
    const address = email.value.trim();
    const missing = [];
    if (address === "") {
      missing.push({ field: "email", message: "Enter your email address" });
    } else if (!address.includes("@")) {
      missing.push({ field: "email", message: "Enter an email address like name@example.com" });
    }
    if (password.value === "") {
      missing.push({ field: "password", message: "Enter your password" });
    }
    if (form.showFieldErrors(missing)) {
      return false;
    }
    try {
      return await flow.advance(await login(flow.challenge.id, address, password.value));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        // One message whatever the cause: the page never tells which part was wrong.
        password.input.value = "";
        form.showError(WRONG_CREDENTIALS, [email.input, password.input]);
      } else {
        flow.fail(error, form);
      }
      return false;
    }
  });

  showScreen(
    "login",
    "Sign in",
    clientLine("to continue to", flow.challenge),
    form.element,
    h("p", { class: "secondary" }, h("a", { href: `${import.meta.env.BASE_URL}reset` }, "Forgot your password?")),
  );
}
