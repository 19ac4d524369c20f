/**
 * A passkey as `GET /entity/passkeys` and `GET /admin/users/{id}/passkeys` both answer it
 * (`PasskeyRead`, issue #26), and the words the console shows for its facts.
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
      ? { text: "Synced", tone: "plain", title: "Kept by a password manager or an account, on every device it syncs to." }
      : { text: "This device only", tone: "plain", title: "Kept in one authenticator (this device or a security key)." },
  ];
  // The backup state (WebAuthn's BS flag) only means something for a synced passkey.
  if (passkey.synced) {
    badges.push(
      passkey.backedUp
        ? { text: "Backed up", tone: "ok", title: "Its platform has copied it off this device: losing the device does not lose it." }
        : { text: "Not backed up yet", tone: "plain", title: "It may be synced, but has not been copied off the device yet." },
    );
  }
  if (passkey.cloneSuspectedAt !== null) {
    badges.push({
      text: "Possibly copied",
      tone: "bad",
      title: "Its signature counter went backwards: a copy of this passkey may be in use. Remove it if in doubt.",
    });
  }
  return badges;
}

/** Limits of a passkey's name (the API's: 1 to 64 characters). */
export const PASSKEY_NAME_MAX = 64;

/** The local check of a name, or null when the API would take it. */
export function passkeyNameProblem(name: string): string | null {
  const trimmed = name.trim();
  if (trimmed === "") return "Enter a name for the passkey.";
  if (trimmed.length > PASSKEY_NAME_MAX) return `Use at most ${PASSKEY_NAME_MAX} characters.`;
  return null;
}
