/**
 * A webhook endpoint's signing secret (`whsec_…`), shown once after a creation or a rotation
 * in the dialog client secrets use ({@link RevealOnce}), with a "Copy" button. Where the
 * clipboard is refused (an insecure context, a denied permission) the secret is selected
 * so the keyboard's copy works.
 */
import { useRef, useState } from "react";
import { t } from "../../../i18n";
import { RevealOnce } from "../../../ui/dialog";

/** What the dialog says about the secret. */
export const secretOnce = (): string =>
  t("admin-ops.webhooks.secret.once");

export function SecretShownOnce({ title, secret, onClose }: { title: string; secret: string; onClose: () => void }) {
  return <RevealOnce title={title} explanation={secretOnce()} value={<SecretCopy secret={secret} />} onClose={onClose} />;
}

function SecretCopy({ secret }: { secret: string }) {
  const [said, setSaid] = useState("");
  const shown = useRef<HTMLElement>(null);
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(secret);
      setSaid(t("admin-ops.webhooks.secret.copied"));
    } catch {
      const range = document.createRange();
      if (shown.current) range.selectNodeContents(shown.current);
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      setSaid(t("admin-ops.webhooks.secret.selected"));
    }
  };
  return (
    <div className="secret-copy">
      <p className="secret-line">
        <span className="secret-label">{t("admin-ops.webhooks.secret")}</span>{" "}
        <code ref={shown} data-testid="webhook-secret">
          {secret}
        </code>
      </p>
      <button type="button" className="button" onClick={() => void copy()}>
        {t("admin-ops.webhooks.secret.copy")}
        <span className="visually-hidden"> {t("admin-ops.webhooks.secret.copy.what")}</span>
      </button>
      <p className="copy-status" role="status">
        {said}
      </p>
    </div>
  );
}
