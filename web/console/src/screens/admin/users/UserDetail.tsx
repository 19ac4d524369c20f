/**
 * `/console/admin/users/:id`: the facts of one person, their details form, grants,
 * profile values and the actions on their password, authenticator, face and sessions.
 */
import { useState } from "react";
import { get, patch } from "../../../api/client";
import { hasScope } from "../../../auth/session";
import { Link } from "../../../router";
import { Panel, Screen } from "../../../ui/Screen";
import { Checkbox, Form, SubmitButton, TextField, useSubmit } from "../../../ui/form";
import { Loaded, useLoad } from "../../../ui/load";
import { Notice, formatTime } from "../../../ui/table";
import { Actions } from "./Actions";
import { Grants } from "./Grants";
import { type User, userPath } from "./model";
import { ProfileValues } from "./ProfileValues";

const WRITE = "idp:users:write";

function Facts({ user }: { user: User }) {
  return (
    <dl className="facts">
      <dt>Email</dt>
      <dd>
        {user.email}{" "}
        {user.emailVerified ? <span className="tag ok">Verified</span> : <span className="tag">Not verified</span>}
      </dd>
      <dt>Username</dt>
      <dd>{user.username ?? "—"}</dd>
      <dt>Display name</dt>
      <dd>{user.displayName || "—"}</dd>
      <dt>Status</dt>
      <dd>{user.disabled ? <span className="tag bad">Disabled</span> : <span className="tag ok">Active</span>}</dd>
      <dt>Created</dt>
      <dd>{formatTime(user.createdAt)}</dd>
      <dt>Last changed</dt>
      <dd>{formatTime(user.updatedAt)}</dd>
      <dt>User id</dt>
      <dd>
        <code>{user.id}</code>
      </dd>
    </dl>
  );
}

/** Only what changed is sent; a changed email is sent with its verification flag. */
function DetailsForm({ user, onSaved }: { user: User; onSaved: (user: User) => void }) {
  const [email, setEmail] = useState(user.email);
  const [username, setUsername] = useState(user.username ?? "");
  const [displayName, setDisplayName] = useState(user.displayName);
  const [emailVerified, setEmailVerified] = useState(user.emailVerified);
  const [disabled, setDisabled] = useState(user.disabled);
  const [saved, setSaved] = useState(false);
  const emailChanged = email.trim().toLowerCase() !== user.email.toLowerCase();
  const submission = useSubmit(
    async () => {
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
    () => (email.trim() ? {} : { email: "Enter an email address." }),
  );
  return (
    <Form submission={submission} label="Details">
      <TextField
        label="Email"
        type="email"
        autoComplete="off"
        value={email}
        onChange={(event) => {
          const next = event.currentTarget.value;
          setEmail(next);
          // A new address is unverified unless the administrator says otherwise.
          if (next.trim().toLowerCase() !== user.email.toLowerCase()) setEmailVerified(false);
          else setEmailVerified(user.emailVerified);
        }}
        error={submission.fieldError("email")}
      />
      <Checkbox
        label="Email verified"
        hint={emailChanged ? "A new address starts unverified; tick this only if you checked it." : undefined}
        checked={emailVerified}
        onChange={(event) => setEmailVerified(event.currentTarget.checked)}
        error={submission.fieldError("emailVerified")}
      />
      <TextField
        label="Username"
        hint="Leave empty for no username."
        autoComplete="off"
        value={username}
        onChange={(event) => setUsername(event.currentTarget.value)}
        error={submission.fieldError("username")}
      />
      <TextField
        label="Display name"
        autoComplete="off"
        value={displayName}
        onChange={(event) => setDisplayName(event.currentTarget.value)}
        error={submission.fieldError("displayName")}
      />
      <Checkbox
        label="Disabled"
        hint="A disabled person cannot sign in; disabling also ends their sessions."
        checked={disabled}
        onChange={(event) => setDisabled(event.currentTarget.checked)}
        error={submission.fieldError("disabled")}
      />
      <div className="form-row">
        <SubmitButton busy={submission.busy}>Save details</SubmitButton>
      </div>
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
              <Facts user={user} />
            </Panel>
            {canWrite ? (
              <Panel title="Details" id="user-details">
                <DetailsForm user={user} onSaved={reload} />
              </Panel>
            ) : null}
            <Grants userId={user.id} canWrite={canWrite} />
            <ProfileValues userId={user.id} canWrite={canWrite} />
            {canWrite ? <Actions user={user} /> : null}
          </>
        )}
      </Loaded>
    </Screen>
  );
}
