/**
 * The person's passkeys as an administrator sees them (`GET /admin/users/{id}/passkeys`,
 * issue #26): name, kind, created, last used, the warning when a copy is suspected; with
 * `idp:users:write`, "Remove" (`DELETE …/passkeys/{passkeyId}`, after asking), for a lost
 * device or a suspected copy. Adding one is the person's own doing (their console).
 */
import { useState } from "react";
import { del, get } from "../../../api/client";
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
    { header: "Name", rowHeader: true, cell: (passkey) => passkey.name },
    ...passkeyFactColumns({ counter: true }),
  ];
  if (canWrite) {
    columns.push({
      header: "Actions",
      cell: (passkey) => (
        <ConfirmButton
          label={rowLabel("Remove", passkey.name)}
          title={`Remove the passkey “${passkey.name}”?`}
          confirmLabel="Remove passkey"
          onConfirm={async () => {
            setNotice(null);
            await del(`${path}/${encodeURIComponent(passkey.id)}`);
            setNotice(`Passkey “${passkey.name}” removed.`);
            reload();
          }}
        >
          <p>{email} can no longer sign in with this passkey. They can add a new one from their account.</p>
        </ConfirmButton>
      ),
    });
  }
  return (
    <Panel title="Passkeys" id="user-passkeys">
      <Loaded state={state} reload={reload} label="Loading the passkeys…">
        {(list) => (
          <DataTable
            caption="Passkeys of this user"
            columns={columns}
            rows={list.items}
            rowKey={(passkey) => passkey.id}
            empty="No passkeys."
          />
        )}
      </Loaded>
      {notice ? <Notice>{notice}</Notice> : null}
    </Panel>
  );
}
