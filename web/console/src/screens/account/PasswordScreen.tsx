/**
 * "Password": `POST /entity/credentials/password` with the current and the new password
 * (typed twice; the two are compared here before anything is sent). Needs a recent
 * sign-in: an older one goes through sign-in and back here, and the person submits again.
 * A change ends every session of the person, this one too: the screen says so and offers
 * to sign in again.
 */
import { useState } from "react";
import { post } from "../../api/client";
import { beginSignIn, hasScope } from "../../auth/session";
import { Panel, Screen } from "../../ui/Screen";
import { blankErrors, useForm } from "../../ui/bind";
import { Form, SubmitRow, TextField } from "../../ui/form";
import { Notice } from "../../ui/table";

function PasswordForm({ onChanged }: { onChanged: () => void }) {
  const { submission, text } = useForm(
    { currentPassword: "", newPassword: "", confirmPassword: "" },
    async ({ currentPassword, newPassword }) => {
      await post<void>("/entity/credentials/password", { currentPassword, newPassword });
      onChanged();
    },
    (values) => ({
      ...blankErrors(values, {}, { currentPassword: "Enter your current password.", newPassword: "Enter a new password." }),
      ...(values.newPassword && values.confirmPassword !== values.newPassword
        ? { confirmPassword: "The two new passwords are not the same." }
        : {}),
    }),
  );
  return (
    <Form submission={submission} label="Change your password">
      <TextField label="Current password" type="password" autoComplete="current-password" {...text("currentPassword")} />
      <TextField
        label="New password"
        hint="At least 8 characters; a few unusual words make a good one. Common passwords are refused."
        type="password"
        autoComplete="new-password"
        {...text("newPassword")}
      />
      <TextField label="New password again" type="password" autoComplete="new-password" {...text("confirmPassword")} />
      <SubmitRow submission={submission} busyLabel="Changing…">Change password</SubmitRow>
    </Form>
  );
}

export function PasswordScreen(_props: { params: Record<string, string> }) {
  const [changed, setChanged] = useState(false);
  return (
    <Screen
      title="Password"
      intro="Changing your password signs you out everywhere: on every device and in every application."
    >
      {changed ? (
        <div className="done">
          <Notice>
            Your password was changed. Every session of yours has ended, this one too: sign in again with the
            new password.
          </Notice>
          <button type="button" className="button primary" onClick={() => void beginSignIn("/console/")}>
            Sign in again
          </button>
        </div>
      ) : (
        <Panel title="Change your password">
          {hasScope("idp:account:write") ? (
            <PasswordForm onChanged={() => setChanged(true)} />
          ) : (
            <p>Your account cannot change its password here.</p>
          )}
        </Panel>
      )}
    </Screen>
  );
}
