/**
 * "Authenticator": whether a one-time-code app is set up (`GET /entity/totp`); setting one
 * up (`POST /entity/totp/enroll`: a QR code and the key for typing it in), confirming it
 * with a first code (`POST /entity/totp/confirm`: recovery codes, shown once) and removing
 * it (`DELETE /entity/totp`). Every write needs a recent sign-in; after the round trip the
 * person starts the step again.
 */
import { useState } from "react";
import { del, get, post } from "../../api/client";
import { hasScope, signedIn } from "../../auth/session";
import { intl, t } from "../../i18n";
import { Panel, Screen } from "../../ui/Screen";
import { ConfirmButton, RevealOnce } from "../../ui/dialog";
import { Form, SubmitButton, SubmitRow, TextField, useSubmit } from "../../ui/form";
import { Loaded, useLoad } from "../../ui/load";
import { Notice, formatTime } from "../../ui/table";
import type { TotpEnrolment, TotpStatus } from "./api";

/** "issuer:account" from `otpauth://totp/<label>?...`, for the QR code's text alternative. */
function accountOf(uri: string): string {
  const label = /^otpauth:\/\/totp\/([^?]*)/.exec(uri)?.[1];
  if (!label) return signedIn()?.identity.email ?? t("account.totp.yourAccount");
  try {
    return decodeURIComponent(label);
  } catch {
    return label;
  }
}

function Status({ status }: { status: TotpStatus }) {
  return (
    <dl className="facts">
      <dt>{t("account.status")}</dt>
      <dd>
        {status.enrolled ? <span className="tag ok">{t("account.on")}</span> : <span className="tag">{t("account.off")}</span>}
        {status.pending ? ` ${t("account.totp.pending")}` : null}
      </dd>
      {status.enrolled ? (
        <>
          <dt>{t("account.totp.setUpAt")}</dt>
          <dd>{formatTime(status.confirmedAt)}</dd>
          <dt>{t("account.totp.codesLeft")}</dt>
          <dd>{status.recoveryCodesLeft === undefined ? t("common.none") : intl().formatNumber(status.recoveryCodesLeft)}</dd>
        </>
      ) : null}
    </dl>
  );
}

function Confirm({ enrolment, onConfirmed }: { enrolment: TotpEnrolment; onConfirmed: (codes: string[]) => void }) {
  const [code, setCode] = useState("");
  const submission = useSubmit(
    async () => {
      const answer = await post<{ recoveryCodes: string[] }>("/entity/totp/confirm", { code: code.replace(/\s/g, "") });
      onConfirmed(answer.recoveryCodes);
    },
    () => (/^\d{6}$/.test(code.replace(/\s/g, "")) ? {} : { code: t("account.totp.enterCode") }),
  );
  const account = accountOf(enrolment.otpauthUri);
  return (
    <div className="enrol">
      <ol className="steps">
        <li>
          <p>{t("account.totp.scan")}</p>
          <img className="qr" src={enrolment.qrCode} alt={t("account.totp.qrAlt", { account })} />
        </li>
        <li>
          <TextField
            label={t("account.totp.key")}
            hint={t("account.totp.keyHint")}
            type="text"
            readOnly
            value={enrolment.secret}
            autoCapitalize="none"
            spellCheck={false}
            className="key"
          />
        </li>
        <li>
          <Form submission={submission} label={t("account.totp.confirmLabel")}>
            <TextField
              label={t("account.totp.code")}
              hint={t("account.totp.codeHint")}
              error={submission.fieldError("code")}
              type="text"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={9}
              value={code}
              onChange={(event) => setCode(event.currentTarget.value)}
            />
            <SubmitRow submission={submission} busyLabel={t("account.totp.checking")}>{t("account.totp.confirm")}</SubmitRow>
          </Form>
        </li>
      </ol>
    </div>
  );
}

function Manage({ status, onChange }: { status: TotpStatus; onChange: (notice: string) => void }) {
  const [enrolment, setEnrolment] = useState<TotpEnrolment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const start = useSubmit(async () => {
    setEnrolment(await post<TotpEnrolment>("/entity/totp/enroll"));
  });
  if (codes) {
    return (
      <RevealOnce
        title={t("account.totp.codesTitle")}
        explanation={t("account.totp.codesExplanation")}
        value={
          <ul className="codes" aria-label={t("account.totp.codesLabel")}>
            {codes.map((code) => (
              <li key={code}>{code}</li>
            ))}
          </ul>
        }
        onClose={() => {
          setCodes(null);
          setEnrolment(null);
          onChange(t("account.totp.isOn"));
        }}
      />
    );
  }
  if (status.enrolled) {
    return (
      <ConfirmButton
        label={t("account.totp.remove")}
        title={t("account.totp.removeQuestion")}
        confirmLabel={t("account.totp.remove")}
        onConfirm={async () => {
          await del("/entity/totp");
          onChange(t("account.totp.removed"));
        }}
      >
        <p>{t("account.totp.removeText")}</p>
      </ConfirmButton>
    );
  }
  if (enrolment) return <Confirm enrolment={enrolment} onConfirmed={setCodes} />;
  return (
    <Form submission={start} label={t("account.totp.setUp")}>
      <p>{t("account.totp.setUpText")}</p>
      <div className="form-row">
        <SubmitButton busy={start.busy} busyLabel={t("account.totp.starting")}>
          {status.pending ? t("account.totp.startAgain") : t("account.totp.setUp")}
        </SubmitButton>
      </div>
    </Form>
  );
}

export function AuthenticatorScreen(_props: { params: Record<string, string> }) {
  const { state, reload } = useLoad((signal) => get<TotpStatus>("/entity/totp", undefined, signal), []);
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <Screen
      title={t("account.totp.title")}
      intro={t("account.totp.intro")}
    >
      {notice ? <Notice>{notice}</Notice> : null}
      <Loaded state={state} reload={reload}>
        {(status) => (
          <Panel title={t("account.totp.app")}>
            <Status status={status} />
            {hasScope("idp:account:write") ? (
              <Manage
                status={status}
                onChange={(text) => {
                  setNotice(text);
                  reload();
                }}
              />
            ) : null}
          </Panel>
        )}
      </Loaded>
    </Screen>
  );
}
