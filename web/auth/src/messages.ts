/** Wording shared by the screens: one place for the texts a person reads. */
import { ApiError, NetworkError } from "./api";

export const WRONG_CREDENTIALS = "Email or password is incorrect";

/** The face step's 401: the same for an unknown person, no enrolled face or no match. */
export const WRONG_FACE = "Email or face is incorrect";

/** The face step after the password: the face did not match the enrolled one. */
export const FACE_DOES_NOT_MATCH = "This does not look like the face enrolled for this account. Take another photo.";

/** Shown on the password step when the face step answered 503. */
export const FACE_UNAVAILABLE = "Signing in with your face is not available right now. Sign in with your password.";

/** Passkeys (issue #26): while the browser asks for one, then while the server checks it. */
export const PASSKEY_WAITING = "Waiting for your passkey…";
export const PASSKEY_CHECKING = "Checking your passkey…";

/** The prompt was closed or timed out: said quietly, nothing is wrong. */
export const PASSKEY_CANCELLED = "No passkey was used. You can try again.";

/** A refused passkey at sign-in: one message whatever the cause, as for the password. */
export const PASSKEY_REFUSED = "That passkey could not sign you in. Try again, or sign in with your password.";

/** A refused passkey as the second step: it is not one of this account's. */
export const PASSKEY_NOT_ACCEPTED = "That passkey is not one of this account's. Try again with a passkey of this account.";

/** The browser cannot use a passkey here (no authenticator, unsupported, blocked). */
export const PASSKEY_UNAVAILABLE = "This browser could not use a passkey here. Try again, or sign in another way.";

/** The message for a 429, with the wait taken from `Retry-After`. */
export function tooManyAttempts(seconds: number | null): string {
  if (seconds === null) {
    return "Too many attempts. Wait a moment, then try again.";
  }
  const unit = seconds === 1 ? "second" : "seconds";
  return `Too many attempts. Try again in ${seconds} ${unit}.`;
}

/** A message for an error that no screen handles specifically. */
export function genericMessage(error: unknown): string {
  if (error instanceof NetworkError) {
    return "We could not reach the server. Check your connection and try again.";
  }
  if (error instanceof ApiError && error.status === 429) {
    return tooManyAttempts(error.retryAfter);
  }
  return "Something went wrong on our side. Try again in a moment.";
}

/** The device page: a code that names no pending request (unknown, expired, decided). */
export const DEVICE_CODE_INVALID = "That code is not valid. Check the code on your device: it may have expired.";

/** The device page: what was typed cannot be a code. */
export const DEVICE_CODE_MALFORMED = "Enter the 8-letter code shown on your device, like BCDF-GHJK.";
