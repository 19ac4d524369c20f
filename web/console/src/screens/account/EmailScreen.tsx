/**
 * "Email": changes the sign-in address (`POST /entity/credentials/email`) with the current
 * password. Needs a recent sign-in: an older one goes through sign-in and back here (the
 * console says so), and the person submits again.
 */
import { useState } from "react";
import { get, post } from "../../api/client";
import { hasScope } from "../../auth/session";
import { Panel, Screen } from "../../ui/Screen";
import { blankErrors, useForm } from "../../ui/bind";
import { Form, SubmitRow, TextField } from "../../ui/form";
import { Loaded, useLoad } from "../../ui/load";
import { Notice } from "../../ui/table";
import type { Profile } from "./api";

function EmailForm({ onChanged }: { onChanged: (profile: Profile) => void }) {
  const [notice, setNotice] = useState<string | null>(null);
  const form = useForm(
    { email: "", currentPassword: "" },
    async ({ email, currentPassword }) => {
      setNotice(null);
      const profile = await post<Profile>("/entity/credentials/email", { email: email.trim(), currentPassword });
      form.reset();
      onChanged(profile);
      setNotice(
        `Your sign-in email address is now ${profile.email}. Use it the next time you sign in; ` +
          "a notice was sent to the previous address.",
      );
    },
    (values) =>
      blankErrors(values, { email: "Enter the new email address." }, { currentPassword: "Enter your current password." }),
  );
  const { submission, text } = form;
  return (
    <Form submission={submission} label="Change your email address">
      {notice ? <Notice>{notice}</Notice> : null}
      <TextField
        label="New email address"
        type="email"
        autoComplete="email"
        autoCapitalize="none"
        spellCheck={false}
        {...text("email")}
      />
      <TextField
        label="Current password"
        hint="To confirm it is you."
        type="password"
        autoComplete="current-password"
        {...text("currentPassword")}
      />
      <SubmitRow submission={submission}>Change email</SubmitRow>
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
