import { describe, expect, test } from "vitest";
import { parseRetryAfter } from "./api";

describe("parseRetryAfter (RFC 9110 §10.2.3)", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");

  test("no header is no wait", () => {
    expect(parseRetryAfter(null, now)).toBeNull();
  });

  test("delta-seconds", () => {
    expect(parseRetryAfter(" 30 ", now)).toBe(30);
  });

  test("an HTTP date, rounded up to whole seconds", () => {
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:01:00 GMT", now)).toBe(60);
    expect(parseRetryAfter(new Date(now + 1500).toUTCString(), now - 500)).toBe(2);
  });

  test("a date in the past is no wait; garbage is unknown", () => {
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeNull();
  });
});
