import { describe, expect, test } from "vitest";
import { readChallenge, readToken } from "./challenge";

describe("readChallenge", () => {
  test("answers the one challenge that looks like an id", () => {
    expect(readChallenge("?challenge=abc_DEF-123")).toBe("abc_DEF-123");
  });

  test.each([
    ["absent", ""],
    ["empty", "?challenge="],
    ["twice", "?challenge=a&challenge=b"],
    ["markup", "?challenge=%3Cb%3E"],
    ["a dot", "?challenge=a.b"],
    ["too long", `?challenge=${"a".repeat(257)}`],
  ])("refuses a challenge that is %s", (_why, search) => {
    expect(readChallenge(search)).toBeNull();
  });

  test("takes the longest id the provider issues", () => {
    expect(readChallenge(`?challenge=${"a".repeat(256)}`)).toBe("a".repeat(256));
  });
});

describe("readToken", () => {
  test("reads the token, not the challenge", () => {
    expect(readToken("?token=t0k3n&challenge=c")).toBe("t0k3n");
    expect(readToken("?challenge=c")).toBeNull();
  });
});
