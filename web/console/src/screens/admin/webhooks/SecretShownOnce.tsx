/**
 * A webhook endpoint's signing secret (`whsec_…`), shown once after a creation or a rotation
 * in the dialog client secrets use ({@link RevealOnce}), with a "Copy" button. Where the
 * clipboard is refused (an insecure context, a denied permission) the secret is selected
 * so the keyboard's copy works.
 */
import { useRef, useState } from "react";
import { RevealOnce } from "../../../ui/dialog";

export const SECRET_ONCE =
  "Copy the signing secret now and give it to the receiver, which checks each request's signature with it. You will not see it again: if it is lost, rotate it.";

export function SecretShownOnce({ title, secret, onClose }: { title: string; secret: string; onClose: () => void }) {
  return <RevealOnce title={title} explanation={SECRET_ONCE} value={<SecretCopy secret={secret} />} onClose={onClose} />;
}

function SecretCopy({ secret }: { secret: string }) {
  const [said, setSaid] = useState("");
  const shown = useRef<HTMLElement>(null);
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(secret);
      setSaid("Copied to the clipboard.");
    } catch {
      const range = document.createRange();
      if (shown.current) range.selectNodeContents(shown.current);
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      setSaid("The clipboard is not available here: the secret is selected, copy it with Ctrl+C (⌘C on a Mac).");
    }
  };
  return (
    <div className="secret-copy">
      <p className="secret-line">
        <span className="secret-label">Signing secret</span>{" "}
        <code ref={shown} data-testid="webhook-secret">
          {secret}
        </code>
      </p>
      <button type="button" className="button" onClick={() => void copy()}>
        Copy<span className="visually-hidden"> the signing secret</span>
      </button>
      <p className="copy-status" role="status">
        {said}
      </p>
    </div>
  );
}
