/**
 * "Profile" (`/console/`): the person's built-in facts, their photo, and the profile fields
 * that apply to them (`/entity/profile/schema`) as typed inputs. Saving sends only what
 * changed (`PATCH /entity/profile`); a refused value is shown next to its field.
 */
import { useState } from "react";
import { get, patch } from "../../api/client";
import { hasScope } from "../../auth/session";
import { t } from "../../i18n";
import { Link } from "../../router";
import { Panel, Screen } from "../../ui/Screen";
import { Form, SubmitRow, TextField, useSubmit } from "../../ui/form";
import { Loaded, useLoad } from "../../ui/load";
import { Notice, formatTime } from "../../ui/table";
import type { FieldValue, Profile, SchemaField } from "./api";
import { PhotoPanel } from "./profile/PhotoPanel";
import { type Draft, ProfileFieldInput, draftOf, valueOf } from "./profile/ProfileField";

const DISPLAY_NAME = "displayName";
const USERNAME = "username";

/** The inputs' values for a profile: the built-ins and every field, by key. */
function draftsOf(profile: Profile, schema: readonly SchemaField[]): Record<string, Draft> {
  const drafts: Record<string, Draft> = {
    [DISPLAY_NAME]: profile.displayName,
    [USERNAME]: profile.username ?? "",
  };
  // A field keyed `username` wins over the built-in (docs/entity-api.md).
  for (const field of schema) drafts[field.key] = draftOf(field, profile.fields[field.key]);
  return drafts;
}

function ProfileForm({
  profile,
  schema,
  onSaved,
}: {
  profile: Profile;
  schema: readonly SchemaField[];
  onSaved: (next: Profile) => void;
}) {
  const canWrite = hasScope("idp:account:write");
  const ownUsername = schema.some((field) => field.key === USERNAME);
  const [initial, setInitial] = useState(() => draftsOf(profile, schema));
  const [drafts, setDrafts] = useState(initial);
  const [notice, setNotice] = useState<string | null>(null);
  // Number inputs holding something that is not a number (their value reads as "").
  const [unreadable, setUnreadable] = useState<ReadonlySet<string>>(new Set());

  const changes = (): Record<string, FieldValue> => {
    const body: Record<string, FieldValue> = {};
    for (const key of ownUsername ? [DISPLAY_NAME] : [DISPLAY_NAME, USERNAME]) {
      const draft = drafts[key];
      if (typeof draft === "string" && draft !== initial[key]) {
        body[key] = key === USERNAME && draft.trim() === "" ? null : draft.trim();
      }
    }
    for (const field of schema) {
      const draft = drafts[field.key];
      if (field.userWritable && draft !== undefined && draft !== initial[field.key]) {
        body[field.key] = valueOf(field, draft);
      }
    }
    return body;
  };

  const submission = useSubmit(async () => {
    setNotice(null);
    const body = changes();
    if (Object.keys(body).length === 0) {
      setNotice(t("account.profile.nothingToSave"));
      return;
    }
    const saved = await patch<Profile>("/entity/profile", body);
    const next = draftsOf(saved, schema);
    setInitial(next);
    setDrafts(next);
    onSaved(saved);
    setNotice(t("account.profile.saved"));
  }, () => Object.fromEntries([...unreadable].map((key) => [key, t("account.profile.wholeNumber")])));

  const set = (key: string) => (value: Draft, bad = false) => {
    setNotice(null);
    setDrafts((current) => ({ ...current, [key]: value }));
    setUnreadable((current) => {
      if (current.has(key) === bad) return current;
      const next = new Set(current);
      if (bad) next.add(key);
      else next.delete(key);
      return next;
    });
  };
  /** A text input's value, change handler, error and read-only state for the member `key`. */
  const bound = (key: string) => {
    const draft = drafts[key];
    return {
      value: typeof draft === "string" ? draft : "",
      readOnly: !canWrite,
      onChange: (event: { currentTarget: { value: string } }) => set(key)(event.currentTarget.value),
      error: submission.fieldError(key),
    };
  };

  return (
    <Form submission={submission} label={t("account.profile.formLabel")}>
      {notice ? <Notice>{notice}</Notice> : null}
      <TextField
        label={t("account.profile.displayName")}
        hint={t("account.profile.displayNameHint")}
        type="text"
        autoComplete="name"
        {...bound(DISPLAY_NAME)}
      />
      {ownUsername ? null : (
        <TextField
          label={t("account.profile.username")}
          hint={t("account.profile.usernameHint")}
          type="text"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          {...bound(USERNAME)}
        />
      )}
      {schema.map((field) => (
        <ProfileFieldInput
          key={field.key}
          field={field}
          draft={drafts[field.key] ?? draftOf(field, null)}
          onChange={set(field.key)}
          error={submission.fieldError(field.key)}
          writable={canWrite && field.userWritable}
        />
      ))}
      {canWrite ? (
        <SubmitRow submission={submission}>{t("account.profile.save")}</SubmitRow>
      ) : (
        <p className="hint">{t("account.profile.readOnly")}</p>
      )}
    </Form>
  );
}

function ProfileView({ loaded }: { loaded: { profile: Profile; schema: SchemaField[] } }) {
  const [profile, setProfile] = useState(loaded.profile);
  return (
    <>
      <Panel title={t("account.profile.facts")}>
        <dl className="facts">
          <dt>{t("account.profile.email")}</dt>
          <dd>
            {profile.email}{" "}
            {profile.emailVerified ? <span className="tag ok">{t("account.email.verified")}</span> : <span className="tag bad">{t("account.email.notVerified")}</span>}{" "}
            <Link to="/console/account/email">{t("account.profile.changeEmail")}</Link>
          </dd>
          <dt>{t("account.profile.created")}</dt>
          <dd>{formatTime(profile.createdAt)}</dd>
          <dt>{t("account.profile.updated")}</dt>
          <dd>{formatTime(profile.updatedAt)}</dd>
        </dl>
      </Panel>
      <PhotoPanel picture={profile.picture} onChange={(picture) => setProfile((p) => ({ ...p, picture }))} />
      <Panel title={t("account.profile.about")}>
        <ProfileForm profile={loaded.profile} schema={loaded.schema} onSaved={setProfile} />
      </Panel>
    </>
  );
}

export function ProfileScreen(_props: { params: Record<string, string> }) {
  const { state, reload } = useLoad(async (signal) => {
    const [profile, schema] = await Promise.all([
      get<Profile>("/entity/profile", undefined, signal),
      get<{ items: SchemaField[] }>("/entity/profile/schema", undefined, signal),
    ]);
    return { profile, schema: schema.items };
  }, []);
  return (
    <Screen title={t("account.profile.title")} intro={t("account.profile.intro")}>
      <Loaded state={state} reload={reload} label={t("account.profile.loading")}>
        {(loaded) => <ProfileView loaded={loaded} />}
      </Loaded>
    </Screen>
  );
}
