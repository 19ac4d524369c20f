/**
 * The provider sends the browser to `{SVC_AUTH_UI_BASE_URL}/login?challenge=<id>`
 * (DESIGN.md §2, Sign-in). The id is opaque: the page keeps it in memory to send it back
 * with each sign-in step, and never writes it into the page, a log or storage.
 */

/** Longest challenge id accepted; anything longer is not one the provider issued. */
const MAX_CHALLENGE_LENGTH = 256;

/** URL-safe token characters only (base64url, hex, UUID). */
const CHALLENGE_PATTERN = /^[A-Za-z0-9_-]+$/;

/** Returns the `challenge` query parameter when it looks like one, else `null`. */
export function readChallenge(search: string): string | null {
  const values = new URLSearchParams(search).getAll("challenge");
  if (values.length !== 1) {
    return null;
  }
  const value = values[0];
  if (value === undefined || value.length > MAX_CHALLENGE_LENGTH || !CHALLENGE_PATTERN.test(value)) {
    return null;
  }
  return value;
}
