import { describe, expect, test } from "vitest";
import { formatUserCode, normaliseUserCode, readUserCode } from "./device-code";

describe("normaliseUserCode (RFC 8628 §6.1)", () => {
  test.each([
    ["BCDF-GHJK", "BCDFGHJK"],
    ["bcdf-ghjk", "BCDFGHJK"],
    [" bcdf ghjk ", "BCDFGHJK"],
    ["BC-DF-GH-JK", "BCDFGHJK"],
  ])("%j is %j", (typed, code) => {
    expect(normaliseUserCode(typed)).toBe(code);
  });

  test.each(["", "BCDF-GHJ", "BCDF-GHJKL", "ABCD-GHJK", "BCD1-GHJK", "BCDF_GHJK", "-".repeat(40)])(
    "%j is no code",
    (typed) => {
      expect(normaliseUserCode(typed)).toBeNull();
    },
  );
});

test("formatUserCode shows two halves", () => {
  expect(formatUserCode("BCDFGHJK")).toBe("BCDF-GHJK");
});

describe("readUserCode", () => {
  test("reads the parameter of verification_uri_complete", () => {
    expect(readUserCode("?user_code=bcdf-ghjk")).toBe("BCDF-GHJK");
    expect(readUserCode("?user_code=BCDF%20GHJK")).toBe("BCDF-GHJK");
  });

  test("ignores a missing, repeated or malformed one", () => {
    expect(readUserCode("")).toBeNull();
    expect(readUserCode("?user_code=BCDF-GHJK&user_code=BCDF-GHJK")).toBeNull();
    expect(readUserCode("?user_code=<script>")).toBeNull();
  });
});
