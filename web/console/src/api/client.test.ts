import { describe, expect, test } from "vitest";
import { ApiError, NetworkError, describeError, stepUpAcrValues, stepUpMaxAge } from "./client";

describe("RFC 9470 step-up challenges", () => {
  const header = 'Bearer error="insufficient_user_authentication", max_age=300, acr_values="urn:a urn:b"';

  test("max_age of an insufficient_user_authentication challenge", () => {
    expect(stepUpMaxAge(header)).toBe(300);
    expect(stepUpMaxAge('Bearer error="insufficient_user_authentication"')).toBe(0);
    expect(stepUpMaxAge('Bearer error="invalid_token"')).toBeNull();
    expect(stepUpMaxAge(null)).toBeNull();
  });

  test("acr_values, when the challenge names any", () => {
    expect(stepUpAcrValues(header)).toBe("urn:a urn:b");
    expect(stepUpAcrValues('Bearer acr_values=" "')).toBeUndefined();
    expect(stepUpAcrValues(null)).toBeUndefined();
  });
});

describe("describeError", () => {
  test("the problem's detail, else its field messages, else its title", () => {
    expect(describeError(new ApiError(409, { detail: "Protected." }))).toBe("Protected.");
    expect(describeError(new ApiError(422, { errors: [{ field: "a", message: "A." }, { field: "b", message: "B." }] }))).toBe(
      "A. B.",
    );
    expect(describeError(new ApiError(500, {}))).toBe("The request failed (500).");
  });

  test("network failures and anything else", () => {
    expect(describeError(new NetworkError())).toMatch(/could not be reached/);
    expect(describeError(new Error("x"))).toBe("Something went wrong. Try again.");
  });

  test("ApiError.fieldMessage finds the message of one field", () => {
    const error = new ApiError(422, { errors: [{ field: "email", message: "Taken." }] });
    expect(error.fieldMessage("email")).toBe("Taken.");
    expect(error.fieldMessage("name")).toBeUndefined();
  });
});
