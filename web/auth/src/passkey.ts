/**
 * The passkey ceremony of a sign-in step: the options from the API, the
 * browser's WebAuthn prompt (`@simplewebauthn/browser`), and what a failure means for the
 * page. No DOM here: the screens (screens/passkey.ts, screens/login.ts) say it.
 *
 * One ceremony at a time: `startAuthentication` aborts the pending one through the
 * library's abort service, so the button cancels a waiting autofill ceremony by itself
 * (the autofill then fails as "superseded" and says nothing).
 */
import {
  WebAuthnAbortService,
  WebAuthnError,
  startAuthentication,
  type AuthenticationResponseJSON,
} from "@simplewebauthn/browser";
import { ApiError, passkeyOptions } from "./api";

/** The browser's answer, with when its options were asked for and how long they are meant to last. */
export interface Assertion {
  credential: AuthenticationResponseJSON;
  requestedAt: number;
  timeoutMs: number;
}

/** What the ceremony needs from the outside world (replaced in unit tests). */
export interface CeremonyDeps {
  options: typeof passkeyOptions;
  start: typeof startAuthentication;
  now: () => number;
}

const DEFAULT_DEPS: CeremonyDeps = { options: passkeyOptions, start: startAuthentication, now: () => Date.now() };

/** What the options say when they name no timeout; the API's is 120 s. */
const DEFAULT_TIMEOUT_MS = 120_000;

/** Thrown when a newer ceremony (the button) took over while the options were on their way. */
export class Superseded extends Error {
  constructor() {
    super("superseded");
    this.name = "Superseded";
  }
}

export interface CeremonyOptions {
  /** Conditional mediation: the passkeys are offered in the email field's autofill list. */
  autofill?: boolean;
  /** Asked once the options arrived: false when the screen no longer wants this ceremony. */
  stillWanted?: () => boolean;
}

/** Asks the API for the options, then the browser for a passkey's answer to them. */
export async function getAssertion(
  challengeId: string,
  options: CeremonyOptions = {},
  deps: CeremonyDeps = DEFAULT_DEPS,
): Promise<Assertion> {
  const requestedAt = deps.now();
  const optionsJSON = await deps.options(challengeId);
  if (options.stillWanted !== undefined && !options.stillWanted()) {
    throw new Superseded();
  }
  const credential = await deps.start(
    options.autofill === true ? { optionsJSON, useBrowserAutofill: true } : { optionsJSON },
  );
  return { credential, requestedAt, timeoutMs: optionsJSON.timeout ?? DEFAULT_TIMEOUT_MS };
}

/** Why the browser's part failed, in the page's terms; null when it is not the browser's. */
export type CeremonyFailure =
  /** The person closed the prompt, or it timed out (WebAuthn says NotAllowedError for both). */
  | "cancelled"
  /** Another ceremony or the page took over: nothing to tell the person. */
  | "superseded"
  /** The browser cannot do it here (no authenticator, wrong origin, unsupported). */
  | "unavailable";

function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : "";
}

export function ceremonyFailure(error: unknown): CeremonyFailure | null {
  if (error instanceof Superseded) {
    return "superseded";
  }
  if (error instanceof WebAuthnError) {
    if (error.code === "ERROR_CEREMONY_ABORTED") {
      return "superseded";
    }
    const cause = error.cause instanceof Error ? error.cause.name : "";
    return cause === "NotAllowedError" ? "cancelled" : "unavailable";
  }
  switch (nameOf(error)) {
    case "NotAllowedError":
      return "cancelled";
    case "AbortError":
      return "superseded";
    case "ApiError":
    case "NetworkError":
      return null;
    default:
      // startAuthentication throws plain Errors when WebAuthn or autofill is missing.
      return error instanceof Error ? "unavailable" : null;
  }
}

/**
 * Whether a refused answer is most likely an expired ceremony: the API says so by its
 * code, or (its 401 is the same for every cause) the options are older than they were
 * meant to last. An autofill ceremony can wait that long for the person.
 */
export function challengeExpired(error: unknown, assertion: Assertion, now: number = Date.now()): boolean {
  if (!(error instanceof ApiError) || (error.status !== 401 && error.status !== 422)) {
    return false;
  }
  if (error.problem.code === "passkey.challenge_unknown") {
    return true;
  }
  return error.status === 401 && now - assertion.requestedAt >= assertion.timeoutMs;
}

/**
 * Whether WebAuthn can work on a page at `hostname`: its RP id must be a domain, so a page
 * opened by IP address (`127.0.0.1`, `[::1]`) offers no passkey rather than one that fails.
 */
export function passkeysPossibleAt(hostname: string): boolean {
  if (hostname === "" || hostname.includes(":") || hostname.startsWith("[")) {
    return false;
  }
  return !/^\d{1,3}(\.\d{1,3}){3}$/.test(hostname);
}

/** Ends the pending ceremony, if any (the page moves to another screen). */
export function cancelCeremony(): void {
  WebAuthnAbortService.cancelCeremony();
}
