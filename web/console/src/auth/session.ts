/**
 * The console's sign-in: authorization code + PKCE for the seeded public client `console`
 * (docs/design.md §2), through the hosted sign-in page.
 *
 * Tokens live in this module's memory only: never in storage, cookies or the URL. A reload
 * loses them; the provider's own browser session then signs the person in again without a
 * form (single sign-on). Only what must survive the round trip to the provider is kept in
 * `sessionStorage` for that trip: the PKCE verifier, `state` and the path to come back to,
 * removed as soon as the callback reads them.
 */
import { t } from "../i18n";
import { randomToken, s256 } from "./pkce";

const CLIENT_ID = "console";
const PENDING_KEY = "console.pending-sign-in";
const NOTICE_KEY = "console.notice";
/** The `acr_values` the last sign-in asked for (RFC 9470 step-up), to notice one that
 * the person cannot reach (two factors without an authenticator). */
const ASKED_LEVELS_KEY = "console.asked-acr-values";

/** Every scope the console can use; a token carries only those the person holds. */
export const CONSOLE_SCOPES = [
  "openid",
  "profile",
  "email",
  "idp:account:read",
  "idp:account:write",
  "idp:sessions:read",
  "idp:sessions:write",
  "idp:connections:read",
  "idp:connections:write",
  "idp:apis:read",
  "idp:apis:write",
  "idp:clients:read",
  "idp:clients:write",
  "idp:groups:read",
  "idp:groups:write",
  "idp:roles:read",
  "idp:roles:write",
  "idp:users:read",
  "idp:users:write",
  "idp:profile-fields:read",
  "idp:profile-fields:write",
  "idp:audit:read",
  "idp:webhooks:read",
  "idp:webhooks:write",
  "idp:branding:read",
  "idp:branding:write",
  "idp:scim:read",
  "idp:scim:write",
] as const;

export interface Identity {
  sub: string;
  name: string;
  email: string;
}

export interface SignedIn {
  accessToken: string;
  idToken: string;
  refreshToken: string | null;
  /** Epoch milliseconds after which the access token is not used any more. */
  expiresAt: number;
  scopes: ReadonlySet<string>;
  identity: Identity;
}

interface Pending {
  state: string;
  verifier: string;
  returnTo: string;
}

let current: SignedIn | null = null;

export function signedIn(): SignedIn | null {
  return current;
}

export function hasScope(scope: string): boolean {
  return current?.scopes.has(scope) ?? false;
}

function redirectUri(): string {
  return `${window.location.origin}/console/callback`;
}

/** A path under /console/ to come back to; anything else falls back to the start page. */
export function safeReturnPath(path: string): string {
  return /^\/console(\/|$)/.test(path) && !path.startsWith("/console/callback")
    ? path
    : "/console/";
}

export interface SignInOptions {
  /** RFC 9470 step-up: the provider asks for a sign-in within this many seconds. */
  maxAge?: number;
  /** RFC 9470 step-up: the sign-in levels that will do (`acr_values`, space-separated). */
  acrValues?: string | undefined;
  prompt?: "login" | "none";
  /** Shown once after coming back (for example why the person signed in again). */
  notice?: string;
}

/** Sends the browser to the provider's authorize endpoint; never returns normally. */
export async function beginSignIn(returnTo: string, options: SignInOptions = {}): Promise<void> {
  const pending: Pending = {
    state: randomToken(),
    verifier: randomToken(),
    returnTo: safeReturnPath(returnTo),
  };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  if (options.notice) sessionStorage.setItem(NOTICE_KEY, options.notice);
  const query = new URLSearchParams({
    response_type: "code",
    client_id: CLIENT_ID,
    redirect_uri: redirectUri(),
    scope: CONSOLE_SCOPES.join(" "),
    state: pending.state,
    code_challenge: await s256(pending.verifier),
    code_challenge_method: "S256",
  });
  if (options.maxAge !== undefined) query.set("max_age", String(options.maxAge));
  if (options.acrValues) {
    query.set("acr_values", options.acrValues);
    sessionStorage.setItem(ASKED_LEVELS_KEY, options.acrValues);
  } else {
    sessionStorage.removeItem(ASKED_LEVELS_KEY);
  }
  if (options.prompt) query.set("prompt", options.prompt);
  window.location.assign(`/oauth2/authorize?${query.toString()}`);
}

/** A notice left for the page the person comes back to, read once. */
export function takeNotice(): string | null {
  const notice = sessionStorage.getItem(NOTICE_KEY);
  sessionStorage.removeItem(NOTICE_KEY);
  return notice;
}

export class SignInFailed extends Error {
  constructor(
    message: string,
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = "SignInFailed";
  }
}

function readPending(): Pending | null {
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  if (!raw) return null;
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === "object" && value !== null) {
      const { state, verifier, returnTo } = value as Record<string, unknown>;
      if (typeof state === "string" && typeof verifier === "string" && typeof returnTo === "string") {
        return { state, verifier, returnTo };
      }
    }
  } catch {
    // fall through: a damaged entry is the same as none
  }
  return null;
}

/**
 * True when the current sign-in is recent enough (within `maxAge` seconds) and was asked
 * for exactly these `acr_values`, yet reached another level: signing in again would end
 * the same way (for example two factors asked of a person with no authenticator).
 */
export function levelOutOfReach(acrValues: string, maxAge: number): boolean {
  if (current === null || sessionStorage.getItem(ASKED_LEVELS_KEY) !== acrValues) return false;
  const claims = claimsOf(current.idToken);
  const authTime = typeof claims.auth_time === "number" ? claims.auth_time : 0;
  const recent = Date.now() / 1000 - authTime <= maxAge;
  return recent && !acrValues.split(" ").includes(text(claims.acr));
}

function claimsOf(jwt: string): Record<string, unknown> {
  const part = jwt.split(".")[1] ?? "";
  const padded = part.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(part.length / 4) * 4, "=");
  const bytes = Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

async function tokenRequest(form: Record<string, string>): Promise<SignedIn> {
  let response: Response;
  try {
    response = await fetch("/oauth2/token", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: new URLSearchParams({ client_id: CLIENT_ID, ...form }),
      credentials: "omit",
    });
  } catch {
    throw new SignInFailed(t("shell.signIn.unreachable"));
  }
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok || typeof body.access_token !== "string" || typeof body.id_token !== "string") {
    throw new SignInFailed(t("shell.signIn.notCompleted"), text(body.error) || null);
  }
  const claims = claimsOf(body.id_token);
  const lifetime = typeof body.expires_in === "number" ? body.expires_in : 300;
  return {
    accessToken: body.access_token,
    idToken: body.id_token,
    refreshToken: typeof body.refresh_token === "string" ? body.refresh_token : null,
    // Ten seconds early, so a token is never sent in its last moments.
    expiresAt: Date.now() + Math.max(lifetime - 10, 5) * 1000,
    scopes: new Set(text(body.scope).split(" ").filter(Boolean)),
    identity: {
      sub: text(claims.sub),
      name: text(claims.name) || text(claims.preferred_username) || text(claims.email),
      email: text(claims.email),
    },
  };
}

/**
 * Finishes the code flow at /console/callback: checks `state`, exchanges the code with
 * the verifier, keeps the tokens in memory and answers the path to show next.
 */
export async function completeSignIn(search: string): Promise<string> {
  const params = new URLSearchParams(search);
  const pending = readPending();
  if (!pending || params.get("state") !== pending.state) {
    throw new SignInFailed(t("shell.signIn.notStartedHere"));
  }
  const error = params.get("error");
  if (error) {
    throw new SignInFailed(params.get("error_description") ?? t("shell.signIn.refused"), error);
  }
  const code = params.get("code");
  if (!code) throw new SignInFailed(t("shell.signIn.noCode"));
  current = await tokenRequest({
    grant_type: "authorization_code",
    code,
    redirect_uri: redirectUri(),
    code_verifier: pending.verifier,
  });
  return pending.returnTo;
}

let refreshing: Promise<boolean> | null = null;

/** Rotates the refresh token for a new access token; false when that is not possible. */
export function refreshTokens(): Promise<boolean> {
  const held = current;
  if (!held?.refreshToken) return Promise.resolve(false);
  refreshing ??= tokenRequest({ grant_type: "refresh_token", refresh_token: held.refreshToken })
    .then((next) => {
      current = next;
      return true;
    })
    .catch(() => false)
    .finally(() => {
      refreshing = null;
    });
  return refreshing;
}

/** The provider takes an ID token as a hint up to 24 hours after it expired; an hour kept spare. */
const HINT_GRACE_MS = 23 * 3600 * 1000;

function usableAsHint(idToken: string): boolean {
  const exp = claimsOf(idToken).exp;
  return typeof exp === "number" && exp * 1000 > Date.now() - HINT_GRACE_MS;
}

/**
 * Ends the provider's session (RP-initiated logout) and comes back to /console/.
 *
 * A form POST with the ID token as `id_token_hint`: the hint stays out of the address bar,
 * history and Referer, and it proves the request comes from the person's own console, so
 * a provider that asks before signing out (SVC_LOGOUT_CONFIRMATION) does not ask here.
 */
export function signOut(): void {
  const held = current;
  current = null;
  const fields: Record<string, string> = {
    post_logout_redirect_uri: `${window.location.origin}/console/`,
    client_id: CLIENT_ID,
    // Echoed back by the provider: the console then shows "You are signed out".
    state: "signed-out",
  };
  if (held && usableAsHint(held.idToken)) fields.id_token_hint = held.idToken;
  const form = document.createElement("form");
  form.method = "post";
  form.action = "/oauth2/logout";
  form.hidden = true;
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.value = value;
    form.append(input);
  }
  document.body.append(form);
  form.submit();
}
