/**
 * The sign-in API on the same origin (docs/design.md §2, "Wire contracts"). JSON in, JSON
 * out; errors are RFC 9457 problem+json. Every call sends the `svc_session` cookie
 * (`credentials: "same-origin"`): the response that completes authentication sets it.
 */

import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import type { FieldError, Problem } from "../../shared/problem";
import { currentLocale } from "./i18n";

const BASE = "/api/v1/auth";

export type Step = "password" | "totp" | "face" | "passkey" | "consent" | "done";

export interface ScopeInfo {
  value: string;
  description: string;
}

export interface Challenge {
  id: string;
  kind: "login" | "consent";
  next: Step;
  client: { client_id: string; name: string };
  loginHint: string | null;
  scopes: ScopeInfo[];
  /**
   * Whether the face is offered at this step: "Sign in with your face" on the password
   * step (the deployment lets a face replace the password), or the `face` step itself.
   */
  face: boolean;
  /**
   * Whether a passkey is offered at this step: "Sign in with a passkey" on the password
   * step, "Use a passkey instead" on the code step (the person has one), or the `passkey`
   * step itself.
   */
  passkey: boolean;
  /** The language the server chose for this flow (`ui_locales`, saved, `Accept-Language`). */
  locale: string | null;
  /** The client's brand over the provider's; null when the server sent none. */
  brand: Brand | null;
}

/** What the page shows of a brand (docs/branding.md). */
export interface Brand {
  productName: string;
  logoUri: string | null;
  primaryColor: string | null;
  termsUri: string | null;
  privacyUri: string | null;
}

/** The answer of each sign-in step: go to `redirectTo` when present, else show `next`. */
export interface StepResult {
  next: Step;
  redirectTo?: string;
}

export type { FieldError, Problem } from "../../shared/problem";

/** The API answered with an error status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
    /** Seconds from `Retry-After` (429), or `null` when absent. */
    readonly retryAfter: number | null,
  ) {
    super(`HTTP ${status}`);
    this.name = "ApiError";
  }
}

/** The request never got an answer (offline, proxy down) or the answer was not JSON. */
export class NetworkError extends Error {
  constructor() {
    super("network failure");
    this.name = "NetworkError";
  }
}

const STEPS: readonly string[] = ["password", "totp", "face", "passkey", "consent", "done"];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asStep(value: unknown): Step {
  if (typeof value !== "string" || !STEPS.includes(value)) {
    throw new NetworkError();
  }
  return value as Step;
}

/** `Retry-After` as seconds: either delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(header: string | null, now: number = Date.now()): number | null {
  if (header === null) {
    return null;
  }
  const value = header.trim();
  if (/^\d+$/.test(value)) {
    return Number(value);
  }
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

async function readProblem(response: Response): Promise<Problem> {
  try {
    const body: unknown = await response.json();
    if (!isRecord(body)) {
      return {};
    }
    const problem: Problem = {};
    if (typeof body.title === "string") problem.title = body.title;
    if (typeof body.detail === "string") problem.detail = body.detail;
    if (typeof body.code === "string") problem.code = body.code;
    if (Array.isArray(body.errors)) {
      problem.errors = body.errors.filter(
        (e): e is FieldError =>
          isRecord(e) && typeof e.field === "string" && typeof e.message === "string",
      );
    }
    return problem;
  } catch {
    return {};
  }
}

async function call(method: "GET" | "POST", path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { Accept: "application/json" };
  const init: RequestInit = { method, headers, credentials: "same-origin", cache: "no-store" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    // The language the person is reading: a mail this request causes (a reset link, a
    // lock notice) is written in it when the person has saved no language of their own.
    headers["Accept-Language"] = currentLocale();
    init.body = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(BASE + path, init);
  } catch {
    throw new NetworkError();
  }
  if (!response.ok) {
    throw new ApiError(
      response.status,
      await readProblem(response),
      parseRetryAfter(response.headers.get("Retry-After")),
    );
  }
  return response;
}

async function json(response: Response): Promise<Record<string, unknown>> {
  try {
    const body: unknown = await response.json();
    if (isRecord(body)) {
      return body;
    }
  } catch {
    // fall through
  }
  throw new NetworkError();
}

async function step(path: string, body: unknown): Promise<StepResult> {
  const data = await json(await call("POST", path, body));
  const result: StepResult = { next: asStep(data.next) };
  if (typeof data.redirectTo === "string") {
    result.redirectTo = data.redirectTo;
  }
  return result;
}

export async function getChallenge(id: string): Promise<Challenge> {
  const data = await json(await call("GET", `/challenge/${encodeURIComponent(id)}`));
  const client = isRecord(data.client) ? data.client : {};
  const scopes = Array.isArray(data.scopes) ? data.scopes : [];
  return {
    id,
    kind: data.kind === "consent" ? "consent" : "login",
    next: asStep(data.next),
    client: {
      client_id: typeof client.client_id === "string" ? client.client_id : "",
      name: typeof client.name === "string" ? client.name : "",
    },
    loginHint: typeof data.loginHint === "string" ? data.loginHint : null,
    scopes: scopes
      .filter(isRecord)
      .map((s) => ({
        value: typeof s.value === "string" ? s.value : "",
        description: typeof s.description === "string" ? s.description : "",
      })),
    face: data.face === true,
    passkey: data.passkey === true,
    locale: typeof data.locale === "string" ? data.locale : null,
    brand: readBrand(data.brand),
  };
}

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);

/** A `BrandRead` from the API, or null when it is not one. */
export function readBrand(value: unknown): Brand | null {
  if (!isRecord(value) || typeof value.productName !== "string") {
    return null;
  }
  return {
    productName: value.productName,
    logoUri: text(value.logoUri),
    primaryColor: text(value.primaryColor),
    termsUri: text(value.termsUri),
    privacyUri: text(value.privacyUri),
  };
}

/** The provider's brand, for the pages without a challenge. */
export async function getBranding(): Promise<Brand | null> {
  return readBrand(await json(await call("GET", "/branding")));
}

export const login = (challenge: string, email: string, password: string) =>
  step("/login", { challenge, email, password });

/**
 * `image` is the base64 of a JPEG or PNG (no `data:` prefix). `email` names the account
 * when the face replaces the password; at the face step after the password it is null.
 */
export const biometric = (challenge: string, email: string | null, image: string) =>
  step("/biometric", email === null ? { challenge, image } : { challenge, email, image });

export const totp = (challenge: string, code: string) => step("/totp", { challenge, code });

/**
 * The options of a passkey ceremony for this step of the challenge, as
 * `startAuthentication({ optionsJSON })` takes them: discoverable at the password step,
 * the person's own passkeys (`allowCredentials`) as a second factor.
 */
export async function passkeyOptions(challenge: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const data = await json(await call("POST", "/passkey/options", { challenge }));
  if (typeof data.challenge !== "string") {
    throw new NetworkError();
  }
  return data as unknown as PublicKeyCredentialRequestOptionsJSON;
}

/** The browser's answer to those options; the step answer is the same as the password's. */
export const passkey = (challenge: string, credential: AuthenticationResponseJSON) =>
  step("/passkey", { challenge, credential });

export const consent = (challenge: string, approve: boolean) =>
  step("/consent", { challenge, approve });

/** 202 whatever the address: the page always shows the same answer. */
export async function requestPasswordReset(email: string): Promise<void> {
  await call("POST", "/password-reset", { email });
}

/** 204 on success; 422 names `password` when the policy refuses it. */
export async function confirmPasswordReset(token: string, password: string): Promise<void> {
  await call("POST", "/password-reset/confirm", { token, password });
}

// --- The device page (RFC 8628 §3.3; docs/oauth/device-flow.md) ---------------------------

/** What the device page shows before the person decides. */
export interface DeviceRequest {
  userCode: string;
  client: { client_id: string; name: string };
  scopes: ScopeInfo[];
}

/** The client and scopes of the device that shows `userCode` (401: not signed in). */
export async function lookupDevice(userCode: string): Promise<DeviceRequest> {
  const data = await json(await call("POST", "/device/lookup", { user_code: userCode }));
  const client = isRecord(data.client) ? data.client : {};
  const scopes = Array.isArray(data.scopes) ? data.scopes : [];
  return {
    userCode: typeof data.user_code === "string" ? data.user_code : userCode,
    client: {
      client_id: typeof client.client_id === "string" ? client.client_id : "",
      name: typeof client.name === "string" ? client.name : "",
    },
    scopes: scopes.filter(isRecord).map((s) => ({
      value: typeof s.value === "string" ? s.value : "",
      description: typeof s.description === "string" ? s.description : "",
    })),
  };
}

/** Approve or deny the device's request; the answer names what was recorded. */
export async function decideDevice(userCode: string, approve: boolean): Promise<"approved" | "denied"> {
  const data = await json(await call("POST", "/device/decision", { user_code: userCode, approve }));
  if (data.status !== "approved" && data.status !== "denied") {
    throw new NetworkError();
  }
  return data.status;
}

/** Starts a sign-in that comes back to the device page; returns where to go. */
export async function deviceSignIn(userCode: string): Promise<StepResult> {
  return step("/device/signin", { user_code: userCode });
}
