/**
 * The parts of a passkey list both the account screen and the administrator's view of a
 * person show: the badges and the columns of facts (name, kind, created, last used).
 */
import { type PasskeyRead, passkeyBadges } from "../api/passkeys";
import { type Column, formatTime } from "./table";

export function PasskeyBadges({ passkey }: { passkey: PasskeyRead }) {
  return (
    <>
      {passkeyBadges(passkey).map((badge) => (
        <span key={badge.text} className={badge.tone === "plain" ? "tag" : `tag ${badge.tone}`} title={badge.title}>
          {badge.text}
        </span>
      ))}
      {passkey.cloneSuspectedAt !== null ? (
        <span className="visually-hidden"> since {formatTime(passkey.cloneSuspectedAt)}</span>
      ) : null}
    </>
  );
}

/** The columns after the name: kind, created, last used ("Never" until its first sign-in). */
export function passkeyFactColumns(): Column<PasskeyRead>[] {
  return [
    { header: "Kind", cell: (passkey) => <PasskeyBadges passkey={passkey} /> },
    { header: "Created", cell: (passkey) => formatTime(passkey.createdAt) },
    { header: "Last used", cell: (passkey) => (passkey.lastUsedAt ? formatTime(passkey.lastUsedAt) : "Never") },
  ];
}
