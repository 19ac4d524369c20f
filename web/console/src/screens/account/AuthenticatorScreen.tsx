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
import { Panel, Screen } from "../../ui/Screen";
import { ConfirmButton, RevealOnce } from "../../ui/dialog";
import { Form, SubmitButton, SubmitRow, TextField, useSubmit } from "../../ui/form";
import { Loaded, useLoad } from "../../ui/load";
import { Notice, formatTime } from "../../ui/table";
import type { TotpEnrolment, TotpStatus } from "./api";

/** "issuer:account" from `otpauth://totp/<label>?...`, for the QR code's text alternative. */
function accountOf(uri: string): string {
  const label = /^otpauth:\/\/totp\/([^?]*)/.exec(uri)?.[1];
  if (!label) return signedIn()?.identity.email ?? "your account";
  try {
    return decodeURIComponent(label);
  } catch {
    return label;
  }
}

function Status({ status }: { status: TotpStatus }) {
  return (
    <dl className="facts">
      <dt>Status</dt>
      <dd>
        {status.enrolled ? <span className="tag ok">On</span> : <span className="tag">Off</span>}
        {status.pending ? " (a setup was started but not finished)" : null}
      </dd>
      {status.enrolled ? (
        <>
          <dt>Set up</dt>
          <dd>{formatTime(status.confirmedAt)}</dd>
          <dt>Recovery codes left</dt>
          <dd>{status.recoveryCodesLeft ?? "—"}</dd>
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
    () => (/^\d{6}$/.test(code.replace(/\s/g, "")) ? {} : { code: "Enter the 6-digit code your app shows now." }),
  );
  const account = accountOf(enrolment.otpauthUri);
  return (
    <div className="enrol">
      <ol className="steps">
        <li>
          <p>Scan this QR code with an authenticator app (on your phone, for example).</p>
          <img className="qr" src={enrolment.qrCode} alt={`QR code for ${account}`} />
        </li>
        <li>
          <TextField
            label="Or type this key into the app"
            hint="Time-based, 6 digits, every 30 seconds."
            type="text"
            readOnly
            value={enrolment.secret}
            autoCapitalize="none"
            spellCheck={false}
            className="key"
          />
        </li>
        <li>
          <Form submission={submission} label="Confirm the authenticator">
            <TextField
              label="Code from the app"
              hint="To check that the app is set up: the 6 digits it shows now."
              error={submission.fieldError("code")}
              type="text"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={9}
              value={code}
              onChange={(event) => setCode(event.currentTarget.value)}
            />
            <SubmitRow submission={submission} busyLabel="Checking…">Confirm</SubmitRow>
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
        title="Your recovery codes"
        explanation="Each code signs you in once without the app, if you lose it. Keep them somewhere safe: they are shown only now."
        value={
          <ul className="codes" aria-label="Recovery codes">
            {codes.map((code) => (
              <li key={code}>{code}</li>
            ))}
          </ul>
        }
        onClose={() => {
          setCodes(null);
          setEnrolment(null);
          onChange("The authenticator is on. Sign-in now asks for a code from it.");
        }}
      />
    );
  }
  if (status.enrolled) {
    return (
      <ConfirmButton
        label="Remove authenticator"
        title="Remove the authenticator?"
        confirmLabel="Remove authenticator"
        onConfirm={async () => {
          await del("/entity/totp");
          onChange("The authenticator was removed. Sign-in asks for your password only.");
        }}
      >
        <p>Sign-in will no longer ask for a code, and your recovery codes stop working.</p>
      </ConfirmButton>
    );
  }
  if (enrolment) return <Confirm enrolment={enrolment} onConfirmed={setCodes} />;
  return (
    <Form submission={start} label="Set up an authenticator">
      <p>
        After setting it up, signing in asks for your password and a code from the app, which changes every 30
        seconds.
      </p>
      <div className="form-row">
        <SubmitButton busy={start.busy} busyLabel="Starting…">
          {status.pending ? "Start again" : "Set up an authenticator"}
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
      title="Authenticator"
      intro="A second step at sign-in: a one-time code from an app, so a stolen password is not enough."
    >
      {notice ? <Notice>{notice}</Notice> : null}
      <Loaded state={state} reload={reload}>
        {(status) => (
          <Panel title="Authenticator app">
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
