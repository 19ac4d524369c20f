import { WebAuthnError, type PublicKeyCredentialCreationOptionsJSON, type RegistrationResponseJSON } from "@simplewebauthn/browser";
import { describe, expect, test, vi } from "vitest";
import { ApiError, describeError } from "../../../api/client";

const ALREADY_HERE =
  "This authenticator already holds a passkey for your account. Use another one, or keep the one you have.";
const NOT_POSSIBLE = "This browser could not create a passkey here. Try another browser or device, or a security key.";
import { PasskeyCancelled, type RegisterDeps, explainCeremony, registerPasskey } from "./register";

const OPTIONS = {
  challenge: "Y2hhbGxlbmdl",
  rp: { name: "IdP", id: "localhost" },
  user: { id: "dXNlcg", name: "a@example.com", displayName: "A" },
  pubKeyCredParams: [{ type: "public-key", alg: -7 }],
} satisfies PublicKeyCredentialCreationOptionsJSON;

const CREDENTIAL: RegistrationResponseJSON = {
  id: "Y3JlZA",
  rawId: "Y3JlZA",
  type: "public-key",
  response: { clientDataJSON: "Yw", attestationObject: "bw" },
  clientExtensionResults: {},
};

const domError = (name: string) => Object.assign(new Error(name), { name });

function deps(start: RegisterDeps["start"] = async () => CREDENTIAL) {
  const calls: { path: string; body: unknown }[] = [];
  const used: RegisterDeps = {
    post: async <T,>(path: string, body?: unknown): Promise<T> => {
      calls.push({ path, body });
      return (path.endsWith("registration-options") ? OPTIONS : { id: "p1", name: "Work laptop" }) as T;
    },
    start: vi.fn(start),
  };
  return { used, calls };
}

describe("registerPasskey", () => {
  test("options, the browser's prompt with them, then the name and the answer", async () => {
    const { used, calls } = deps();
    const added = await registerPasskey("  Work laptop ", used);
    expect(added).toMatchObject({ id: "p1" });
    expect(calls).toEqual([
      { path: "/entity/passkeys/registration-options", body: undefined },
      { path: "/entity/passkeys", body: { name: "Work laptop", credential: CREDENTIAL } },
    ]);
    expect(used.start).toHaveBeenCalledWith({ optionsJSON: OPTIONS });
  });

  test("a closed prompt adds nothing and says so quietly", async () => {
    const cause = domError("NotAllowedError");
    const { used, calls } = deps(async () => {
      throw new WebAuthnError({ message: "x", code: "ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY", cause });
    });
    await expect(registerPasskey("Phone", used)).rejects.toBeInstanceOf(PasskeyCancelled);
    expect(calls.map((c) => c.path)).toEqual(["/entity/passkeys/registration-options"]);
  });

  test("a step-up refusal of the options stops before any prompt", async () => {
    const { used } = deps();
    used.post = async () => {
      throw new ApiError(403, { code: "insufficient_user_authentication" });
    };
    await expect(registerPasskey("Phone", used)).rejects.toBeInstanceOf(ApiError);
    expect(used.start).not.toHaveBeenCalled();
  });
});

describe("explainCeremony", () => {
  test("an authenticator that already holds one for this account", () => {
    const error = new WebAuthnError({
      message: "x",
      code: "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED",
      cause: domError("InvalidStateError"),
    });
    expect(describeError(explainCeremony(error))).toBe(ALREADY_HERE);
  });

  test("cancelled, timed out or aborted", () => {
    expect(explainCeremony(domError("NotAllowedError"))).toBeInstanceOf(PasskeyCancelled);
    expect(explainCeremony(domError("AbortError"))).toBeInstanceOf(PasskeyCancelled);
  });

  test("anything else: this browser cannot here", () => {
    expect(describeError(explainCeremony(new Error("WebAuthn is not supported in this browser")))).toBe(NOT_POSSIBLE);
    const security = new WebAuthnError({ message: "x", code: "ERROR_INVALID_DOMAIN", cause: domError("SecurityError") });
    expect(describeError(explainCeremony(security))).toBe(NOT_POSSIBLE);
  });
});
