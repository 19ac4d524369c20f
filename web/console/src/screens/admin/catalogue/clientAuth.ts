/**
 * The client properties of modern OAuth as the client form edits them: how the client
 * authenticates at the token endpoint (`token_endpoint_auth_method`), its public keys for
 * `private_key_jwt` (`jwks` pasted as JSON, or `jwks_uri`), the security profile and the
 * grant types of the device flow and token exchange. Pure helpers, tested without a browser.
 */
import { t } from "../../../i18n";

export const GRANT_DEVICE_CODE = "urn:ietf:params:oauth:grant-type:device_code";
export const GRANT_TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";

export type ClientType = "confidential" | "public";

export type AuthMethod =
  | "client_secret_basic"
  | "client_secret_post"
  | "client_secret_jwt"
  | "private_key_jwt"
  | "none";

/** The methods of a confidential client (RFC 7591 §2 names); `none` is a public client's only. */
export function confidentialMethods(): { value: AuthMethod; label: string }[] {
  return [
    { value: "client_secret_basic", label: t("admin-directory.clientAuth.secretBasic") },
    { value: "client_secret_post", label: t("admin-directory.clientAuth.secretPost") },
    { value: "client_secret_jwt", label: t("admin-directory.clientAuth.secretJwt") },
    { value: "private_key_jwt", label: t("admin-directory.clientAuth.privateKeyJwt") },
  ];
}
export function publicMethods(): { value: AuthMethod; label: string }[] {
  return [{ value: "none", label: t("admin-directory.clientAuth.none") }];
}

export const methodsFor = (type: ClientType) => (type === "public" ? publicMethods() : confidentialMethods());

/** The method a client of `type` gets when `current` does not suit it (the type changed). */
export function methodFor(type: ClientType, current: string): AuthMethod {
  const offered = methodsFor(type);
  return offered.find((method) => method.value === current)?.value ?? offered[0]!.value;
}

/** Where a `private_key_jwt` client's public keys come from. */
export type KeySource = "" | "jwks" | "jwks_uri";

export function keySources(): { value: KeySource; label: string }[] {
  return [
    { value: "", label: t("admin-directory.clientAuth.keysNone") },
    { value: "jwks", label: t("admin-directory.clientAuth.keysJwks") },
    { value: "jwks_uri", label: t("admin-directory.clientAuth.keysUri") },
  ];
}

export function keySourceOf(client: { jwks: unknown; jwks_uri: string | null } | undefined): KeySource {
  if (client?.jwks) return "jwks";
  if (client?.jwks_uri) return "jwks_uri";
  return "";
}

/** The shape of a JWK Set, quoted in messages (code, not translated). */
export const JWKS_EXAMPLE = '{"keys": [ … ]}';

/** The JWKS textarea read as JSON: a JSON object, or the message to show at the field. */
export function parseJwks(text: string): { jwks: Record<string, unknown> } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: t("admin-directory.clientAuth.jwksNotJson", { example: JWKS_EXAMPLE }) };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { error: t("admin-directory.clientAuth.jwksNotObject", { example: JWKS_EXAMPLE }) };
  }
  return { jwks: value as Record<string, unknown> };
}

/** The `jwks` and `jwks_uri` members to send for the chosen source (at most one is set). */
export function keyMembers(
  source: KeySource,
  jwksText: string,
  jwksUri: string,
): { jwks: Record<string, unknown> | null; jwks_uri: string | null } {
  if (source === "jwks") {
    const parsed = parseJwks(jwksText);
    return { jwks: "jwks" in parsed ? parsed.jwks : null, jwks_uri: null };
  }
  if (source === "jwks_uri") return { jwks: null, jwks_uri: jwksUri.trim() || null };
  return { jwks: null, jwks_uri: null };
}

/** The local errors of the keys before anything is sent (keyed by the API's field names). */
export function keyErrors(source: KeySource, jwksText: string, jwksUri: string): Record<string, string> {
  if (source === "jwks") {
    const parsed = parseJwks(jwksText);
    return "error" in parsed ? { jwks: parsed.error } : {};
  }
  if (source === "jwks_uri" && !jwksUri.trim()) return { jwks_uri: t("admin-directory.clientAuth.jwksUriMissing") };
  return {};
}

/** `securityProfile`: none, or the FAPI 2.0 Security Profile. */
export function securityProfiles(): { value: string; label: string }[] {
  return [
    { value: "", label: t("admin-directory.clientAuth.profileNone") },
    { value: "fapi2", label: t("admin-directory.clientAuth.profileFapi2") },
  ];
}
