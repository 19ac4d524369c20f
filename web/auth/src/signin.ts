/**
 * The sign-in flow for one challenge (`/auth/login?challenge=<id>`, docs/design.md §2
 * "Sign-in"): read the challenge, show its next step, and after each step either follow
 * the API's `redirectTo` or show the step it names. The challenge id stays in memory.
 */
import { browserSupportsWebAuthn } from "@simplewebauthn/browser";
import { ApiError, NetworkError, getChallenge, type Challenge, type Step, type StepResult } from "./api";
import { showBrand, showProviderBrand } from "./chrome";
import type { Form } from "./dom";
import { adoptServerLocale } from "./i18n";
import { genericMessage } from "./messages";
import { showConsent } from "./screens/consent";
import { showLogin } from "./screens/login";
import { showFace } from "./screens/face";
import { showPasskey } from "./screens/passkey";
import { cancelCeremony, passkeysPossibleAt } from "./passkey";
import { showDone, showErrorPage } from "./screens/message";
import type { StepContext } from "./screens/step";
import { showTotp } from "./screens/totp";

/** Statuses that mean the challenge is unknown, expired or already used. */
const GONE = new Set([400, 404, 410]);

export class SignInFlow implements StepContext {
  /** The email typed on the password or face step, carried to the other one. */
  email: string | null = null;
  /** Set when the face step answered 503: the password step then hides the face option. */
  faceUnavailable = false;

  constructor(public challenge: Challenge) {}

  /** Whether the password step offers "Sign in with your face". */
  get offersFace(): boolean {
    return this.challenge.face && !this.faceUnavailable;
  }

  /** Whether this step offers a passkey: the challenge says so and the browser can, here. */
  get offersPasskey(): boolean {
    return this.challenge.passkey && browserSupportsWebAuthn() && passkeysPossibleAt(window.location.hostname);
  }

  /** The email to pre-fill: what the person typed, else the client's `login_hint`. */
  get emailHint(): string {
    return this.email ?? this.challenge.loginHint ?? "";
  }

  show(step: Step): void {
    // A passkey prompt or autofill offer of the screen being left must not outlive it.
    cancelCeremony();
    switch (step) {
      case "password":
        showLogin(this);
        break;
      case "totp":
        showTotp(this);
        break;
      case "face":
        showFace(this, { afterPassword: true });
        break;
      case "passkey":
        showPasskey(this);
        break;
      case "consent":
        showConsent(this);
        break;
      case "done":
        showDone();
        break;
    }
  }

  chooseFace(): void {
    cancelCeremony();
    showFace(this);
  }

  /**
   * Acts on a step's answer. Returns true when the browser is navigating away (the
   * caller's buttons then stay disabled).
   */
  async advance(result: StepResult): Promise<boolean> {
    if (result.redirectTo !== undefined) {
      return redirect(result.redirectTo);
    }
    if (result.next === "consent") {
      // The scopes to show are the challenge's current ones: read them again.
      this.challenge = await getChallenge(this.challenge.id);
    } else if (result.next === "totp") {
      // Whether the code step also offers a passkey depends on the person, known now.
      this.challenge = await this.challengeOrAsBefore();
    }
    // Now that the person is known, the server may answer their saved language.
    await adoptServerLocale(this.challenge.locale);
    this.show(result.next);
    return false;
  }

  /** The challenge read again; if that fails, the one held, without the passkey offer. */
  private async challengeOrAsBefore(): Promise<Challenge> {
    try {
      return await getChallenge(this.challenge.id);
    } catch {
      // The code step works without it; its own answer tells if the challenge is gone.
      return { ...this.challenge, passkey: false };
    }
  }

  /** Handles the errors every step shares: expired challenge, 422, 429, network. */
  fail(error: unknown, form: Form): void {
    if (error instanceof ApiError && GONE.has(error.status)) {
      showErrorPage("expired");
    } else if (error instanceof ApiError && error.status === 422 && error.problem.errors?.length) {
      form.showFieldErrors(error.problem.errors);
    } else {
      form.showError(genericMessage(error));
    }
  }
}

/** Goes to `target` (the authorization endpoint, or the client with an error). */
function redirect(target: string): boolean {
  let url: URL;
  try {
    url = new URL(target, window.location.href);
  } catch {
    showErrorPage("unexpected");
    return false;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    showErrorPage("unexpected");
    return false;
  }
  window.location.assign(url.href);
  return true;
}

export async function startSignIn(challengeId: string): Promise<void> {
  let challenge: Challenge;
  try {
    challenge = await getChallenge(challengeId);
  } catch (error) {
    void showProviderBrand();
    if (error instanceof ApiError && GONE.has(error.status)) {
      showErrorPage("expired");
    } else if (error instanceof NetworkError) {
      showErrorPage("network");
    } else {
      showErrorPage("unexpected");
    }
    return;
  }
  await adoptServerLocale(challenge.locale);
  if (challenge.brand === null) {
    void showProviderBrand();
  } else {
    showBrand(challenge.brand);
  }
  new SignInFlow(challenge).show(challenge.next);
}
