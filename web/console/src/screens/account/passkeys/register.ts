/**
 * Adding a passkey (docs/entity-api.md): the creation options from
 * `POST /entity/passkeys/registration-options`, the browser's prompt
 * (`startRegistration` of `@simplewebauthn/browser`), then `POST /entity/passkeys` with
 * the name and the browser's answer. Both calls need a recent sign-in: a 403 step-up
 * refusal sends the person through sign-in again (api/client.ts) before any prompt.
 */
import {
  type PublicKeyCredentialCreationOptionsJSON,
  type RegistrationResponseJSON,
  WebAuthnError,
  startRegistration,
} from "@simplewebauthn/browser";
import { ApiError, post } from "../../../api/client";
import type { PasskeyRead } from "../../../api/passkeys";
import { t } from "../../../i18n";

/** What adding needs from the outside world (replaced in unit tests). */
export interface RegisterDeps {
  post: <T>(path: string, body?: unknown) => Promise<T>;
  start: (options: { optionsJSON: PublicKeyCredentialCreationOptionsJSON }) => Promise<RegistrationResponseJSON>;
}

const DEFAULT_DEPS: RegisterDeps = { post, start: startRegistration };

/** The person closed the browser's prompt (or let it time out): nothing was added. */
export class PasskeyCancelled extends Error {
  constructor() {
    super(t("account.passkeys.cancelled"));
    this.name = "PasskeyCancelled";
  }
}

/** The authenticator already holds a passkey for this account. */
export const alreadyHere = (): string => t("account.passkeys.alreadyHere");
/** Anything else the browser refused. */
export const notPossible = (): string => t("account.passkeys.notPossible");

/**
 * The browser's refusal in the person's words. A sentence the screen shows like an API
 * refusal (an ApiError without a status, so the forms' summary says its detail).
 */
export function explainCeremony(error: unknown): Error {
  const cause = error instanceof WebAuthnError && error.cause instanceof Error ? error.cause.name : "";
  const name = error instanceof Error ? error.name : "";
  if (name === "NotAllowedError" || cause === "NotAllowedError" || name === "AbortError") {
    return new PasskeyCancelled();
  }
  if (error instanceof WebAuthnError && error.code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED") {
    return new ApiError(0, { detail: alreadyHere() });
  }
  if (name === "InvalidStateError") {
    return new ApiError(0, { detail: alreadyHere() });
  }
  return new ApiError(0, { detail: notPossible() });
}

export async function registerPasskey(name: string, deps: RegisterDeps = DEFAULT_DEPS): Promise<PasskeyRead> {
  const optionsJSON = await deps.post<PublicKeyCredentialCreationOptionsJSON>("/entity/passkeys/registration-options");
  let credential: RegistrationResponseJSON;
  try {
    credential = await deps.start({ optionsJSON });
  } catch (error) {
    throw explainCeremony(error);
  }
  return deps.post<PasskeyRead>("/entity/passkeys", { name: name.trim(), credential });
}
