/**
 * A button that opens a small form in a modal dialog (React Aria Components: focus trapped,
 * Escape closes, focus back on the button). `children` gets `close` to call after a save.
 */
import type { ReactNode } from "react";
import { useState } from "react";
import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from "react-aria-components";

export function FormDialog({
  label,
  title,
  children,
  className = "button",
}: {
  /** The button's text; an accessible name that says what it edits ("Edit app:notes:read"). */
  label: ReactNode;
  title: string;
  children: (close: () => void) => ReactNode;
  className?: string;
}) {
  const [open, setOpen] = useState(false);
  return (
    <DialogTrigger isOpen={open} onOpenChange={setOpen}>
      <Button className={className}>{label}</Button>
      <ModalOverlay className="overlay" isDismissable>
        <Modal className="modal">
          <Dialog className="dialog">
            <Heading slot="title">{title}</Heading>
            {children(() => setOpen(false))}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
