/**
 * Hosted sign-in page (`/auth/login`, `/auth/`).
 *
 * For now the page only renders the form and reads the challenge. The sign-in issue
 * wires the form to `POST /api/v1/auth/login` and the later steps (TOTP, consent),
 * following the wire contract in DESIGN.md §2 "Sign-in API".
 */
import "./style.css";
import { readChallenge } from "./challenge";

function byId<T extends HTMLElement>(id: string, type: new () => T): T {
  const element = document.getElementById(id);
  if (!(element instanceof type)) {
    throw new Error(`missing element #${id}`);
  }
  return element;
}

const challenge = readChallenge(window.location.search);
const form = byId("login-form", HTMLFormElement);
const status = byId("status", HTMLParagraphElement);
const noChallenge = byId("no-challenge", HTMLParagraphElement);

noChallenge.hidden = challenge !== null;

form.addEventListener("submit", (event) => {
  event.preventDefault();
  if (!form.reportValidity()) {
    return;
  }
  // Not wired yet: the sign-in issue sends {challenge, email, password} to the API here.
  status.textContent =
    challenge === null
      ? "Start signing in from the application you want to use."
      : "Signing in is not available yet.";
});
