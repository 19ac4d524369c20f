/**
 * Whether a client may be used (`disabled` of `/admin/clients`): its status as a tag (the
 * list, the facts) and, for a writer, the switch "Enabled" of its screen. Switching it off
 * asks first, naming what stops (its sign-ins and tokens); switching it on again asks
 * nothing. A refusal (the console's own client cannot be disabled: the provider's 422
 * sentence) is shown in the question, the switch staying on.
 */
import { useId, useState } from "react";
import { Button, Dialog, Heading, Modal, ModalOverlay } from "react-aria-components";
import { describeError, patch } from "../../../api/client";
import { t } from "../../../i18n";
import { Panel } from "../../../ui/Screen";
import { type Client, seg } from "../catalogue/common";

/** "Enabled" or "Disabled", as a tag. */
export function ClientStatusTag({ disabled }: { disabled: boolean }) {
  return disabled ? (
    <span className="tag bad">{t("admin-directory.clients.disabled")}</span>
  ) : (
    <span className="tag ok">{t("admin-directory.clients.enabled")}</span>
  );
}

export function ClientEnabled({ client, onChange }: { client: Client; onChange: () => void }) {
  const id = useId();
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const save = async (disabled: boolean): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await patch<Client>(`/admin/clients/${seg(client.client_id)}`, { disabled });
      setAsking(false);
      onChange();
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(false);
    }
  };
  const close = (): void => {
    setAsking(false);
    setError(null);
  };
  return (
    <Panel title={t("admin-directory.clients.status")} id="client-status">
      <p className="hint" id={`${id}-hint`}>
        {t("admin-directory.clients.enabledHint")}
      </p>
      <div className="switch">
        <input
          id={id}
          type="checkbox"
          role="switch"
          checked={!client.disabled}
          disabled={busy}
          aria-describedby={error && !asking ? `${id}-hint ${id}-error` : `${id}-hint`}
          onChange={(event) => (event.currentTarget.checked ? void save(false) : setAsking(true))}
        />
        <label htmlFor={id}>{t("admin-directory.clients.enabled")}</label>
        {error && !asking ? (
          <p className="field-error" id={`${id}-error`}>
            {error}
          </p>
        ) : null}
      </div>
      <ModalOverlay
        className="overlay"
        isOpen={asking}
        isDismissable={!busy}
        onOpenChange={(open) => (open ? undefined : close())}
      >
        <Modal className="modal">
          <Dialog className="dialog" role="alertdialog">
            <Heading slot="title">{t("admin-directory.clients.disableQuestion", { name: client.name })}</Heading>
            <div className="dialog-body">
              <p>{t("admin-directory.clients.disableConsequence")}</p>
            </div>
            {error ? (
              <p className="form-errors" role="alert">
                {error}
              </p>
            ) : null}
            <div className="dialog-actions">
              <Button className="button" onPress={close} isDisabled={busy}>
                {t("common.cancel")}
              </Button>
              <Button className="button danger" onPress={() => void save(true)} isDisabled={busy}>
                {busy ? t("common.working") : t("admin-directory.clients.disableConfirm")}
              </Button>
            </div>
          </Dialog>
        </Modal>
      </ModalOverlay>
    </Panel>
  );
}
