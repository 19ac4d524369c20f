/**
 * "Email": changes the sign-in address (`POST /entity/credentials/email`) with the current
 * password. Needs a recent sign-in: an older one goes through sign-in and back here (the
 * console says so), and the person submits again.
 */
import { useState } from "react";
import { get, post } from "../../api/client";
import { hasScope } from "../../auth/session";
import { t } from "../../i18n";
import { Panel, Screen } from "../../ui/Screen";
import { blankErrors, useForm } from "../../ui/bind";
import { Form, SubmitRow, TextField } from "../../ui/form";
import { Loaded, useLoad } from "../../ui/load";
import { Notice } from "../../ui/table";
import type { Profile } from "./api";

function EmailForm({ onChanged }: { onChanged: (profile: Profile) => void }) {
  const [notice, setNotice] = useState<string | null>(null);
  const form = useForm(
    { email: "", currentPassword: "" },
    async ({ email, currentPassword }) => {
      setNotice(null);
      const profile = await post<Profile>("/entity/credentials/email", { email: email.trim(), currentPassword });
      form.reset();
      onChanged(profile);
      setNotice(t("account.email.changed", { email: profile.email }));
    },
    (values) =>
      blankErrors(values, { email: t("account.email.enterNew") }, { currentPassword: t("account.password.enterCurrent") }),
  );
  const { submission, text } = form;
  return (
    <Form submission={submission} label={t("account.email.change")}>
      {notice ? <Notice>{notice}</Notice> : null}
      <TextField
        label={t("account.email.new")}
        type="email"
        autoComplete="email"
        autoCapitalize="none"
        spellCheck={false}
        {...text("email")}
      />
      <TextField
        label={t("account.password.current")}
        hint={t("account.email.currentPasswordHint")}
        type="password"
        autoComplete="current-password"
        {...text("currentPassword")}
      />
      <SubmitRow submission={submission}>{t("account.email.submit")}</SubmitRow>
    </Form>
  );
}

export function EmailScreen(_props: { params: Record<string, string> }) {
  const { state, reload } = useLoad((signal) => get<Profile>("/entity/profile", undefined, signal), []);
  const [changed, setChanged] = useState<Profile | null>(null);
  return (
    <Screen
      title={t("account.email.title")}
      intro={t("account.email.intro")}
    >
      <Loaded state={state} reload={reload}>
        {(loaded) => {
          const profile = changed ?? loaded;
          return (
            <>
              <Panel title={t("account.email.current")}>
                <p>
                  {profile.email}{" "}
                  {profile.emailVerified ? (
                    <span className="tag ok">{t("account.email.verified")}</span>
                  ) : (
                    <span className="tag bad">{t("account.email.notVerified")}</span>
                  )}
                </p>
              </Panel>
              <Panel title={t("account.email.change")}>
                {hasScope("idp:account:write") ? (
                  <EmailForm onChanged={setChanged} />
                ) : (
                  <p>{t("account.email.cannot")}</p>
                )}
              </Panel>
            </>
          );
        }}
      </Loaded>
    </Screen>
  );
}
