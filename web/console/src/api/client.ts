/**
 * Calls to the provider's `/admin/*` and `/entity/*` APIs with the in-memory access token.
 *
 * Errors are RFC 9457 problem+json; {@link ApiError} carries the status, the problem and the
 * per-field messages so forms can show each next to its field. Two answers are handled
 * here for every screen:
 * - 401: the token ran out or was revoked: one refresh, then a new sign-in;
 * - 403 with `error="insufficient_user_authentication"` (RFC 9470): the person is sent
 *   through sign-in again with the `max_age` the API asked for, and back to this screen.
 */
import type { Problem } from "../../../shared/problem";
import { beginSignIn, levelOutOfReach, refreshTokens, signedIn } from "../auth/session";
import { t } from "../i18n";

export type { FieldError, Problem } from "../../../shared/problem";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`);
    this.name = "ApiError";
  }

  /** The message for one field (`email`, `redirectUris[0]`, ...), if the API named it. */
  fieldMessage(field: string): string | undefined {
    return this.problem.errors?.find((e) => e.field === field)?.message;
  }
}

/** No answer at all (offline, proxy down) or an answer that is not what was expected. */
export class NetworkError extends Error {
  constructor() {
    super(t("common.error.unreachable"));
    this.name = "NetworkError";
  }
}

/** Thrown while the browser is on its way to the sign-in page; screens show nothing. */
export class Redirecting extends Error {
  constructor() {
    super(t("common.signingInAgain"));
    this.name = "Redirecting";
  }
}

/** Why a step-up cannot succeed (two factors asked of a person without an authenticator). */
export const levelOutOfReachText = (): string => t("common.error.levelOutOfReach");

/** Shown after the step-up round trip, in the language of the moment it started. */
export const stepUpNotice = (): string => t("common.error.stepUpNotice");

/** `max_age` of an RFC 9470 challenge, or null when the header is not one. */
export function stepUpMaxAge(header: string | null): number | null {
  if (!header || !/error="insufficient_user_authentication"/.test(header)) return null;
  const match = /max_age=(\d+)/.exec(header);
  return match ? Number(match[1]) : 0;
}

/**
 * `acr_values` of an RFC 9470 challenge (the sign-in levels that will do, for example
 * when a face alone was not enough), or undefined when it names none.
 */
export function stepUpAcrValues(header: string | null): string | undefined {
  const levels = header ? /acr_values="([^"]*)"/.exec(header)?.[1]?.trim() : undefined;
  return levels ? levels : undefined;
}

type Query = Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  query?: Query;
  /** JSON-encoded unless it is a Blob or FormData (sent as is). */
  body?: unknown;
  signal?: AbortSignal;
}

function url(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== null && value !== undefined && value !== "") params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

function currentPath(): string {
  return window.location.pathname + window.location.search;
}

async function send(method: string, path: string, options: RequestOptions): Promise<Response> {
  const held = signedIn();
  if (!held) {
    await beginSignIn(currentPath());
    throw new Redirecting();
  }
  if (Date.now() >= held.expiresAt && !(await refreshTokens())) {
    await beginSignIn(currentPath());
    throw new Redirecting();
  }
  const headers: Record<string, string> = {
    Accept: "application/json",
    Authorization: `Bearer ${signedIn()?.accessToken ?? ""}`,
  };
  let body: BodyInit | undefined;
  if (options.body instanceof Blob || options.body instanceof FormData) {
    body = options.body;
    if (options.body instanceof Blob && options.body.type) headers["Content-Type"] = options.body.type;
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["Content-Type"] = "application/json";
  }
  const init: RequestInit = { method, headers, credentials: "omit" };
  if (body !== undefined) init.body = body;
  if (options.signal) init.signal = options.signal;
  try {
    return await fetch(url(path, options.query), init);
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new NetworkError();
  }
}

async function problemOf(response: Response): Promise<Problem> {
  try {
    const value: unknown = await response.json();
    return typeof value === "object" && value !== null ? (value as Problem) : {};
  } catch {
    return {};
  }
}

/** One API call; answers the parsed JSON body (undefined for 204). */
export async function api<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  let response = await send(method, path, options);
  if (response.status === 401 && (await refreshTokens())) {
    response = await send(method, path, options);
  }
  if (response.status === 401) {
    await beginSignIn(currentPath());
    throw new Redirecting();
  }
  const maxAge = response.status === 403 ? stepUpMaxAge(response.headers.get("WWW-Authenticate")) : null;
  if (maxAge !== null) {
    const acrValues = stepUpAcrValues(response.headers.get("WWW-Authenticate"));
    if (acrValues !== undefined && levelOutOfReach(acrValues, maxAge)) {
      throw new ApiError(403, { status: 403, code: "console.level_out_of_reach", detail: levelOutOfReachText() });
    }
    await beginSignIn(currentPath(), { maxAge, acrValues, notice: stepUpNotice() });
    throw new Redirecting();
  }
  if (!response.ok) throw new ApiError(response.status, await problemOf(response));
  if (response.status === 204) return undefined as T;
  try {
    return (await response.json()) as T;
  } catch {
    throw new NetworkError();
  }
}

export const get = <T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> =>
  api<T>("GET", path, { ...(query ? { query } : {}), ...(signal ? { signal } : {}) });
export const post = <T>(path: string, body?: unknown): Promise<T> => api<T>("POST", path, { body });
export const put = <T>(path: string, body?: unknown): Promise<T> => api<T>("PUT", path, { body });
export const patch = <T>(path: string, body?: unknown): Promise<T> => api<T>("PATCH", path, { body });
export const del = (path: string): Promise<void> => api<void>("DELETE", path);

/** `{items, nextCursor}` of every list route. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * A human sentence for any error a call can raise. The server's own sentences (`detail`,
 * field messages) are shown as given; the console's own are read from the catalogue.
 */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const problem = error.problem;
    if (problem.errors?.length && !problem.detail) return problem.errors.map((e) => e.message).join(" ");
    return problem.detail ?? problem.title ?? t("common.error.failedStatus", { status: String(error.status) });
  }
  if (error instanceof NetworkError) return error.message;
  return t("common.error.unknown");
}
