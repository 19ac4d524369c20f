/**
 * "Email": changes the sign-in address (`POST /entity/credentials/email`) with the current
 * password. Needs a recent sign-in: an older one goes through sign-in and back here (the
 * console says so), and the person submits again.
 */
import { useState } from "react";
import { get, post } from "../../api/client";
import { hasScope } from "../../auth/session";
import { Panel, Screen } from "../../ui/Screen";
import { Form, SubmitButton, TextField, useSubmit } from "../../ui/form";
import { Loaded, useLoad } from "../../ui/load";
import { Notice } from "../../ui/table";
import type { Profile } from "./api";

function EmailForm({ onChanged }: { onChanged: (profile: Profile) => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [notice, setNotice] = useState<string | null>(null);
  const submission = useSubmit(
    async () => {
      setNotice(null);
      const profile = await post<Profile>("/entity/credentials/email", {
        email: email.trim(),
        currentPassword: password,
      });
      setEmail("");
      setPassword("");
      onChanged(profile);
      setNotice(
        `Your sign-in email address is now ${profile.email}. Use it the next time you sign in; ` +
          "a notice was sent to the previous address.",
      );
    },
    () => {
      const errors: Record<string, string> = {};
      if (!email.trim()) errors.email = "Enter the new email address.";
      if (!password) errors.currentPassword = "Enter your current password.";
      return errors;
    },
  );
  return (
    <Form submission={submission} label="Change your email address">
      {notice ? <Notice>{notice}</Notice> : null}
      <TextField
        label="New email address"
        error={submission.fieldError("email")}
        type="email"
        autoComplete="email"
        autoCapitalize="none"
        spellCheck={false}
        value={email}
        onChange={(event) => setEmail(event.currentTarget.value)}
      />
      <TextField
        label="Current password"
        hint="To confirm it is you."
        error={submission.fieldError("currentPassword")}
        type="password"
        autoComplete="current-password"
        value={password}
        onChange={(event) => setPassword(event.currentTarget.value)}
      />
      <div className="form-row">
        <SubmitButton busy={submission.busy}>Change email</SubmitButton>
      </div>
    </Form>
  );
}

export function EmailScreen(_props: { params: Record<string, string> }) {
  const { state, reload } = useLoad((signal) => get<Profile>("/entity/profile", undefined, signal), []);
  const [changed, setChanged] = useState<Profile | null>(null);
  return (
    <Screen
      title="Email"
      intro="The address you sign in with and where the provider writes to you. A new address takes effect at once and is marked unverified."
    >
      <Loaded state={state} reload={reload}>
        {(loaded) => {
          const profile = changed ?? loaded;
          return (
            <>
              <Panel title="Current address">
                <p>
                  {profile.email}{" "}
                  {profile.emailVerified ? (
                    <span className="tag ok">verified</span>
                  ) : (
                    <span className="tag bad">not verified</span>
                  )}
                </p>
              </Panel>
              <Panel title="Change your email address">
                {hasScope("idp:account:write") ? (
                  <EmailForm onChanged={setChanged} />
                ) : (
                  <p>Your account cannot change its email address here.</p>
                )}
              </Panel>
            </>
          );
        }}
      </Loaded>
    </Screen>
  );
}
