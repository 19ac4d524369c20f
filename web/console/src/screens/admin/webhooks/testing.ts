/**
 * What the webhooks screens' tests share: a signed-in administrator with chosen scopes (the
 * session module's two readers, for `vi.mock`) and the provider's API answered at the
 * console's boundary, `fetch`, route by route, with every request recorded.
 */
import { vi } from "vitest";
import type { Delivery, WebhookEndpoint } from "./model";

const granted = new Set<string>();

/** The scopes the access token carries from now on. */
export function grant(...scopes: string[]): void {
  granted.clear();
  for (const scope of scopes) granted.add(scope);
}

/** The members of `auth/session` the screens read, for a `vi.mock` of it. */
export const fakeSession = {
  signedIn: () => ({
    accessToken: "access-token",
    idToken: "id-token",
    refreshToken: null,
    expiresAt: Date.now() + 3_600_000,
    scopes: granted,
    identity: { sub: "admin-1", name: "Ada Admin", email: "ada@example.test" },
  }),
  hasScope: (scope: string) => granted.has(scope),
};

export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  headers: Record<string, string>;
}

export type Answer = (call: Call) => Response;

export const json =
  (body: unknown, status = 200): Answer =>
  () =>
    new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

export const noContent: Answer = () => new Response(null, { status: 204 });

export const problem =
  (status: number, body: Record<string, unknown>): Answer =>
  () =>
    new Response(JSON.stringify({ status, ...body }), {
      status,
      headers: { "Content-Type": "application/problem+json" },
    });

/** Answers one after the other (the last one again once they are used up). */
export function inTurn(...answers: Answer[]): Answer {
  let next = 0;
  return (call) => {
    const answer = answers[Math.min(next, answers.length - 1)];
    next += 1;
    if (!answer) throw new Error("no answer");
    return answer(call);
  };
}

/**
 * Stubs `fetch`: `routes` maps "METHOD /path" (no query) to its answer; any other request
 * is answered 404 and recorded, so a test sees it. Answers the list of requests.
 */
export function fakeApi(routes: Record<string, Answer>): Call[] {
  const calls: Call[] = [];
  vi.stubGlobal("fetch", async (input: string, init: RequestInit = {}) => {
    const url = new URL(input, "http://localhost");
    const call: Call = {
      method: init.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
      headers: (init.headers ?? {}) as Record<string, string>,
    };
    calls.push(call);
    const answer = routes[`${call.method} ${call.path}`];
    return answer ? answer(call) : problem(404, { title: "Not Found", detail: `No route ${call.method} ${call.path}` })(call);
  });
  return calls;
}

/** The requests other than reads. */
export const writes = (calls: Call[]): Call[] => calls.filter((call) => call.method !== "GET");

export const EVENT_TYPES = [
  "user.created",
  "user.updated",
  "user.deleted",
  "signin.succeeded",
  "signin.failed",
  "client.created",
];

export function endpoint(overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
  return {
    id: "wh-1",
    url: "https://hooks.example.test/idp",
    description: "Directory sync",
    eventTypes: ["user.created", "user.updated"],
    enabled: true,
    createdAt: "2026-11-28T01:00:00Z",
    updatedAt: "2026-11-28T01:00:00Z",
    ...overrides,
  };
}

export function delivery(overrides: Partial<Delivery> = {}): Delivery {
  return {
    id: "d-1",
    eventId: "evt_0123456789abcdef0123456789abcdef",
    eventType: "user.created",
    status: "succeeded",
    attempts: 1,
    lastStatusCode: 200,
    lastError: null,
    nextAttemptAt: null,
    createdAt: "2026-11-28T01:00:00Z",
    deliveredAt: "2026-11-28T01:00:01Z",
    ...overrides,
  };
}
