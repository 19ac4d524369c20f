/**
 * What an administrator does to a person's sign-in: set or remove the password, clear the
 * authenticator, remove the face template, end every session, delete the person. Each
 * asks first (`ConfirmButton`).
 */
import { useState } from "react";
import { del, post } from "../../../api/client";
import { t } from "../../../i18n";
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
      setNotice(t("admin-directory.actions.passwordSet"));
    },
    (values) => blankErrors(values, {}, { password: t("admin-directory.actions.passwordMissing") }),
  );
  const setIt = form.submission;
  const remove = async (): Promise<void> => {
    setNotice(null);
    setIt.reset();
    await post(`${userPath(user.id)}/reset-password`);
    setNotice(t("admin-directory.actions.passwordRemoved"));
  };
  return (
    <Panel title={t("admin-directory.actions.password")} id="user-password">
      <p className="hint">{t("admin-directory.actions.passwordHint")}</p>
      <div className="form">
        <FormErrors submission={setIt} />
        <TextField
          label={t("admin-directory.actions.newPassword")}
          type="password"
          autoComplete="new-password"
          hint={t("admin-directory.actions.newPasswordHint")}
          {...form.text("password")}
        />
        <div className="form-row">
          <ConfirmButton
            label={t("admin-directory.actions.setPassword")}
            title={t("admin-directory.actions.setPasswordQuestion")}
            confirmLabel={t("admin-directory.actions.setPassword")}
            danger={false}
            className="button primary"
            onConfirm={async () => {
              await setIt.run();
            }}
          >
            <p>{t("admin-directory.actions.setPasswordConsequence", { email: user.email })}</p>
          </ConfirmButton>
          <ConfirmButton
            label={t("admin-directory.actions.removePassword")}
            title={t("admin-directory.actions.removePasswordQuestion")}
            confirmLabel={t("admin-directory.actions.removePassword")}
            onConfirm={remove}
          >
            <p>{t("admin-directory.actions.removePasswordConsequence", { email: user.email })}</p>
          </ConfirmButton>
        </div>
      </div>
      {notice ? <Notice>{notice}</Notice> : null}
    </Panel>
  );
}

/** The sign-in actions: what each removes (`DELETE <user><path>`), what it says, and its notice. */
function signInActions(): {
  label: string;
  question: string;
  path: string;
  done: string;
  says: (email: string) => string;
}[] {
  return [
    {
      label: t("admin-directory.actions.clearTotp"),
      question: t("admin-directory.actions.clearTotpQuestion"),
      path: "/totp",
      done: t("admin-directory.actions.clearTotpDone"),
      says: (email) => t("admin-directory.actions.clearTotpConsequence", { email }),
    },
    {
      label: t("admin-directory.actions.removeFace"),
      question: t("admin-directory.actions.removeFaceQuestion"),
      path: "/face",
      done: t("admin-directory.actions.removeFaceDone"),
      says: (email) => t("admin-directory.actions.removeFaceConsequence", { email }),
    },
    {
      label: t("admin-directory.actions.endSessions"),
      question: t("admin-directory.actions.endSessionsQuestion"),
      path: "/sessions",
      done: t("admin-directory.actions.endSessionsDone"),
      says: (email) => t("admin-directory.actions.endSessionsConsequence", { email }),
    },
  ];
}

function SignInPanel({ user }: { user: User }) {
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <Panel title={t("admin-directory.actions.signIn")} id="user-sign-in">
      <div className="users-actions">
        {signInActions().map((action) => (
          <ConfirmButton
            key={action.path}
            label={action.label}
            title={action.question}
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
      <Panel title={t("admin-directory.actions.delete")} id="user-delete">
        <p>{t("admin-directory.actions.deleteWarning")}</p>
        <ConfirmButton
          label={t("admin-directory.actions.deleteButton")}
          title={t("admin-directory.actions.deleteQuestion")}
          confirmLabel={t("admin-directory.actions.deleteButton")}
          onConfirm={async () => {
            await del(userPath(user.id));
            carryNotice("/console/admin/users", t("admin-directory.actions.deleted", { email: user.email }));
            navigate("/console/admin/users");
          }}
        >
          <p>{t("admin-directory.actions.deleteConsequence", { email: user.email })}</p>
        </ConfirmButton>
      </Panel>
    </>
  );
}
