/**
 * A person's profile values (`GET/PATCH /admin/users/{id}/profile`): one typed input per
 * field that applies to them (the definitions from `GET /admin/profile-fields`). Only the
 * changed keys are sent; an emptied input sends null, which removes the value.
 */
import { useState } from "react";
import { get, patch } from "../../../api/client";
import { hasScope } from "../../../auth/session";
import { t } from "../../../i18n";
import { Panel } from "../../../ui/Screen";
import { Form, SelectField, SubmitRow, TextField, useSubmit } from "../../../ui/form";
import { Loaded, useLoad } from "../../../ui/load";
import { Notice } from "../../../ui/table";
import { everyItem } from "../../../api/pages";
import { type DataType, type ProfileField, type ProfileValue, userPath } from "./model";

type Values = Record<string, ProfileValue>;

interface ProfileData {
  values: Values;
  fields: ProfileField[];
}

async function load(userId: string, signal: AbortSignal): Promise<ProfileData> {
  const [values, defined] = await Promise.all([
    get<Values>(`${userPath(userId)}/profile`, undefined, signal),
    hasScope("idp:profile-fields:read")
      ? everyItem<ProfileField>("/admin/profile-fields", signal)
      : Promise.resolve([] as ProfileField[]),
  ]);
  const byKey = new Map(defined.map((field) => [field.key, field]));
  // Every key the profile answers, in display order; unknown definitions as plain text.
  const fields = Object.keys(values)
    .map(
      (key): ProfileField =>
        byKey.get(key) ?? {
          id: key,
          key,
          label: key,
          dataType: "string",
          required: false,
          enumValues: null,
          displayOrder: Number.MAX_SAFE_INTEGER,
        },
    )
    .sort((a, b) => a.displayOrder - b.displayOrder || a.key.localeCompare(b.key));
  return { values, fields };
}

/** The text an input holds for a stored value. */
function toText(value: ProfileValue): string {
  if (value === null) return "";
  if (typeof value === "boolean") return value ? "true" : "false";
  return String(value);
}

const INPUT_TYPE: Record<DataType, string> = {
  string: "text",
  integer: "number",
  boolean: "text",
  date: "date",
  enum: "text",
  email: "email",
  phone: "tel",
  url: "url",
};

/** The wire value of an input's text; an error sentence when it cannot be one. */
function toValue(field: ProfileField, text: string): { value: ProfileValue } | { error: string } {
  const trimmed = field.dataType === "string" ? text : text.trim();
  if (trimmed === "") return { value: null };
  if (field.dataType === "integer") {
    if (!/^-?\d+$/.test(trimmed)) return { error: t("admin-directory.profile.notWhole") };
    const number = Number(trimmed);
    return Number.isSafeInteger(number) ? { value: number } : { error: t("admin-directory.profile.tooLarge") };
  }
  if (field.dataType === "boolean") return { value: trimmed === "true" };
  return { value: trimmed };
}

function ValueInput({
  field,
  text,
  onChange,
  error,
  readOnly,
}: {
  field: ProfileField;
  text: string;
  onChange: (text: string) => void;
  error: string | undefined;
  readOnly: boolean;
}) {
  const hint = (
    <>
      <code>{field.key}</code>
      {field.required ? t("admin-directory.profile.required") : t("admin-directory.profile.emptyRemoves")}
    </>
  );
  if ((field.dataType === "boolean" || field.dataType === "enum") && !readOnly) {
    const choices =
      field.dataType === "boolean"
        ? [
            { value: "true", label: t("admin-directory.profile.yes") },
            { value: "false", label: t("admin-directory.profile.no") },
          ]
        : (field.enumValues ?? []).map((value) => ({ value, label: value }));
    return (
      <SelectField
        label={field.label}
        hint={hint}
        value={text}
        onChange={(event) => onChange(event.currentTarget.value)}
        options={[{ value: "", label: t("admin-directory.profile.noValue") }, ...choices]}
        error={error}
      />
    );
  }
  return (
    <TextField
      label={field.label}
      hint={hint}
      type={readOnly ? "text" : INPUT_TYPE[field.dataType]}
      autoComplete="off"
      readOnly={readOnly}
      value={readOnly && field.dataType === "boolean" ? (text === "" ? "" : text === "true" ? t("admin-directory.profile.yes") : t("admin-directory.profile.no")) : text}
      onChange={(event) => onChange(event.currentTarget.value)}
      error={error}
      {...(field.dataType === "integer" ? { inputMode: "numeric" as const, step: 1 } : {})}
    />
  );
}

function ValuesForm({ userId, data, canWrite }: { userId: string; data: ProfileData; canWrite: boolean }) {
  const [stored, setStored] = useState(data.values);
  const [texts, setTexts] = useState(() =>
    Object.fromEntries(data.fields.map((field) => [field.key, toText(data.values[field.key] ?? null)])),
  );
  const [saved, setSaved] = useState(false);
  const parse = (): { changes: Values; errors: Record<string, string> } => {
    const changes: Values = {};
    const errors: Record<string, string> = {};
    for (const field of data.fields) {
      const text = texts[field.key] ?? "";
      if (text === toText(stored[field.key] ?? null)) continue;
      const parsed = toValue(field, text);
      if ("error" in parsed) errors[field.key] = parsed.error;
      else changes[field.key] = parsed.value;
    }
    return { changes, errors };
  };
  const submission = useSubmit(
    async () => {
      setSaved(false);
      const { changes } = parse();
      if (Object.keys(changes).length) {
        const next = await patch<Values>(`${userPath(userId)}/profile`, changes);
        setStored(next);
        setTexts(Object.fromEntries(data.fields.map((field) => [field.key, toText(next[field.key] ?? null)])));
      }
      setSaved(true);
    },
    () => parse().errors,
  );
  const inputs = data.fields.map((field) => (
    <ValueInput
      key={field.key}
      field={field}
      text={texts[field.key] ?? ""}
      onChange={(text) => setTexts((before) => ({ ...before, [field.key]: text }))}
      error={submission.fieldError(field.key)}
      readOnly={!canWrite}
    />
  ));
  if (!canWrite) return <div className="form">{inputs}</div>;
  return (
    <Form submission={submission} label={t("admin-directory.profile.title")}>
      {inputs}
      <SubmitRow submission={submission}>{t("admin-directory.profile.save")}</SubmitRow>
      {saved && !submission.error ? <Notice>{t("admin-directory.saved")}</Notice> : null}
    </Form>
  );
}

export function ProfileValues({ userId, canWrite }: { userId: string; canWrite: boolean }) {
  const { state, reload } = useLoad((signal) => load(userId, signal), [userId]);
  return (
    <Panel title={t("admin-directory.profile.title")} id="user-profile">
      <Loaded state={state} reload={reload} label={t("admin-directory.profile.loading")}>
        {(data) =>
          data.fields.length === 0 ? (
            <p className="empty">{t("admin-directory.profile.none")}</p>
          ) : (
            <ValuesForm userId={userId} data={data} canWrite={canWrite} />
          )
        }
      </Loaded>
    </Panel>
  );
}
