/**
 * Shared parts of the catalogue screens (APIs and scopes, clients, roles, groups): the wire
 * shapes of `/admin/*` and the errors of list fields.
 */
import { ApiError } from "../../../api/client";
import { t } from "../../../i18n";
import type { Submission } from "../../../ui/form";
import type { AuthMethod } from "./clientAuth";

export interface Api {
  id: string;
  name: string;
  audience: string;
  /** The algorithm of its access tokens. */
  accessTokenSigningAlg: SigningAlg;
  createdAt: string;
  updatedAt: string;
}

export interface Scope {
  id: string;
  apiId: string | null;
  value: string;
  description: string;
  createdAt: string;
}

export interface Client {
  client_id: string;
  name: string;
  type: "confidential" | "public";
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  backchannelLogoutUri: string | null;
  grantTypes: string[];
  skipConsent: boolean;
  /** Switched off by an administrator: no sign-in, no token, and the tokens it holds stop. */
  disabled: boolean;
  scopes: string[];
  createdAt: string;
  updatedAt: string;
  /** OIDC Registration names, verbatim. */
  id_token_signed_response_alg: SigningAlg;
  /** null: userinfo answers plain JSON. */
  userinfo_signed_response_alg: SigningAlg | null;
  /** OAuth registration names verbatim: how it authenticates, its public keys. */
  token_endpoint_auth_method: AuthMethod;
  jwks: Record<string, unknown> | null;
  jwks_uri: string | null;
  require_pushed_authorization_requests: boolean;
  dpop_bound_access_tokens: boolean;
  /** null, or "fapi2": the FAPI 2.0 Security Profile's rules. */
  securityProfile: string | null;
  /** The API audiences it may exchange a person's token for (RFC 8693); default none. */
  tokenExchangeAudiences: string[];
  /** Origins whose pages may call the token endpoints (CORS); empty: the redirect URIs' origins. */
  allowedWebOrigins: string[];
}

export interface ClientCreated extends Client {
  client_secret?: string;
}

export interface SecretRotated {
  client_id: string;
  client_secret: string;
}

export interface Role {
  id: string;
  name: string;
  description: string;
  scopes: string[];
  createdAt: string;
  updatedAt: string;
}

export interface RoleRef {
  id: string;
  name: string;
}

export interface Group {
  id: string;
  name: string;
  description: string;
  roles: RoleRef[];
  memberCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface Member {
  id: string;
  email: string;
  username: string | null;
  displayName: string;
}

/** The JWS algorithms the provider signs with; RS256 is the default. */
export type SigningAlg = "RS256" | "PS256" | "ES256" | "EdDSA";

/**
 * The algorithms offered in the API and client forms. All four are offered; the provider
 * refuses one it holds no key for, and the form shows its message next to the field.
 * A function, not a constant: the labels follow the language chosen.
 */
export function signingAlgs(): { value: SigningAlg; label: string }[] {
  return [
    { value: "RS256", label: t("admin-directory.alg.rs256") },
    { value: "PS256", label: t("admin-directory.alg.ps256") },
    { value: "ES256", label: t("admin-directory.alg.es256") },
    { value: "EdDSA", label: t("admin-directory.alg.eddsa") },
  ];
}

/** What the form's hints say about an algorithm the provider holds no key for. */
export const signingAlgHint = (): string => t("admin-directory.alg.hint");

/** The standard OpenID Connect scopes: they exist without an API (migration 0001). */
export function oidcScopes(): { value: string; description: string }[] {
  return [
    { value: "openid", description: t("admin-directory.oidc.openid") },
    { value: "profile", description: t("admin-directory.oidc.profile") },
    { value: "email", description: t("admin-directory.oidc.email") },
    { value: "offline_access", description: t("admin-directory.oidc.offlineAccess") },
  ];
}

/**
 * The messages the API gave for a list field and its items (`grantTypes`, `grantTypes[1]`):
 * `name(i)` says which item `i` is ("Line 2 (http://…)", "refresh_token").
 */
export function listErrors(
  submission: Submission,
  field: string,
  name: (index: number) => string | undefined,
): string | undefined {
  const error = submission.error;
  const messages: string[] = [];
  const own = submission.fieldError(field);
  if (own) messages.push(own);
  if (error instanceof ApiError) {
    const pattern = new RegExp(`^${field.replace(/[.[\]]/g, "\\$&")}\\[(\\d+)\\]$`);
    for (const item of error.problem.errors ?? []) {
      const found = pattern.exec(item.field);
      if (!found) continue;
      const which = name(Number(found[1]));
      messages.push(which ? t("admin-directory.list.itemError", { item: which, message: item.message }) : item.message);
    }
  }
  return messages.length ? messages.join(" ") : undefined;
}

/** {@link listErrors} for a list sent from a textarea, one item per non-blank line. */
export function linesError(submission: Submission, field: string, lines: readonly Line[]): string | undefined {
  return listErrors(submission, field, (index) => {
    const line = lines[index];
    return line ? t("admin-directory.list.line", { number: line.number, text: line.text }) : undefined;
  });
}

/** A non-blank line of a textarea and its 1-based number. */
export interface Line {
  number: number;
  text: string;
}

/** The non-blank lines of a textarea, trimmed, with their line numbers. */
export function linesOf(text: string): Line[] {
  return text
    .split(/\r?\n/)
    .map((raw, index) => ({ number: index + 1, text: raw.trim() }))
    .filter((line) => line.text !== "");
}

/** `id` as a path segment. */
export const seg = (id: string): string => encodeURIComponent(id);
