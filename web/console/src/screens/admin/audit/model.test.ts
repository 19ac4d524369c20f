import { describe, expect, test } from "vitest";
import { type AuditRow, DELIVERY_ACTION, compactDetail, deliveryOf, instantOf, screenOf } from "./model";

const row = (changes: Partial<AuditRow>): AuditRow => ({
  id: 1,
  action: "user.update",
  status_code: 200,
  occurred_at: "2026-01-01T00:00:00Z",
  ip: null,
  actor: null,
  targetType: null,
  target: null,
  detail: {},
  ...changes,
});

describe("deliveryOf", () => {
  test("only back-channel deliveries have one", () => {
    expect(deliveryOf(row({}))).toBeNull();
  });

  test("delivered, failed with the error, or failed with the status", () => {
    const delivery = (detail: Record<string, unknown>, status_code = 200) =>
      deliveryOf(row({ action: DELIVERY_ACTION, status_code, detail }));
    expect(delivery({ delivered: true, uri: "https://rp/logout" })).toEqual({
      delivered: true,
      label: "delivered",
      uri: "https://rp/logout",
    });
    expect(delivery({ delivered: false, error: "timeout" })?.label).toBe("failed (timeout)");
    expect(delivery({ status_code: 500 })?.label).toBe("failed (500)");
    expect(delivery({}, 0)?.label).toBe("failed");
  });
});

describe("compactDetail", () => {
  test("name: value pairs; a delivery's own members are left out", () => {
    expect(compactDetail(row({ detail: { a: "x", b: 2, c: null } }))).toEqual({ text: "a: x · b: 2 · c: —", cut: false });
    expect(compactDetail(row({ action: DELIVERY_ACTION, detail: { uri: "u", sid: "s" } })).text).toBe("sid: s");
  });

  test("cut to the limit with an ellipsis", () => {
    expect(compactDetail(row({ detail: { text: "abcdefghij" } }), 8)).toEqual({ text: "text: a…", cut: true });
  });
});

describe("screenOf", () => {
  const id = "0b7f4a6c-1d2e-4f3a-8b9c-0d1e2f3a4b5c";
  test("the screen of a record the reader may open", () => {
    expect(screenOf("user", id, () => true)).toBe(`/console/admin/users/${id}`);
  });

  test("none without the scope, for unknown types or ids that are not UUIDs", () => {
    expect(screenOf("user", id, () => false)).toBeNull();
    expect(screenOf("session", id, () => true)).toBeNull();
    expect(screenOf("user", "alice", () => true)).toBeNull();
  });
});

test("instantOf turns a datetime-local value into an ISO instant", () => {
  expect(instantOf("")).toBeNull();
  expect(instantOf("nonsense")).toBeNull();
  expect(instantOf("2026-03-01T10:00")).toBe(new Date("2026-03-01T10:00").toISOString());
});
