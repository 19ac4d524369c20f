/**
 * Administration of people (`/admin/users`): the list with its email and username
 * searches (kept in the URL), "New user", and the detail screen with its panels.
 */
import { useState } from "react";
import { get, post, type Page } from "../../api/client";
import { hasScope } from "../../auth/session";
import { Link, setQuery, useLocation } from "../../router";
import { Panel, Screen } from "../../ui/Screen";
import { Form, SubmitButton, TextField, useSubmit } from "../../ui/form";
import { Loaded, useLoad } from "../../ui/load";
import { DataTable, Notice, RowsPerPage, UrlPager, limitParam, pageSizeOf } from "../../ui/table";
import { type User, takeCarried, userPath } from "./users/model";
import { UserDetail } from "./users/UserDetail";

const WRITE = "idp:users:write";

function SearchForm({ email, username, size }: { email: string; username: string; size: string }) {
  const [emailText, setEmailText] = useState(email);
  const [usernameText, setUsernameText] = useState(username);
  const [rows, setRows] = useState(size);
  return (
    <form
      className="form users-search"
      role="search"
      aria-label="Search users"
      onSubmit={(event) => {
        event.preventDefault();
        setQuery({
          email: emailText.trim(),
          username: usernameText.trim(),
          limit: limitParam(rows),
          cursor: null,
        });
      }}
    >
      <TextField
        label="Email starts with"
        type="search"
        name="email"
        autoComplete="off"
        value={emailText}
        onChange={(event) => setEmailText(event.currentTarget.value)}
      />
      <TextField
        label="Username starts with"
        type="search"
        name="username"
        autoComplete="off"
        value={usernameText}
        onChange={(event) => setUsernameText(event.currentTarget.value)}
      />
      <RowsPerPage value={rows} onChange={setRows} />
      <div className="form-row">
        <button type="submit" className="button primary">
          Search
        </button>
        {email || username ? (
          <button
            type="button"
            className="button"
            onClick={() => {
              setEmailText("");
              setUsernameText("");
              setQuery({ email: null, username: null, cursor: null });
            }}
          >
            Show everyone
          </button>
        ) : null}
      </div>
    </form>
  );
}

function NewUserForm({ onCreated }: { onCreated: (user: User) => void }) {
  const [email, setEmail] = useState("");
  const [username, setUsername] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [password, setPassword] = useState("");
  const submission = useSubmit(
    async () => {
      const body: Record<string, string> = { email: email.trim(), password, displayName: displayName.trim() };
      if (username.trim()) body.username = username.trim();
      onCreated(await post<User>("/admin/users", body));
      setEmail("");
      setUsername("");
      setDisplayName("");
      setPassword("");
    },
    () => {
      const refused: Record<string, string> = {};
      if (!email.trim()) refused.email = "Enter the person's email address.";
      if (!password) refused.password = "Enter a first password for the person.";
      return refused;
    },
  );
  return (
    <Form submission={submission} label="New user">
      <TextField
        label="Email"
        type="email"
        autoComplete="off"
        value={email}
        onChange={(event) => setEmail(event.currentTarget.value)}
        error={submission.fieldError("email")}
      />
      <TextField
        label="Username"
        hint="Optional. One word, no spaces; the person can sign in with it instead of the email."
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
      <TextField
        label="Password"
        type="password"
        autoComplete="new-password"
        hint="At least 8 characters, not a common one, not containing the email or username."
        value={password}
        onChange={(event) => setPassword(event.currentTarget.value)}
        error={submission.fieldError("password")}
      />
      <div className="form-row">
        <SubmitButton busy={submission.busy} busyLabel="Creating…">
          Create user
        </SubmitButton>
      </div>
    </Form>
  );
}

export function UsersScreen(_props: { params: Record<string, string> }) {
  const { query } = useLocation();
  const email = query.get("email") ?? "";
  const username = query.get("username") ?? "";
  const cursor = query.get("cursor") ?? "";
  const size = pageSizeOf(query);
  const canWrite = hasScope(WRITE);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<User | null>(null);
  const [notice] = useState(takeCarried);
  const { state, reload } = useLoad(
    (signal) => get<Page<User>>("/admin/users", { email, username, cursor, limit: size }, signal),
    [email, username, cursor, size],
  );
  return (
    <Screen
      title="Users"
      intro="Everyone who can sign in. Search by the beginning of an email address or a username."
      actions={
        canWrite ? (
          <button
            type="button"
            className="button primary"
            aria-expanded={creating}
            aria-controls="new-user"
            onClick={() => setCreating((open) => !open)}
          >
            New user
          </button>
        ) : null
      }
    >
      {notice ? <Notice>{notice}</Notice> : null}
      {created ? (
        <Notice>
          User created: <Link to={`/console/admin/users/${encodeURIComponent(created.id)}`}>{created.email}</Link>.
        </Notice>
      ) : null}
      {canWrite && creating ? (
        <div id="new-user">
          <Panel title="New user">
            <NewUserForm
              onCreated={(user) => {
                setCreated(user);
                setCreating(false);
                reload();
              }}
            />
          </Panel>
        </div>
      ) : null}
      <SearchForm key={`${email}\n${username}\n${size}`} email={email} username={username} size={size} />
      <Loaded state={state} reload={reload} label="Loading users…">
        {(page) => (
          <>
            <DataTable
              caption="User list"
              rows={page.items}
              rowKey={(user) => user.id}
              empty={email || username ? "No user matches this search." : "No users yet."}
              columns={[
                {
                  header: "Email",
                  rowHeader: true,
                  cell: (user) => <Link to={`/console${userPath(user.id)}`}>{user.email}</Link>,
                },
                { header: "Username", cell: (user) => user.username ?? "—" },
                { header: "Display name", cell: (user) => user.displayName || "—" },
                {
                  header: "Status",
                  cell: (user) =>
                    user.disabled ? <span className="tag bad">Disabled</span> : <span className="tag ok">Active</span>,
                },
              ]}
            />
            <UrlPager nextCursor={page.nextCursor} />
          </>
        )}
      </Loaded>
    </Screen>
  );
}

export function UserScreen({ params }: { params: Record<string, string> }) {
  return <UserDetail id={params.id ?? ""} />;
}
