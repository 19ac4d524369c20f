/**
 * The person's passkeys as an administrator sees them (`GET /admin/users/{id}/passkeys`):
 * name, kind, created, last used, the warning when a copy is suspected; with
 * `idp:users:write`, "Remove" (`DELETE …/passkeys/{passkeyId}`, after asking), for a lost
 * device or a suspected copy. Adding one is the person's own doing (their console).
 */
import { useState } from "react";
import { del, get } from "../../../api/client";
import { t } from "../../../i18n";
import type { PasskeyList, PasskeyRead } from "../../../api/passkeys";
import { Panel } from "../../../ui/Screen";
import { ConfirmButton } from "../../../ui/dialog";
import { Loaded, useLoad } from "../../../ui/load";
import { passkeyFactColumns } from "../../../ui/passkeys";
import { type Column, DataTable, Notice, rowLabel } from "../../../ui/table";
import { userPath } from "./model";

export function Passkeys({ userId, email, canWrite }: { userId: string; email: string; canWrite: boolean }) {
  const path = `${userPath(userId)}/passkeys`;
  const { state, reload } = useLoad((signal) => get<PasskeyList>(path, undefined, signal), [path]);
  const [notice, setNotice] = useState<string | null>(null);
  const columns: Column<PasskeyRead>[] = [
    { header: t("admin-directory.passkeys.name"), rowHeader: true, cell: (passkey) => passkey.name },
    ...passkeyFactColumns({ counter: true }),
  ];
  if (canWrite) {
    columns.push({
      header: t("admin-directory.passkeys.actions"),
      cell: (passkey) => (
        <ConfirmButton
          label={rowLabel(t("admin-directory.passkeys.remove"), passkey.name)}
          title={t("admin-directory.passkeys.removeQuestion", { name: passkey.name })}
          confirmLabel={t("admin-directory.passkeys.removeConfirm")}
          onConfirm={async () => {
            setNotice(null);
            await del(`${path}/${encodeURIComponent(passkey.id)}`);
            setNotice(t("admin-directory.passkeys.removed", { name: passkey.name }));
            reload();
          }}
        >
          <p>{t("admin-directory.passkeys.removeConsequence", { email })}</p>
        </ConfirmButton>
      ),
    });
  }
  return (
    <Panel title={t("admin-directory.passkeys.title")} id="user-passkeys">
      <Loaded state={state} reload={reload} label={t("admin-directory.passkeys.loading")}>
        {(list) => (
          <DataTable
            caption={t("admin-directory.passkeys.caption")}
            columns={columns}
            rows={list.items}
            rowKey={(passkey) => passkey.id}
            empty={t("admin-directory.passkeys.empty")}
          />
        )}
      </Loaded>
      {notice ? <Notice>{notice}</Notice> : null}
    </Panel>
  );
}
