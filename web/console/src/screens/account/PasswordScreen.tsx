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
import { t } from "../../i18n";
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
      ...blankErrors(values, {}, { currentPassword: t("account.password.enterCurrent"), newPassword: t("account.password.enterNew") }),
      ...(values.newPassword && values.confirmPassword !== values.newPassword
        ? { confirmPassword: t("account.password.mismatch") }
        : {}),
    }),
  );
  return (
    <Form submission={submission} label={t("account.password.change")}>
      <TextField label={t("account.password.current")} type="password" autoComplete="current-password" {...text("currentPassword")} />
      <TextField
        label={t("account.password.new")}
        hint={t("account.password.newHint")}
        type="password"
        autoComplete="new-password"
        {...text("newPassword")}
      />
      <TextField label={t("account.password.again")} type="password" autoComplete="new-password" {...text("confirmPassword")} />
      <SubmitRow submission={submission} busyLabel={t("account.password.changing")}>{t("account.password.submit")}</SubmitRow>
    </Form>
  );
}

export function PasswordScreen(_props: { params: Record<string, string> }) {
  const [changed, setChanged] = useState(false);
  return (
    <Screen
      title={t("account.password.title")}
      intro={t("account.password.intro")}
    >
      {changed ? (
        <div className="done">
          <Notice>{t("account.password.changed")}</Notice>
          <button type="button" className="button primary" onClick={() => void beginSignIn("/console/")}>
            {t("account.password.signInAgain")}
          </button>
        </div>
      ) : (
        <Panel title={t("account.password.change")}>
          {hasScope("idp:account:write") ? (
            <PasswordForm onChanged={() => setChanged(true)} />
          ) : (
            <p>{t("account.password.cannot")}</p>
          )}
        </Panel>
      )}
    </Screen>
  );
}
