/**
 * What an administrator does to a person's sign-in: set or remove the password, clear the
 * authenticator, remove the face template, end every session, delete the person. Each
 * asks first (`ConfirmButton`).
 */
import { useState } from "react";
import { del, post } from "../../../api/client";
import { navigate } from "../../../router";
import { Panel } from "../../../ui/Screen";
import { carryNotice } from "../../../ui/carry";
import { ConfirmButton } from "../../../ui/dialog";
import { blankErrors, useForm } from "../../../ui/bind";
import { FormErrors, TextField } from "../../../ui/form";
import { Notice } from "../../../ui/table";
import { type User, userPath } from "./model";

function PasswordPanel({ user }: { user: User }) {
  const [notice, setNotice] = useState<string | null>(null);
  const form = useForm(
    { password: "" },
    async ({ password }) => {
      setNotice(null);
      await post(`${userPath(user.id)}/reset-password`, { password });
      form.reset();
      setNotice("Password set. Every session of this person has ended.");
    },
    (values) => blankErrors(values, {}, { password: "Enter the new password first." }),
  );
  const setIt = form.submission;
  const remove = async (): Promise<void> => {
    setNotice(null);
    setIt.reset();
    await post(`${userPath(user.id)}/reset-password`);
    setNotice("Password removed. The person can sign in again only through a reset link sent by email.");
  };
  return (
    <Panel title="Password" id="user-password">
      <p className="hint">
        Setting or removing the password ends every session of this person and revokes their refresh tokens.
      </p>
      <div className="form">
        <FormErrors submission={setIt} />
        <TextField
          label="New password"
          type="password"
          autoComplete="new-password"
          hint="The same policy as at sign-up: at least 8 characters, not a common one."
          {...form.text("password")}
        />
        <div className="form-row">
          <ConfirmButton
            label="Set password"
            title="Set a new password?"
            confirmLabel="Set password"
            danger={false}
            className="button primary"
            onConfirm={async () => {
              await setIt.run();
            }}
          >
            <p>
              {user.email} will be signed out everywhere and must use the new password from now on. Tell them the
              password by a safe way.
            </p>
          </ConfirmButton>
          <ConfirmButton
            label="Remove the password"
            title="Remove the password?"
            confirmLabel="Remove the password"
            onConfirm={remove}
          >
            <p>
              {user.email} will be signed out everywhere and can sign in again only after choosing a new password
              through the reset link sent to their email address.
            </p>
          </ConfirmButton>
        </div>
      </div>
      {notice ? <Notice>{notice}</Notice> : null}
    </Panel>
  );
}

/** The sign-in actions: what each removes (`DELETE <user><path>`), what it says, and its notice. */
const SIGN_IN_ACTIONS: { label: string; path: string; done: string; says: (email: string) => string }[] = [
  {
    label: "Clear the authenticator",
    path: "/totp",
    done: "Authenticator cleared (with its recovery codes).",
    says: (email) =>
      `The authenticator app and the recovery codes of ${email} stop working. They can set up a new one after signing in with their password.`,
  },
  {
    label: "Remove face sign-in",
    path: "/face",
    done: "Face sign-in removed.",
    says: (email) => `The face template of ${email} is deleted; they can enrol again from their account.`,
  },
  {
    label: "End all sessions",
    path: "/sessions",
    done: "Every session of this person has ended.",
    says: (email) =>
      `${email} is signed out in every browser, and applications reached in those sessions are told. Tokens for offline access stay valid.`,
  },
];

function SignInPanel({ user }: { user: User }) {
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <Panel title="Sign-in and sessions" id="user-sign-in">
      <div className="users-actions">
        {SIGN_IN_ACTIONS.map((action) => (
          <ConfirmButton
            key={action.path}
            label={action.label}
            title={`${action.label}?`}
            confirmLabel={action.label}
            onConfirm={async () => {
              setNotice(null);
              await del(`${userPath(user.id)}${action.path}`);
              setNotice(action.done);
            }}
          >
            <p>{action.says(user.email)}</p>
          </ConfirmButton>
        ))}
      </div>
      {notice ? <Notice>{notice}</Notice> : null}
    </Panel>
  );
}

export function Actions({ user }: { user: User }) {
  return (
    <>
      <PasswordPanel user={user} />
      <SignInPanel user={user} />
      <Panel title="Delete this user" id="user-delete">
        <p>Deleting removes the person with their credentials, grants, memberships, consents and profile values.</p>
        <ConfirmButton
          label="Delete user"
          title="Delete this user?"
          confirmLabel="Delete user"
          onConfirm={async () => {
            await del(userPath(user.id));
            carryNotice("/console/admin/users", `User ${user.email} deleted.`);
            navigate("/console/admin/users");
          }}
        >
          <p>{user.email} is signed out everywhere and deleted. This cannot be undone.</p>
        </ConfirmButton>
      </Panel>
    </>
  );
}
