import { describe, expect, test } from "vitest";
import { type PasskeyRead, passkeyBadges, passkeyNameProblem } from "./passkeys";

const PASSKEY: PasskeyRead = {
  id: "p1",
  name: "Work laptop",
  createdAt: "2026-01-01T00:00:00Z",
  lastUsedAt: null,
  synced: false,
  backedUp: false,
  userVerified: true,
  aaguid: "00000000-0000-0000-0000-000000000000",
  signCount: 0,
  transports: ["internal"],
  cloneSuspectedAt: null,
};

describe("passkeyBadges", () => {
  test("synced or bound to one device", () => {
    expect(passkeyBadges(PASSKEY).map((b) => b.text)).toEqual(["This device only"]);
    expect(passkeyBadges({ ...PASSKEY, synced: true }).map((b) => b.text)).toEqual(["Synced", "Not backed up yet"]);
    expect(passkeyBadges({ ...PASSKEY, synced: true, backedUp: true }).map((b) => b.text)).toEqual([
      "Synced",
      "Backed up",
    ]);
  });

  test("a suspected copy adds a warning", () => {
    const badges = passkeyBadges({ ...PASSKEY, cloneSuspectedAt: "2026-02-01T00:00:00Z" });
    expect(badges.map((b) => [b.text, b.tone])).toEqual([
      ["This device only", "plain"],
      ["Possibly copied", "bad"],
    ]);
  });
});

describe("passkeyNameProblem", () => {
  test("1 to 64 characters once trimmed, as the API takes them", () => {
    expect(passkeyNameProblem("Phone")).toBeNull();
    expect(passkeyNameProblem("   ")).toBe("Enter a name for the passkey.");
    expect(passkeyNameProblem("x".repeat(64))).toBeNull();
    expect(passkeyNameProblem("x".repeat(65))).toBe("Use at most 64 characters.");
  });
});
