/** Wording shared by the screens: one place for the texts a person reads. */
import { ApiError, NetworkError } from "./api";

export const WRONG_CREDENTIALS = "Email or password is incorrect";

/** The face step's 401: the same for an unknown person, no enrolled face or no match. */
export const WRONG_FACE = "Email or face is incorrect";

/** The face step after the password: the face did not match the enrolled one. */
export const FACE_DOES_NOT_MATCH = "This does not look like the face enrolled for this account. Take another photo.";

/** Shown on the password step when the face step answered 503. */
export const FACE_UNAVAILABLE = "Signing in with your face is not available right now. Sign in with your password.";

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
