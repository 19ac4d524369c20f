/**
 * "Passkeys" (issue #26): the person's passkeys (`GET /entity/passkeys`: name, created,
 * last used, synced or bound to one device, a warning when a copy is suspected), adding
 * one (screens/account/passkeys/register.ts), renaming one in its row
 * (`PATCH /entity/passkeys/{id}`) and removing one (`DELETE`, after asking). Adding and
 * removing need a recent sign-in: the API's 403 sends the person through sign-in again
 * (api/client.ts), and they repeat the change.
 */
import { useState } from "react";
import { del, get, patch } from "../../api/client";
import { PASSKEY_NAME_MAX, type PasskeyList, type PasskeyRead, passkeyNameProblem } from "../../api/passkeys";
import { hasScope } from "../../auth/session";
import { Panel, Screen } from "../../ui/Screen";
import { ConfirmButton } from "../../ui/dialog";
import { Form, SubmitRow, TextField, useSubmit } from "../../ui/form";
import { Loaded, useLoad } from "../../ui/load";
import { passkeyFactColumns } from "../../ui/passkeys";
import { type Column, DataTable, Notice, rowLabel } from "../../ui/table";
import { PasskeyCancelled, registerPasskey } from "./passkeys/register";

const DEFAULT_NAME = "Passkey";

function AddPasskey({ onAdded, onCancelled }: { onAdded: (passkey: PasskeyRead) => void; onCancelled: () => void }) {
  const [name, setName] = useState(DEFAULT_NAME);
  const submission = useSubmit(
    async () => {
      try {
        onAdded(await registerPasskey(name));
        setName(DEFAULT_NAME);
      } catch (error) {
        if (error instanceof PasskeyCancelled) {
          onCancelled();
          return;
        }
        throw error;
      }
    },
    () => {
      const problem = passkeyNameProblem(name);
      return problem ? { name: problem } : {};
    },
  );
  return (
    <Form submission={submission} label="Add a passkey">
      <TextField
        label="Passkey name"
        hint="To tell your passkeys apart, for example “Work laptop” or “Phone”."
        error={submission.fieldError("name")}
        type="text"
        autoComplete="off"
        maxLength={PASSKEY_NAME_MAX}
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
      />
      <SubmitRow submission={submission} busyLabel="Waiting for your passkey…">
        Add a passkey
      </SubmitRow>
    </Form>
  );
}

/** The name cell while it is being changed: a small form in the row. */
function RenameForm({
  passkey,
  onDone,
  onCancel,
}: {
  passkey: PasskeyRead;
  onDone: (renamed: PasskeyRead) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(passkey.name);
  const submission = useSubmit(
    async () => {
      onDone(await patch<PasskeyRead>(`/entity/passkeys/${encodeURIComponent(passkey.id)}`, { name: name.trim() }));
    },
    () => {
      const problem = passkeyNameProblem(name);
      return problem ? { name: problem } : {};
    },
  );
  return (
    <Form submission={submission} label={`Rename ${passkey.name}`} className="form inline-rename">
      <TextField
        label="New name"
        error={submission.fieldError("name")}
        type="text"
        autoComplete="off"
        maxLength={PASSKEY_NAME_MAX}
        value={name}
        autoFocus
        onChange={(event) => setName(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape") onCancel();
        }}
      />
      <div className="row-actions">
        <button type="submit" className="button primary" disabled={submission.busy}>
          {submission.busy ? "Saving…" : "Save name"}
        </button>
        <button type="button" className="button" onClick={onCancel} disabled={submission.busy}>
          Cancel
        </button>
      </div>
    </Form>
  );
}

function PasskeyTable({
  passkeys,
  canWrite,
  onChange,
}: {
  passkeys: PasskeyRead[];
  canWrite: boolean;
  onChange: (notice: string) => void;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  const columns: Column<PasskeyRead>[] = [
    {
      header: "Name",
      rowHeader: true,
      cell: (passkey) =>
        editing === passkey.id ? (
          <RenameForm
            passkey={passkey}
            onCancel={() => setEditing(null)}
            onDone={(renamed) => {
              setEditing(null);
              onChange(`The passkey is now called “${renamed.name}”.`);
            }}
          />
        ) : (
          passkey.name
        ),
    },
    ...passkeyFactColumns(),
  ];
  if (canWrite) {
    columns.push({
      header: "Actions",
      cell: (passkey) => (
        <div className="row-actions">
          {editing === passkey.id ? null : (
            <button type="button" className="button" onClick={() => setEditing(passkey.id)}>
              {rowLabel("Rename", passkey.name)}
            </button>
          )}
          <ConfirmButton
            label={rowLabel("Remove", passkey.name)}
            title={`Remove the passkey “${passkey.name}”?`}
            confirmLabel="Remove passkey"
            onConfirm={async () => {
              await del(`/entity/passkeys/${encodeURIComponent(passkey.id)}`);
              onChange(`The passkey “${passkey.name}” was removed.`);
            }}
          >
            <p>
              You can no longer sign in with it. The copy on the device or in the password manager stays there until
              you delete it there too.
            </p>
          </ConfirmButton>
        </div>
      ),
    });
  }
  return (
    <DataTable
      caption="Your passkeys"
      columns={columns}
      rows={passkeys}
      rowKey={(passkey) => passkey.id}
      empty="You have no passkeys yet."
    />
  );
}

export function PasskeysScreen(_props: { params: Record<string, string> }) {
  const canWrite = hasScope("idp:account:write");
  const { state, reload } = useLoad((signal) => get<PasskeyList>("/entity/passkeys", undefined, signal), []);
  const [notice, setNotice] = useState<string | null>(null);
  const changed = (text: string): void => {
    setNotice(text);
    reload();
  };
  return (
    <Screen
      title="Passkeys"
      intro="Sign in with your fingerprint, face or screen lock instead of a password. A passkey cannot be phished: it works only on this provider's pages."
    >
      {notice ? <Notice>{notice}</Notice> : null}
      <Loaded state={state} reload={reload}>
        {(list) => (
          <Panel title="Your passkeys">
            <PasskeyTable passkeys={list.items} canWrite={canWrite} onChange={changed} />
          </Panel>
        )}
      </Loaded>
      {canWrite ? (
        <Panel title="Add a passkey" id="passkey-add">
          <p>Your browser asks where to keep it: on this device, your phone, a password manager or a security key.</p>
          <AddPasskey
            onAdded={(passkey) => changed(`The passkey “${passkey.name}” was added. You can sign in with it now.`)}
            onCancelled={() => setNotice("No passkey was added: the prompt was closed before it finished.")}
          />
        </Panel>
      ) : null}
    </Screen>
  );
}
