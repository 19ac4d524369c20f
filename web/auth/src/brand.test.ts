import { describe, expect, test } from "vitest";
import { safeColour, safeLink, safeLogo } from "./brand";

const ORIGIN = "https://idp.example";

describe("safeLogo", () => {
  test("only our origin's /media/brand/ over http(s)", () => {
    expect(safeLogo(`${ORIGIN}/media/brand/brand-ab12.png`, ORIGIN)).toBe(`${ORIGIN}/media/brand/brand-ab12.png`);
    expect(safeLogo("https://evil.example/media/brand/x.png", ORIGIN)).toBeNull();
    expect(safeLogo(`${ORIGIN}/media/avatars/x.png`, ORIGIN)).toBeNull();
    expect(safeLogo("javascript:alert(1)", ORIGIN)).toBeNull();
    expect(safeLogo("data:image/png;base64,AAAA", ORIGIN)).toBeNull();
    expect(safeLogo(null, ORIGIN)).toBeNull();
  });
});

describe("safeLink", () => {
  test("http(s) only", () => {
    expect(safeLink("https://acme.example/terms", ORIGIN)).toBe("https://acme.example/terms");
    expect(safeLink("http://localhost/privacy", ORIGIN)).toBe("http://localhost/privacy");
    expect(safeLink("javascript:alert(1)", ORIGIN)).toBeNull();
    expect(safeLink("mailto:x@acme.example", ORIGIN)).toBeNull();
  });
});

describe("safeColour", () => {
  test("#rrggbb only", () => {
    expect(safeColour("#0B5D1E")).toBe("#0b5d1e");
    expect(safeColour("red")).toBeNull();
    expect(safeColour("#fff")).toBeNull();
    expect(safeColour("#0b5d1e; background: url(x)")).toBeNull();
  });
});
