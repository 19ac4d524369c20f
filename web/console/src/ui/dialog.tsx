/**
 * Dialogs from React Aria Components: focus is trapped inside and returns to the button
 * that opened it, Escape closes, the rest of the page is inert.
 */
import { type ReactNode, useState } from "react";
import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from "react-aria-components";
import { describeError } from "../api/client";
import { t } from "../i18n";

/**
 * A button that asks before doing something that cannot be undone ("Delete", "End all
 * sessions"). `onConfirm` runs when the person confirms; its error is shown in the dialog.
 */
export function ConfirmButton({
  label,
  title,
  children,
  confirmLabel,
  onConfirm,
  danger = true,
  className,
}: {
  label: ReactNode;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<void>;
  danger?: boolean;
  className?: string;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const confirm = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      setOpen(false);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <DialogTrigger
      isOpen={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) setError(null);
      }}
    >
      <Button className={className ?? (danger ? "button danger" : "button")}>{label}</Button>
      <ModalOverlay className="overlay" isDismissable={!busy}>
        <Modal className="modal">
          <Dialog className="dialog" role="alertdialog">
            <Heading slot="title">{title}</Heading>
            <div className="dialog-body">{children}</div>
            {error ? (
              <p className="form-errors" role="alert">
                {describeError(error)}
              </p>
            ) : null}
            <div className="dialog-actions">
              <Button className="button" onPress={() => setOpen(false)} isDisabled={busy}>
                {t("common.cancel")}
              </Button>
              <Button
                className={danger ? "button danger" : "button primary"}
                onPress={() => void confirm()}
                isDisabled={busy}
              >
                {busy ? t("common.working") : confirmLabel}
              </Button>
            </div>
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}

/**
 * Shows a value the provider reveals once (a client secret, recovery codes) in a dialog
 * that says so; closing it is the person's acknowledgement.
 */
export function RevealOnce({
  title,
  explanation,
  value,
  onClose,
}: {
  title: string;
  explanation: ReactNode;
  value: ReactNode;
  onClose: () => void;
}) {
  return (
    <ModalOverlay className="overlay" isOpen onOpenChange={(open) => (open ? undefined : onClose())}>
      <Modal className="modal">
        <Dialog className="dialog">
          <Heading slot="title">{title}</Heading>
          <div className="dialog-body">
            <p>{explanation}</p>
            <div className="secret" data-testid="revealed-value">
              {value}
            </div>
          </div>
          <div className="dialog-actions">
            <Button className="button primary" onPress={onClose}>
              {t("ui.dialog.savedIt")}
            </Button>
          </div>
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
