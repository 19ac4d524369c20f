/**
 * What an administrator does to a person's sign-in: set or remove the password, clear the
 * authenticator, remove the face template, end every session, delete the person. Each
 * asks first (`ConfirmButton`).
 */
import { useState } from "react";
import { del, post } from "../../../api/client";
import { navigate } from "../../../router";
import { Panel } from "../../../ui/Screen";
import { ConfirmButton } from "../../../ui/dialog";
import { FormErrors, TextField, useSubmit } from "../../../ui/form";
import { Notice } from "../../../ui/table";
import { type User, carryNotice, userPath } from "./model";

function PasswordPanel({ user }: { user: User }) {
  const [password, setPassword] = useState("");
  const [notice, setNotice] = useState<string | null>(null);
  const setIt = useSubmit(
    async () => {
      setNotice(null);
      await post(`${userPath(user.id)}/reset-password`, { password });
      setPassword("");
      setNotice("Password set. Every session of this person has ended.");
    },
    () => (password ? {} : { password: "Enter the new password first." }),
  );
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
          value={password}
          onChange={(event) => setPassword(event.currentTarget.value)}
          error={setIt.fieldError("password")}
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

function SignInPanel({ user }: { user: User }) {
  const [notice, setNotice] = useState<string | null>(null);
  const act = (path: string, text: string) => async (): Promise<void> => {
    setNotice(null);
    await del(`${userPath(user.id)}${path}`);
    setNotice(text);
  };
  return (
    <Panel title="Sign-in and sessions" id="user-sign-in">
      <div className="users-actions">
        <ConfirmButton
          label="Clear the authenticator"
          title="Clear the authenticator?"
          confirmLabel="Clear the authenticator"
          onConfirm={act("/totp", "Authenticator cleared (with its recovery codes).")}
        >
          <p>
            The authenticator app and the recovery codes of {user.email} stop working. They can set up a new one
            after signing in with their password.
          </p>
        </ConfirmButton>
        <ConfirmButton
          label="Remove face sign-in"
          title="Remove face sign-in?"
          confirmLabel="Remove face sign-in"
          onConfirm={act("/face", "Face sign-in removed.")}
        >
          <p>The face template of {user.email} is deleted; they can enrol again from their account.</p>
        </ConfirmButton>
        <ConfirmButton
          label="End all sessions"
          title="End all sessions?"
          confirmLabel="End all sessions"
          onConfirm={act("/sessions", "Every session of this person has ended.")}
        >
          <p>
            {user.email} is signed out in every browser, and applications reached in those sessions are told. Tokens
            for offline access stay valid.
          </p>
        </ConfirmButton>
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
            carryNotice(`User ${user.email} deleted.`);
            navigate("/console/admin/users");
          }}
        >
          <p>{user.email} is signed out everywhere and deleted. This cannot be undone.</p>
        </ConfirmButton>
      </Panel>
    </>
  );
}
