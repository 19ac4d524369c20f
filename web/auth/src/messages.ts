/**
 * Wording shared by the screens, from the catalogue (src/i18n.ts), and what the page says
 * for a server problem: a `code` it knows has its own text in every language; an unknown
 * one shows the server's sentence as given.
 */
import { ApiError, NetworkError, type Problem } from "./api";
import { t } from "./i18n";

/** The message for a 429, with the wait taken from `Retry-After`. */
export function tooManyAttempts(seconds: number | null): string {
  if (seconds === null) {
    return t("error.tooManyAttemptsNoWait");
  }
  return t("error.tooManyAttempts", { seconds });
}

/** Texts of the problem codes the page knows, whatever the status. */
function knownCode(problem: Problem): string | null {
  switch (problem.code) {
    case "auth.totp_unavailable":
      return t("totp.unavailable");
    case "auth.session_mismatch":
      return t("consent.sessionMismatch");
    case "auth.device_code_invalid":
      return t("device.codeInvalid");
    case "auth.device_nothing_to_grant":
      return t("device.nothingToGrant");
    case "face.photo_unchecked":
      return t("face.error.unchecked");
    default:
      return null;
  }
}

/** A message for an error that no screen handles specifically. */
export function genericMessage(error: unknown): string {
  if (error instanceof NetworkError) {
    return t("error.network");
  }
  if (error instanceof ApiError && error.status === 429) {
    return tooManyAttempts(error.retryAfter);
  }
  if (error instanceof ApiError) {
    const known = knownCode(error.problem);
    if (known !== null) return known;
  }
  // Never a server detail here: an unexpected answer may say things not meant for people.
  return t("error.generic");
}

/** The face model's refusals (HTTP 422, `face.*`; idp_common.face.errors). */
export function faceProblem(code: string | undefined, serverText: string): string | null {
  switch (code) {
    case "face.no_face":
      return t("face.error.noFace");
    case "face.several_faces": {
      // The count is only in the server's sentence ("3 faces were found; …").
      const count = /^(\d+)\b/.exec(serverText.trim());
      return count ? t("face.error.severalFaces", { count: Number(count[1]) }) : t("face.error.moreThanOneFace");
    }
    case "face.too_small":
      return t("face.error.tooSmall");
    case "face.too_blurry":
      return t("face.error.tooBlurry");
    case "face.too_many_pixels":
      return t("face.error.tooManyPixels");
    case "face.unreadable_image":
      return t("face.error.unreadable");
    default:
      return null;
  }
}

/** The password policy's refusals (422 `auth.password_policy`, one message per reason). */
export function passwordProblem(code: string | undefined, serverText: string): string {
  if (code !== "auth.password_policy") return serverText;
  if (serverText.startsWith("is too common")) return t("resetConfirm.tooCommon");
  if (serverText.startsWith("must not contain")) return t("resetConfirm.containsName");
  return serverText;
}
