/**
 * `/console/admin/users/:id`: the facts of one person, their details form, grants,
 * profile values, passkeys and the actions on their password, authenticator, face and
 * sessions.
 */
import { useState } from "react";
import { get, patch } from "../../../api/client";
import { hasScope } from "../../../auth/session";
import { t } from "../../../i18n";
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
  return disabled ? (
    <span className="tag bad">{t("admin-directory.user.disabled")}</span>
  ) : (
    <span className="tag ok">{t("admin-directory.user.active")}</span>
  );
}

function UserFacts({ user }: { user: User }) {
  return (
    <Facts
      rows={[
        [
          t("admin-directory.user.email"),
          <>
            {user.email}{" "}
            {user.emailVerified ? (
              <span className="tag ok">{t("admin-directory.user.verified")}</span>
            ) : (
              <span className="tag">{t("admin-directory.user.notVerified")}</span>
            )}
          </>,
        ],
        [t("admin-directory.user.username"), user.username ?? "—"],
        [t("admin-directory.user.displayName"), user.displayName || "—"],
        [t("admin-directory.user.status"), <StatusTag disabled={user.disabled} />],
        [t("admin-directory.user.created"), formatTime(user.createdAt)],
        [t("admin-directory.user.lastChanged"), formatTime(user.updatedAt)],
        [t("admin-directory.user.id"), <code>{user.id}</code>],
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
    (values) => blankErrors(values, { email: t("admin-directory.user.emailMissing") }),
  );
  const { submission, text, check, setValues } = form;
  const emailChanged = form.values.email.trim().toLowerCase() !== user.email.toLowerCase();
  return (
    <Form submission={submission} label={t("admin-directory.user.details")}>
      <TextField
        label={t("admin-directory.user.email")}
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
        label={t("admin-directory.user.emailVerified")}
        hint={emailChanged ? t("admin-directory.user.emailVerifiedHint") : undefined}
        {...check("emailVerified")}
      />
      <TextField
        label={t("admin-directory.user.username")}
        hint={t("admin-directory.user.usernameHint")}
        autoComplete="off"
        {...text("username")}
      />
      <TextField label={t("admin-directory.user.displayName")} autoComplete="off" {...text("displayName")} />
      <Checkbox
        label={t("admin-directory.user.disabled")}
        hint={t("admin-directory.user.disabledHint")}
        {...check("disabled")}
      />
      <SubmitRow submission={submission}>{t("admin-directory.user.saveDetails")}</SubmitRow>
      {saved && !submission.error ? <Notice>{t("admin-directory.saved")}</Notice> : null}
    </Form>
  );
}

export function UserDetail({ id }: { id: string }) {
  const canWrite = hasScope(WRITE);
  const { state, reload } = useLoad((signal) => get<User>(userPath(id), undefined, signal), [id]);
  const title = state.status === "ready" ? state.data.displayName || state.data.email : t("admin-directory.user.title");
  return (
    <Screen
      title={title}
      intro={
        <>
          {state.status === "ready" && state.data.displayName ? `${state.data.email} · ` : null}
          <Link to="/console/admin/users">{t("admin-directory.user.all")}</Link>
        </>
      }
    >
      <Loaded state={state} reload={reload} label={t("admin-directory.user.loading")}>
        {(user) => (
          <>
            <Panel title={t("admin-directory.user.facts")} id="user-facts">
              <UserFacts user={user} />
            </Panel>
            {canWrite ? (
              <Panel title={t("admin-directory.user.details")} id="user-details">
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
