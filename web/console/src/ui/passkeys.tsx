/**
 * The parts of a passkey list both the account screen and the administrator's view of a
 * person show: the badges and the columns of facts (name, kind, created, last used).
 */
import { type PasskeyRead, passkeyBadges } from "../api/passkeys";
import { t } from "../i18n";
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
        <span className="visually-hidden"> {t("ui.passkeys.since", { time: formatTime(passkey.cloneSuspectedAt) })}</span>
      ) : null}
    </>
  );
}

/** The columns after the name: kind, created, last used ("Never" until its first sign-in);
 * with ``counter``, the authenticator's signature counter (the administrator's view: a
 * copy shows as a counter that went back). */
export function passkeyFactColumns({ counter = false }: { counter?: boolean } = {}): Column<PasskeyRead>[] {
  const columns: Column<PasskeyRead>[] = [
    { header: t("ui.passkeys.kind"), cell: (passkey) => <PasskeyBadges passkey={passkey} /> },
    { header: t("ui.passkeys.created"), cell: (passkey) => formatTime(passkey.createdAt) },
    { header: t("ui.passkeys.lastUsed"), cell: (passkey) => (passkey.lastUsedAt ? formatTime(passkey.lastUsedAt) : t("ui.passkeys.never")) },
  ];
  if (counter) {
    columns.push({ header: t("ui.passkeys.signCounter"), cell: (passkey) => String(passkey.signCount) });
  }
  return columns;
}
