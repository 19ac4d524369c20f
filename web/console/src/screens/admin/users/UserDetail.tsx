/**
 * `/console/admin/users/:id`: the facts of one person, their details form, grants,
 * profile values, passkeys and the actions on their password, authenticator, face and
 * sessions.
 */
import { useState } from "react";
import { get, patch } from "../../../api/client";
import { hasScope } from "../../../auth/session";
import { Link } from "../../../router";
import { Panel, Screen } from "../../../ui/Screen";
import { blankErrors, useForm } from "../../../ui/bind";
import { Checkbox, Form, SubmitRow, TextField } from "../../../ui/form";
import { Loaded, useLoad } from "../../../ui/load";
import { Facts, Notice, formatTime } from "../../../ui/table";
import { Actions } from "./Actions";
import { Grants } from "./Grants";
import { type User, userPath } from "./model";
import { Passkeys } from "./Passkeys";
import { ProfileValues } from "./ProfileValues";

const WRITE = "idp:users:write";

/** "Disabled" or "Active", as a tag. */
export function StatusTag({ disabled }: { disabled: boolean }) {
  return disabled ? <span className="tag bad">Disabled</span> : <span className="tag ok">Active</span>;
}

function UserFacts({ user }: { user: User }) {
  return (
    <Facts
      rows={[
        [
          "Email",
          <>
            {user.email}{" "}
            {user.emailVerified ? <span className="tag ok">Verified</span> : <span className="tag">Not verified</span>}
          </>,
        ],
        ["Username", user.username ?? "—"],
        ["Display name", user.displayName || "—"],
        ["Status", <StatusTag disabled={user.disabled} />],
        ["Created", formatTime(user.createdAt)],
        ["Last changed", formatTime(user.updatedAt)],
        ["User id", <code>{user.id}</code>],
      ]}
    />
  );
}

/** Only what changed is sent; a changed email is sent with its verification flag. */
function DetailsForm({ user, onSaved }: { user: User; onSaved: (user: User) => void }) {
  const [saved, setSaved] = useState(false);
  const form = useForm(
    {
      email: user.email,
      username: user.username ?? "",
      displayName: user.displayName,
      emailVerified: user.emailVerified,
      disabled: user.disabled,
    },
    async ({ email, username, displayName, emailVerified, disabled }) => {
      setSaved(false);
      const body: Record<string, unknown> = {};
      if (email.trim() !== user.email) body.email = email.trim();
      if (emailChanged || emailVerified !== user.emailVerified) body.emailVerified = emailVerified;
      const name = username.trim() || null;
      if (name !== user.username) body.username = name;
      if (displayName !== user.displayName) body.displayName = displayName;
      if (disabled !== user.disabled) body.disabled = disabled;
      const next = Object.keys(body).length ? await patch<User>(userPath(user.id), body) : user;
      setSaved(true);
      onSaved(next);
    },
    (values) => blankErrors(values, { email: "Enter an email address." }),
  );
  const { submission, text, check, setValues } = form;
  const emailChanged = form.values.email.trim().toLowerCase() !== user.email.toLowerCase();
  return (
    <Form submission={submission} label="Details">
      <TextField
        label="Email"
        type="email"
        autoComplete="off"
        {...text("email")}
        onChange={(event) => {
          const email = event.currentTarget.value;
          // A new address is unverified unless the administrator says otherwise.
          const changed = email.trim().toLowerCase() !== user.email.toLowerCase();
          setValues((values) => ({ ...values, email, emailVerified: changed ? false : user.emailVerified }));
        }}
      />
      <Checkbox
        label="Email verified"
        hint={emailChanged ? "A new address starts unverified; tick this only if you checked it." : undefined}
        {...check("emailVerified")}
      />
      <TextField label="Username" hint="Leave empty for no username." autoComplete="off" {...text("username")} />
      <TextField label="Display name" autoComplete="off" {...text("displayName")} />
      <Checkbox
        label="Disabled"
        hint="A disabled person cannot sign in; disabling also ends their sessions."
        {...check("disabled")}
      />
      <SubmitRow submission={submission}>Save details</SubmitRow>
      {saved && !submission.error ? <Notice>Saved.</Notice> : null}
    </Form>
  );
}

export function UserDetail({ id }: { id: string }) {
  const canWrite = hasScope(WRITE);
  const { state, reload } = useLoad((signal) => get<User>(userPath(id), undefined, signal), [id]);
  const title = state.status === "ready" ? state.data.displayName || state.data.email : "User";
  return (
    <Screen
      title={title}
      intro={
        <>
          {state.status === "ready" && state.data.displayName ? `${state.data.email} · ` : null}
          <Link to="/console/admin/users">All users</Link>
        </>
      }
    >
      <Loaded state={state} reload={reload} label="Loading the user…">
        {(user) => (
          <>
            <Panel title="Facts" id="user-facts">
              <UserFacts user={user} />
            </Panel>
            {canWrite ? (
              <Panel title="Details" id="user-details">
                <DetailsForm user={user} onSaved={reload} />
              </Panel>
            ) : null}
            <Grants userId={user.id} canWrite={canWrite} />
            <ProfileValues userId={user.id} canWrite={canWrite} />
            <Passkeys userId={user.id} email={user.email} canWrite={canWrite} />
            {canWrite ? <Actions user={user} /> : null}
          </>
        )}
      </Loaded>
    </Screen>
  );
}
