import { expect, test } from "vitest";
import { keyErrors, keyMembers, keySourceOf, methodFor, methodsFor, parseJwks } from "./clientAuth";

test("a public client authenticates with none only; a confidential one never", () => {
  expect(methodsFor("public").map((m) => m.value)).toEqual(["none"]);
  expect(methodsFor("confidential").map((m) => m.value)).not.toContain("none");
  expect(methodFor("public", "private_key_jwt")).toBe("none");
  expect(methodFor("confidential", "none")).toBe("client_secret_basic");
  expect(methodFor("confidential", "private_key_jwt")).toBe("private_key_jwt");
});

test("the JWKS textarea must hold a JSON object", () => {
  expect(parseJwks('{"keys": []}')).toEqual({ jwks: { keys: [] } });
  expect("error" in parseJwks("{not json")).toBe(true);
  expect("error" in parseJwks("[1, 2]")).toBe(true);
  expect("error" in parseJwks("null")).toBe(true);
});

test("one source of keys is sent, the other cleared", () => {
  expect(keyMembers("jwks", '{"keys": [{"kty": "EC"}]}', "https://x")).toEqual({
    jwks: { keys: [{ kty: "EC" }] },
    jwks_uri: null,
  });
  expect(keyMembers("jwks_uri", "{}", " https://rp.example/jwks ")).toEqual({
    jwks: null,
    jwks_uri: "https://rp.example/jwks",
  });
  expect(keyMembers("", "{}", "https://x")).toEqual({ jwks: null, jwks_uri: null });
});

test("keys are checked before sending, named by the API's fields", () => {
  expect(keyErrors("jwks", "nope", "")).toHaveProperty("jwks");
  expect(keyErrors("jwks_uri", "", "  ")).toHaveProperty("jwks_uri");
  expect(keyErrors("jwks", '{"keys": []}', "")).toEqual({});
  expect(keyErrors("", "nope", "")).toEqual({});
});

test("the source shown for a stored client", () => {
  expect(keySourceOf({ jwks: { keys: [] }, jwks_uri: null })).toBe("jwks");
  expect(keySourceOf({ jwks: null, jwks_uri: "https://x" })).toBe("jwks_uri");
  expect(keySourceOf(undefined)).toBe("");
});
