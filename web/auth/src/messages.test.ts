import { describe, expect, test } from "vitest";
import { ApiError, NetworkError } from "./api";
import { genericMessage, tooManyAttempts } from "./messages";

describe("tooManyAttempts", () => {
  test("says the wait when Retry-After gave one", () => {
    expect(tooManyAttempts(1)).toBe("Too many attempts. Try again in 1 second.");
    expect(tooManyAttempts(12)).toBe("Too many attempts. Try again in 12 seconds.");
  });

  test("asks for a moment without one", () => {
    expect(tooManyAttempts(null)).toBe("Too many attempts. Wait a moment, then try again.");
  });
});

describe("genericMessage", () => {
  test("a network failure asks to check the connection", () => {
    expect(genericMessage(new NetworkError())).toMatch(/could not reach the server/);
  });

  test("a 429 tells the wait", () => {
    expect(genericMessage(new ApiError(429, {}, 5))).toBe("Too many attempts. Try again in 5 seconds.");
  });

  test("anything else is our fault, never a detail from the server", () => {
    expect(genericMessage(new ApiError(500, { detail: "stack trace" }, null))).toBe(
      "Something went wrong on our side. Try again in a moment.",
    );
    expect(genericMessage(new Error("boom"))).toBe("Something went wrong on our side. Try again in a moment.");
  });
});
