/**
 * Shared parts of the catalogue screens (APIs and scopes, clients, roles, groups): the wire
 * shapes of `/admin/*` and the errors of list fields.
 */
import { ApiError } from "../../../api/client";
import type { Submission } from "../../../ui/form";
import type { AuthMethod } from "./clientAuth";

export interface Api {
  id: string;
  name: string;
  audience: string;
  /** The algorithm of its access tokens (issue #24). */
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
  scopes: string[];
  createdAt: string;
  updatedAt: string;
  /** OIDC Registration names, verbatim (issue #24). */
  id_token_signed_response_alg: SigningAlg;
  /** null: userinfo answers plain JSON. */
  userinfo_signed_response_alg: SigningAlg | null;
  /** Issue #25, OAuth registration names verbatim: how it authenticates, its public keys. */
  token_endpoint_auth_method: AuthMethod;
  jwks: Record<string, unknown> | null;
  jwks_uri: string | null;
  require_pushed_authorization_requests: boolean;
  dpop_bound_access_tokens: boolean;
  /** null, or "fapi2": the FAPI 2.0 Security Profile's rules. */
  securityProfile: string | null;
  /** The API audiences it may exchange a person's token for (RFC 8693); default none. */
  tokenExchangeAudiences: string[];
  /** Issue #27: origins whose pages may call the token endpoints (CORS); empty: the redirect URIs' origins. */
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

/** The JWS algorithms the provider signs with (issue #24); RS256 is the default. */
export type SigningAlg = "RS256" | "PS256" | "ES256" | "EdDSA";

/**
 * The algorithms offered in the API and client forms. All four are offered; the provider
 * refuses one it holds no key for, and the form shows its message next to the field.
 */
export const SIGNING_ALGS: readonly { value: SigningAlg; label: string }[] = [
  { value: "RS256", label: "RS256 (RSA, the default)" },
  { value: "PS256", label: "PS256 (RSA-PSS)" },
  { value: "ES256", label: "ES256 (ECDSA P-256)" },
  { value: "EdDSA", label: "EdDSA (Ed25519)" },
];

/** What the form's hints say about an algorithm the provider holds no key for. */
export const SIGNING_ALG_HINT = "The provider must hold a key for it (idp keys generate --alg …).";

/** The standard OpenID Connect scopes: they exist without an API (migration 0001). */
export const OIDC_SCOPES: readonly { value: string; description: string }[] = [
  { value: "openid", description: "Sign you in and know your account identifier" },
  { value: "profile", description: "See your name, username and profile picture" },
  { value: "email", description: "See your email address and whether it is verified" },
  { value: "offline_access", description: "Keep access to your data while you are not signed in" },
];

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
      messages.push(which ? `${which}: ${item.message}` : item.message);
    }
  }
  return messages.length ? messages.join(" ") : undefined;
}

/** {@link listErrors} for a list sent from a textarea, one item per non-blank line. */
export function linesError(submission: Submission, field: string, lines: readonly Line[]): string | undefined {
  return listErrors(submission, field, (index) => {
    const line = lines[index];
    return line ? `Line ${line.number} (${line.text})` : undefined;
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
