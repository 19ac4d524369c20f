/**
 * User codes of the device flow (RFC 8628 §6.1), as the provider makes them: 8 letters
 * of the base-20 alphabet `BCDFGHJKLMNPQRSTVWXZ`, shown `XXXX-XXXX`. What a person types
 * is read case-insensitively, with dashes and spaces ignored (the server does the same).
 */

export const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
export const USER_CODE_LENGTH = 8;

/** The 8 letters a person meant, or `null` when the text cannot be a user code. */
export function normaliseUserCode(typed: string): string | null {
  if (typed.length > 4 * USER_CODE_LENGTH) {
    return null;
  }
  const code = typed.toUpperCase().replace(/[-\s]/g, "");
  if (code.length !== USER_CODE_LENGTH) {
    return null;
  }
  for (const ch of code) {
    if (!USER_CODE_ALPHABET.includes(ch)) {
      return null;
    }
  }
  return code;
}

/** `BCDFGHJK` as the device shows it: `BCDF-GHJK`. */
export function formatUserCode(code: string): string {
  const half = Math.floor(code.length / 2);
  return `${code.slice(0, half)}-${code.slice(half)}`;
}

/** The `user_code` query parameter (`verification_uri_complete`), formatted, or `null`. */
export function readUserCode(search: string): string | null {
  const values = new URLSearchParams(search).getAll("user_code");
  if (values.length !== 1 || values[0] === undefined) {
    return null;
  }
  const code = normaliseUserCode(values[0]);
  return code === null ? null : formatUserCode(code);
}
