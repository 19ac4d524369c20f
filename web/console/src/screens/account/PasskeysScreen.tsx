/**
 * "Passkeys": the person's passkeys (`GET /entity/passkeys`: name, created,
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
import { t } from "../../i18n";
import { Panel, Screen } from "../../ui/Screen";
import { ConfirmButton } from "../../ui/dialog";
import { Form, SubmitRow, TextField, useSubmit } from "../../ui/form";
import { Loaded, useLoad } from "../../ui/load";
import { passkeyFactColumns } from "../../ui/passkeys";
import { type Column, DataTable, Notice, rowLabel } from "../../ui/table";
import { PasskeyCancelled, registerPasskey } from "./passkeys/register";


function AddPasskey({ onAdded, onCancelled }: { onAdded: (passkey: PasskeyRead) => void; onCancelled: () => void }) {
  const [name, setName] = useState(() => t("account.passkeys.defaultName"));
  const submission = useSubmit(
    async () => {
      try {
        onAdded(await registerPasskey(name));
        setName(t("account.passkeys.defaultName"));
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
    <Form submission={submission} label={t("account.passkeys.add")}>
      <TextField
        label={t("account.passkeys.name")}
        hint={t("account.passkeys.nameHint")}
        error={submission.fieldError("name")}
        type="text"
        autoComplete="off"
        maxLength={PASSKEY_NAME_MAX}
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
      />
      <SubmitRow submission={submission} busyLabel={t("account.passkeys.waiting")}>
        {t("account.passkeys.add")}
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
    <Form submission={submission} label={t("account.passkeys.renameLabel", { name: passkey.name })} className="form inline-rename">
      <TextField
        label={t("account.passkeys.newName")}
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
          {submission.busy ? t("common.saving") : t("account.passkeys.saveName")}
        </button>
        <button type="button" className="button" onClick={onCancel} disabled={submission.busy}>
          {t("common.cancel")}
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
      header: t("account.passkeys.nameColumn"),
      rowHeader: true,
      cell: (passkey) =>
        editing === passkey.id ? (
          <RenameForm
            passkey={passkey}
            onCancel={() => setEditing(null)}
            onDone={(renamed) => {
              setEditing(null);
              onChange(t("account.passkeys.renamed", { name: renamed.name }));
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
      header: t("account.actions"),
      cell: (passkey) => (
        <div className="row-actions">
          {editing === passkey.id ? null : (
            <button type="button" className="button" onClick={() => setEditing(passkey.id)}>
              {rowLabel(t("account.passkeys.rename"), passkey.name)}
            </button>
          )}
          <ConfirmButton
            label={rowLabel(t("account.passkeys.removeShort"), passkey.name)}
            title={t("account.passkeys.removeQuestion", { name: passkey.name })}
            confirmLabel={t("account.passkeys.remove")}
            onConfirm={async () => {
              await del(`/entity/passkeys/${encodeURIComponent(passkey.id)}`);
              onChange(t("account.passkeys.removed", { name: passkey.name }));
            }}
          >
            <p>{t("account.passkeys.removeText")}</p>
          </ConfirmButton>
        </div>
      ),
    });
  }
  return (
    <DataTable
      caption={t("account.passkeys.yours")}
      columns={columns}
      rows={passkeys}
      rowKey={(passkey) => passkey.id}
      empty={t("account.passkeys.empty")}
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
      title={t("account.passkeys.title")}
      intro={t("account.passkeys.intro")}
    >
      {notice ? <Notice>{notice}</Notice> : null}
      <Loaded state={state} reload={reload}>
        {(list) => (
          <Panel title={t("account.passkeys.yours")}>
            <PasskeyTable passkeys={list.items} canWrite={canWrite} onChange={changed} />
          </Panel>
        )}
      </Loaded>
      {canWrite ? (
        <Panel title={t("account.passkeys.add")} id="passkey-add">
          <p>{t("account.passkeys.where")}</p>
          <AddPasskey
            onAdded={(passkey) => changed(t("account.passkeys.added", { name: passkey.name }))}
            onCancelled={() => setNotice(t("account.passkeys.cancelled"))}
          />
        </Panel>
      ) : null}
    </Screen>
  );
}
