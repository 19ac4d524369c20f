/**
 * Step "password": email (pre-filled from `loginHint`) and password. When the challenge
 * offers it, a second way in: "Sign in with your face" (src/screens/face.ts); once the
 * face step has answered 503, the choice is gone and a short note says why.
 */
import { ApiError, login } from "../api";
import { Field, Form, button, h, showScreen } from "../dom";
import { FACE_UNAVAILABLE, WRONG_CREDENTIALS } from "../messages";
import { clientLine } from "./client";
import { emailField } from "./email";
import type { StepContext } from "./step";

export function showLogin(flow: StepContext): void {
  const email = emailField(flow);
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

  let faceChoice: HTMLDivElement | null = null;
  if (flow.offersFace) {
    const faceButton = h("button", { type: "button", class: "secondary-button" }, "Sign in with your face");
    faceButton.addEventListener("click", () => {
      flow.email = email.value.trim();
      flow.chooseFace();
    });
    faceChoice = h("div", { class: "alternative" }, h("p", { class: "divider" }, "or"), faceButton);
  }

  showScreen(
    "login",
    "Sign in",
    clientLine("to continue to", flow.challenge),
    flow.challenge.face && flow.faceUnavailable && h("p", { class: "notice", role: "status" }, FACE_UNAVAILABLE),
    form.element,
    faceChoice,
    h("p", { class: "secondary" }, h("a", { href: `${import.meta.env.BASE_URL}reset` }, "Forgot your password?")),
  );
}
