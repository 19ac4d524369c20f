/**
 * Administration of people (`/admin/users`): the list with its email and username
 * searches (kept in the URL), "New user", and the detail screen with its panels.
 */
import { useState } from "react";
import { get, post, type Page } from "../../api/client";
import { hasScope } from "../../auth/session";
import { t } from "../../i18n";
import { rich } from "./catalogue/rich";
import { Link, setQuery, useLocation } from "../../router";
import { Panel, Screen } from "../../ui/Screen";
import { binders, blankErrors, useForm } from "../../ui/bind";
import { Form, SubmitRow, TextField } from "../../ui/form";
import { useCarriedNotice } from "../../ui/carry";
import { useLoad } from "../../ui/load";
import { PagedTable, useUrlCursor } from "../../ui/paged";
import { Notice, RowsPerPage, limitParam, nameColumn, pageSizeOf } from "../../ui/table";
import { type User, userPath } from "./users/model";
import { StatusTag, UserDetail } from "./users/UserDetail";

const WRITE = "idp:users:write";

function SearchForm({ email, username, size }: { email: string; username: string; size: string }) {
  const [values, setValues] = useState({ email, username, rows: size });
  const { text, set } = binders(values, setValues);
  return (
    <form
      className="form users-search"
      role="search"
      aria-label={t("admin-directory.users.search")}
      onSubmit={(event) => {
        event.preventDefault();
        setQuery({
          email: values.email.trim(),
          username: values.username.trim(),
          limit: limitParam(values.rows),
          cursor: null,
        });
      }}
    >
      <TextField
        label={t("admin-directory.users.emailStarts")}
        type="search"
        name="email"
        autoComplete="off"
        {...text("email")}
      />
      <TextField
        label={t("admin-directory.users.usernameStarts")}
        type="search"
        name="username"
        autoComplete="off"
        {...text("username")}
      />
      <RowsPerPage value={values.rows} onChange={(rows) => set("rows", rows)} />
      <div className="form-row">
        <button type="submit" className="button primary">
          {t("admin-directory.users.searchButton")}
        </button>
        {email || username ? (
          <button
            type="button"
            className="button"
            onClick={() => {
              setValues((previous) => ({ ...previous, email: "", username: "" }));
              setQuery({ email: null, username: null, cursor: null });
            }}
          >
            {t("admin-directory.users.showEveryone")}
          </button>
        ) : null}
      </div>
    </form>
  );
}

function NewUserForm({ onCreated }: { onCreated: (user: User) => void }) {
  const form = useForm(
    { email: "", username: "", displayName: "", password: "" },
    async ({ email, username, displayName, password }) => {
      const body: Record<string, string> = { email: email.trim(), password, displayName: displayName.trim() };
      if (username.trim()) body.username = username.trim();
      onCreated(await post<User>("/admin/users", body));
      form.reset();
    },
    (values) =>
      blankErrors(
        values,
        { email: t("admin-directory.users.emailMissing") },
        { password: t("admin-directory.users.passwordMissing") },
      ),
  );
  const { submission, text } = form;
  return (
    <Form submission={submission} label={t("admin-directory.users.new")}>
      <TextField label={t("admin-directory.users.email")} type="email" autoComplete="off" {...text("email")} />
      <TextField
        label={t("admin-directory.users.username")}
        hint={t("admin-directory.users.usernameHint")}
        autoComplete="off"
        {...text("username")}
      />
      <TextField label={t("admin-directory.users.displayName")} autoComplete="off" {...text("displayName")} />
      <TextField
        label={t("admin-directory.users.password")}
        type="password"
        autoComplete="new-password"
        hint={t("admin-directory.users.passwordHint")}
        {...text("password")}
      />
      <SubmitRow submission={submission} busyLabel={t("admin-directory.users.creating")}>
        {t("admin-directory.users.create")}
      </SubmitRow>
    </Form>
  );
}

export function UsersScreen(_props: { params: Record<string, string> }) {
  const { query } = useLocation();
  const email = query.get("email") ?? "";
  const username = query.get("username") ?? "";
  const paging = useUrlCursor();
  const cursor = paging.cursor ?? "";
  const size = pageSizeOf(query);
  const canWrite = hasScope(WRITE);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<User | null>(null);
  const notice = useCarriedNotice();
  const { state, reload } = useLoad(
    (signal) => get<Page<User>>("/admin/users", { email, username, cursor, limit: size }, signal),
    [email, username, cursor, size],
  );
  return (
    <Screen
      title={t("admin-directory.users.title")}
      intro={t("admin-directory.users.intro")}
      actions={
        canWrite ? (
          <button
            type="button"
            className="button primary"
            aria-expanded={creating}
            aria-controls="new-user"
            onClick={() => setCreating((open) => !open)}
          >
            {t("admin-directory.users.new")}
          </button>
        ) : null
      }
    >
      {notice ? <Notice>{notice}</Notice> : null}
      {created ? (
        <Notice>
          {rich("admin-directory.users.created", {
            user: <Link to={`/console/admin/users/${encodeURIComponent(created.id)}`}>{created.email}</Link>,
          })}
        </Notice>
      ) : null}
      {canWrite && creating ? (
        <div id="new-user">
          <Panel title={t("admin-directory.users.new")}>
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
      <PagedTable
        load={{ state, reload }}
        paging={paging}
        label={t("admin-directory.users.loading")}
        caption={t("admin-directory.users.caption")}
        rowKey={(user) => user.id}
        empty={email || username ? t("admin-directory.users.noMatch") : t("admin-directory.users.empty")}
        columns={[
          nameColumn<User>(t("admin-directory.users.email"), (user) => `/console${userPath(user.id)}`, (user) => user.email),
          { header: t("admin-directory.users.username"), cell: (user) => user.username ?? "—" },
          { header: t("admin-directory.users.displayName"), cell: (user) => user.displayName || "—" },
          { header: t("admin-directory.users.status"), cell: (user) => <StatusTag disabled={user.disabled} /> },
        ]}
      />
    </Screen>
  );
}

export function UserScreen({ params }: { params: Record<string, string> }) {
  return <UserDetail id={params.id ?? ""} />;
}
