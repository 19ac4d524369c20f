import { describe, expect, test } from "vitest";
import {
  allState,
  appendPage,
  changesOf,
  endpointProblems,
  endpointTitle,
  families,
  lastOutcome,
  orderedTypes,
  replaceRow,
  shortEventId,
  toggleAll,
  valuesOf,
  whenOf,
} from "./model";
import { delivery, endpoint } from "./testing";

const CATALOGUE = ["user.created", "user.deleted", "signin.failed"];

describe("what a change sends", () => {
  test("only the members that changed; event types compared as a set; text trimmed", () => {
    const e = endpoint({ eventTypes: ["user.created", "user.updated"] });
    expect(changesOf(e, valuesOf(e))).toEqual({});
    expect(changesOf(e, { ...valuesOf(e), eventTypes: ["user.updated", "user.created"] })).toEqual({});
    expect(changesOf(e, { ...valuesOf(e), url: ` ${e.url} `, description: "New" })).toEqual({ description: "New" });
    expect(changesOf(e, { ...valuesOf(e), eventTypes: ["user.created"], enabled: false })).toEqual({
      eventTypes: ["user.created"],
      enabled: false,
    });
  });

  test("a URL and one event type are needed before anything is sent", () => {
    expect(endpointProblems(valuesOf())).toEqual({
      url: "Enter the URL that receives the events.",
      eventTypes: "Choose at least one event type.",
    });
    expect(endpointProblems({ ...valuesOf(), url: "https://x.test/", eventTypes: ["user.created"] })).toEqual({});
    expect(valuesOf().enabled).toBe(true);
  });
});

test("an endpoint's screen is titled by its host", () => {
  expect(endpointTitle(endpoint({ url: "https://hooks.example.test:8443/a/b?c=d" }))).toBe(
    "Webhook to hooks.example.test:8443",
  );
  expect(endpointTitle(endpoint({ url: "not a url" }))).toBe("Webhook endpoint");
});

describe("choosing event types", () => {
  test("in the catalogue's order; types it no longer lists are kept at the end", () => {
    expect(orderedTypes(CATALOGUE, ["signin.failed", "old.type", "user.created"])).toEqual([
      "user.created",
      "signin.failed",
      "old.type",
    ]);
  });

  test("All event types: every type, then none (an old type stays until unticked)", () => {
    expect(toggleAll(CATALOGUE, ["user.deleted"])).toEqual(CATALOGUE);
    expect(toggleAll(CATALOGUE, CATALOGUE)).toEqual([]);
    expect(toggleAll(CATALOGUE, [...CATALOGUE, "old.type"])).toEqual(["old.type"]);
    expect([allState(CATALOGUE, []), allState(CATALOGUE, ["user.created"]), allState(CATALOGUE, CATALOGUE)]).toEqual([
      "none",
      "some",
      "all",
    ]);
  });

  test("grouped by the part before the dot", () => {
    expect(families(CATALOGUE)).toEqual([
      { family: "user", types: ["user.created", "user.deleted"] },
      { family: "signin", types: ["signin.failed"] },
    ]);
  });
});

describe("the delivery log", () => {
  test("the last answer: status code, error, both, or nothing yet", () => {
    expect(lastOutcome(delivery({ lastStatusCode: 200 }))).toBe("HTTP 200");
    expect(lastOutcome(delivery({ lastStatusCode: null, lastError: "timeout" }))).toBe("timeout");
    expect(lastOutcome(delivery({ lastStatusCode: 503, lastError: "Service Unavailable" }))).toBe(
      "HTTP 503: Service Unavailable",
    );
    expect(lastOutcome(delivery({ lastStatusCode: null, lastError: null }))).toBe("—");
  });

  test("an event id is cut to evt_ and 8 characters; a short one is shown whole", () => {
    expect(shortEventId("evt_0123456789abcdef0123456789abcdef")).toBe("evt_01234567…");
    expect(shortEventId("evt_ffff")).toBe("evt_ffff");
  });

  test("delivered, next attempt, or given up", () => {
    expect(whenOf(delivery())).toEqual({ label: "Delivered", at: "2026-11-28T01:00:01Z" });
    expect(whenOf(delivery({ status: "pending", deliveredAt: null, nextAttemptAt: "t" }))).toEqual({
      label: "Next attempt",
      at: "t",
    });
    expect(whenOf(delivery({ status: "failed", deliveredAt: null }))).toEqual({ label: "Gave up", at: null });
  });

  test("a next page joins under the rows, each row once; a resent row is replaced in place", () => {
    const a = delivery({ id: "a" });
    const b = delivery({ id: "b" });
    const c = delivery({ id: "c" });
    expect(appendPage([a, b], [b, c]).map((d) => d.id)).toEqual(["a", "b", "c"]);
    const again = delivery({ id: "b", status: "pending" });
    expect(replaceRow([a, b, c], again)).toEqual([a, again, c]);
  });
});
