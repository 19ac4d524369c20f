/**
 * Opaque ids read from the query string: the sign-in `challenge` (the provider sends the
 * browser to `{SVC_AUTH_UI_BASE_URL}/login?challenge=<id>`, docs/design.md §2 "Sign-in") and the
 * password-reset `token`. The page keeps them in memory to send them back to the API,
 * and never writes them into the page, a log or storage.
 */

/** Longest id accepted; anything longer is not one the provider issued. */
const MAX_LENGTH = 256;

/** URL-safe token characters only (base64url, hex, UUID). */
const PATTERN = /^[A-Za-z0-9_-]+$/;

/** The single value of query parameter `name` when it looks like an id, else `null`. */
function readId(search: string, name: string): string | null {
  const values = new URLSearchParams(search).getAll(name);
  if (values.length !== 1) {
    return null;
  }
  const value = values[0];
  if (value === undefined || value.length > MAX_LENGTH || !PATTERN.test(value)) {
    return null;
  }
  return value;
}

/** Returns the `challenge` query parameter when it looks like one, else `null`. */
export function readChallenge(search: string): string | null {
  return readId(search, "challenge");
}

/** Returns the password-reset `token` query parameter when it looks like one, else `null`. */
export function readToken(search: string): string | null {
  return readId(search, "token");
}
