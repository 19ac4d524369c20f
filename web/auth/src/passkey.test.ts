import { WebAuthnError, type AuthenticationResponseJSON, type PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { afterEach, describe, expect, test, vi } from "vitest";
import { ApiError, NetworkError, getChallenge, passkey, passkeyOptions } from "./api";
import {
  type Assertion,
  type CeremonyDeps,
  Superseded,
  ceremonyFailure,
  challengeExpired,
  getAssertion,
  passkeysPossibleAt,
} from "./passkey";

const OPTIONS: PublicKeyCredentialRequestOptionsJSON = {
  challenge: "Y2hhbGxlbmdl",
  timeout: 120000,
  rpId: "localhost",
  allowCredentials: [{ id: "Y3JlZA", type: "public-key", transports: ["internal"] }],
  userVerification: "preferred",
};

const CREDENTIAL: AuthenticationResponseJSON = {
  id: "Y3JlZA",
  rawId: "Y3JlZA",
  type: "public-key",
  response: { authenticatorData: "YQ", clientDataJSON: "Yw", signature: "cw", userHandle: "dQ" },
  clientExtensionResults: {},
};

/** A fetch that answers `answers` in turn and records every request. */
function stubFetch(...answers: Response[]) {
  const calls: { url: string; init: RequestInit }[] = [];
  vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    const answer = answers.shift();
    if (answer === undefined) throw new TypeError("no answer left");
    return answer;
  });
  return calls;
}

const jsonAnswer = (status: number, body: unknown, type = "application/json") =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": type } });

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("the sign-in API's passkey calls", () => {
  test("options: POST /passkey/options with the challenge, the options as they came", async () => {
    const calls = stubFetch(jsonAnswer(200, OPTIONS));
    expect(await passkeyOptions("ch-1")).toEqual(OPTIONS);
    expect(calls).toHaveLength(1);
    const [{ url, init }] = calls as [{ url: string; init: RequestInit }];
    expect(url).toBe("/api/v1/auth/passkey/options");
    expect(init.method).toBe("POST");
    expect(init.credentials).toBe("same-origin");
    expect(init.headers).toMatchObject({ "Content-Type": "application/json", Accept: "application/json" });
    expect(JSON.parse(String(init.body))).toEqual({ challenge: "ch-1" });
  });

  test("options without a challenge are not options", async () => {
    stubFetch(jsonAnswer(200, { rpId: "localhost" }));
    await expect(passkeyOptions("ch-1")).rejects.toBeInstanceOf(NetworkError);
  });

  test("answer: POST /passkey with the challenge and the credential; the step answer as /login's", async () => {
    const calls = stubFetch(jsonAnswer(200, { next: "done", redirectTo: "https://idp.example/oauth2/authorize?x=1" }));
    expect(await passkey("ch-1", CREDENTIAL)).toEqual({ next: "done", redirectTo: "https://idp.example/oauth2/authorize?x=1" });
    const [{ url, init }] = calls as [{ url: string; init: RequestInit }];
    expect(url).toBe("/api/v1/auth/passkey");
    expect(JSON.parse(String(init.body))).toEqual({ challenge: "ch-1", credential: CREDENTIAL });
  });

  test("a refusal is an ApiError with its problem", async () => {
    stubFetch(jsonAnswer(401, { code: "auth.invalid_credentials", title: "Unauthorized" }, "application/problem+json"));
    const error = await passkey("ch-1", CREDENTIAL).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(401);
    expect((error as ApiError).problem.code).toBe("auth.invalid_credentials");
  });

  test("the step 'passkey' is a step the page knows", async () => {
    stubFetch(jsonAnswer(200, { next: "passkey" }));
    expect(await passkey("ch-1", CREDENTIAL)).toEqual({ next: "passkey" });
  });

  test("the challenge says whether a passkey is offered (absent: not)", async () => {
    const base = { kind: "login", next: "totp", client: { client_id: "app", name: "App" }, scopes: [] };
    stubFetch(jsonAnswer(200, { ...base, passkey: true }), jsonAnswer(200, base));
    expect((await getChallenge("ch-1")).passkey).toBe(true);
    expect((await getChallenge("ch-1")).passkey).toBe(false);
  });
});

describe("getAssertion", () => {
  function deps(overrides: Partial<CeremonyDeps> = {}) {
    const started: Parameters<CeremonyDeps["start"]>[0][] = [];
    const used: CeremonyDeps = {
      options: vi.fn(async () => OPTIONS),
      start: vi.fn(async (options) => {
        started.push(options);
        return CREDENTIAL;
      }),
      now: () => 1000,
      ...overrides,
    };
    return { used, started };
  }

  test("the options of this challenge go to the browser as they came", async () => {
    const { used, started } = deps();
    expect(await getAssertion("ch-1", {}, used)).toEqual({ credential: CREDENTIAL, requestedAt: 1000, timeoutMs: 120000 });
    expect(used.options).toHaveBeenCalledWith("ch-1");
    expect(started).toEqual([{ optionsJSON: OPTIONS }]);
  });

  test("autofill asks for conditional mediation", async () => {
    const { used, started } = deps();
    await getAssertion("ch-1", { autofill: true }, used);
    expect(started).toEqual([{ optionsJSON: OPTIONS, useBrowserAutofill: true }]);
  });

  test("a ceremony no longer wanted when its options arrive never reaches the browser", async () => {
    const { used, started } = deps();
    await expect(getAssertion("ch-1", { autofill: true, stillWanted: () => false }, used)).rejects.toBeInstanceOf(Superseded);
    expect(started).toEqual([]);
  });

  test("options without a timeout are taken to last the API's 120 s", async () => {
    const { timeout: _, ...rest } = OPTIONS;
    const { used } = deps({ options: async () => rest });
    expect((await getAssertion("ch-1", {}, used)).timeoutMs).toBe(120000);
  });
});

describe("ceremonyFailure", () => {
  const domError = (name: string) => Object.assign(new Error(name), { name });

  test("a closed or timed-out prompt is cancelled", () => {
    const error = new WebAuthnError({ message: "x", code: "ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY", cause: domError("NotAllowedError") });
    expect(ceremonyFailure(error)).toBe("cancelled");
    expect(ceremonyFailure(domError("NotAllowedError"))).toBe("cancelled");
  });

  test("an aborted ceremony (the button took over, the screen changed) is superseded", () => {
    const error = new WebAuthnError({ message: "x", code: "ERROR_CEREMONY_ABORTED", cause: domError("AbortError") });
    expect(ceremonyFailure(error)).toBe("superseded");
    expect(ceremonyFailure(new Superseded())).toBe("superseded");
  });

  test("what the browser cannot do here is unavailable", () => {
    const error = new WebAuthnError({ message: "x", code: "ERROR_INVALID_DOMAIN", cause: domError("SecurityError") });
    expect(ceremonyFailure(error)).toBe("unavailable");
    expect(ceremonyFailure(new Error("WebAuthn is not supported in this browser"))).toBe("unavailable");
  });

  test("the API's and the network's errors are not the browser's", () => {
    expect(ceremonyFailure(new ApiError(401, {}, null))).toBeNull();
    expect(ceremonyFailure(new NetworkError())).toBeNull();
  });
});

describe("challengeExpired", () => {
  const assertion: Assertion = { credential: CREDENTIAL, requestedAt: 0, timeoutMs: 120_000 };

  test("a 401 for options older than their timeout: the autofill waited too long", () => {
    expect(challengeExpired(new ApiError(401, {}, null), assertion, 120_000)).toBe(true);
    expect(challengeExpired(new ApiError(401, {}, null), assertion, 119_999)).toBe(false);
  });

  test("the API's own code says so at any age", () => {
    expect(challengeExpired(new ApiError(401, { code: "passkey.challenge_unknown" }, null), assertion, 1)).toBe(true);
  });

  test("anything else is a real refusal", () => {
    expect(challengeExpired(new ApiError(429, {}, 5), assertion, 200_000)).toBe(false);
    expect(challengeExpired(new NetworkError(), assertion, 200_000)).toBe(false);
  });
});

describe("passkeysPossibleAt", () => {
  test("a domain name can be an RP id", () => {
    expect(passkeysPossibleAt("localhost")).toBe(true);
    expect(passkeysPossibleAt("id.example.com")).toBe(true);
    expect(passkeysPossibleAt("1.example.com")).toBe(true);
  });

  test("an IP address cannot: no passkey is offered there", () => {
    expect(passkeysPossibleAt("127.0.0.1")).toBe(false);
    expect(passkeysPossibleAt("[::1]")).toBe(false);
    expect(passkeysPossibleAt("::1")).toBe(false);
    expect(passkeysPossibleAt("")).toBe(false);
  });
});
