import { t } from "../i18n";

/**
 * A passkey as `GET /entity/passkeys` and `GET /admin/users/{id}/passkeys` both answer it
 * (`PasskeyRead`), and the words the console shows for its facts.
 */
export interface PasskeyRead {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** Backup eligible: the passkey is synced (a password manager, a phone's account). */
  synced: boolean;
  backedUp: boolean;
  userVerified: boolean;
  aaguid: string;
  signCount: number;
  transports: string[];
  /** Set when a signature counter went backwards: a copy of the key may exist. */
  cloneSuspectedAt: string | null;
}

/** `{items}` of both lists, oldest first. */
export interface PasskeyList {
  items: PasskeyRead[];
}

/** The badges of a passkey, in order: where it lives, then the warning if any. */
export function passkeyBadges(passkey: PasskeyRead): { text: string; tone: "ok" | "bad" | "plain"; title?: string }[] {
  const badges: { text: string; tone: "ok" | "bad" | "plain"; title?: string }[] = [
    passkey.synced
      ? { text: t("ui.passkeys.synced"), tone: "plain", title: t("ui.passkeys.syncedTitle") }
      : { text: t("ui.passkeys.deviceOnly"), tone: "plain", title: t("ui.passkeys.deviceOnlyTitle") },
  ];
  // The backup state (WebAuthn's BS flag) only means something for a synced passkey.
  if (passkey.synced) {
    badges.push(
      passkey.backedUp
        ? { text: t("ui.passkeys.backedUp"), tone: "ok", title: t("ui.passkeys.backedUpTitle") }
        : { text: t("ui.passkeys.notBackedUp"), tone: "plain", title: t("ui.passkeys.notBackedUpTitle") },
    );
  }
  if (passkey.cloneSuspectedAt !== null) {
    badges.push({
      text: t("ui.passkeys.copied"),
      tone: "bad",
      title: t("ui.passkeys.copiedTitle"),
    });
  }
  return badges;
}

/** Limits of a passkey's name (the API's: 1 to 64 characters). */
export const PASSKEY_NAME_MAX = 64;

/** The local check of a name, or null when the API would take it. */
export function passkeyNameProblem(name: string): string | null {
  const trimmed = name.trim();
  if (trimmed === "") return t("ui.passkeys.nameMissing");
  if (trimmed.length > PASSKEY_NAME_MAX) return t("ui.passkeys.nameTooLong", { max: PASSKEY_NAME_MAX });
  return null;
}
