/**
 * One field of `/entity/profile/schema` as a typed input: text, number, checkbox, date,
 * select, email, tel or url, with "required" in the label and the validators as a hint.
 * A field the person may not change is a read-only input saying who manages it.
 */
import type { ReactNode } from "react";
import { intl, t } from "../../../i18n";
import { Checkbox, SelectField, TextField } from "../../../ui/form";
import type { DataType, FieldValue, SchemaField } from "../api";

/** What an input holds: text for every type but boolean. */
export type Draft = string | boolean;

const INPUT_TYPES: Record<Exclude<DataType, "boolean" | "enum">, string> = {
  string: "text",
  integer: "number",
  date: "date",
  email: "email",
  phone: "tel",
  url: "url",
};

/** The input's value for the API's value. */
export function draftOf(field: SchemaField, value: FieldValue | undefined): Draft {
  if (field.dataType === "boolean") return value === true;
  return value === null || value === undefined ? "" : String(value);
}

/**
 * The API's value for the input's value: empty is null (removes the value), an integer is
 * sent as a number; text that is not one is sent as it is, so the API says what is wrong.
 */
export function valueOf(field: SchemaField, draft: Draft): FieldValue {
  if (typeof draft === "boolean") return draft;
  const text = field.dataType === "string" ? draft : draft.trim();
  if (text === "") return null;
  if (field.dataType === "integer" && /^-?\d+$/.test(text)) {
    const number = Number(text);
    if (Number.isSafeInteger(number)) return number;
  }
  return text;
}

/** The validators in words ("3 to 20 characters", "From 1 to 10"...). */
export function hintOf(field: SchemaField): string[] {
  const v = field.validators;
  const hints: string[] = [];
  if (v.minLength !== undefined && v.maxLength !== undefined)
    hints.push(t("account.field.lengthRange", { min: v.minLength, max: v.maxLength }));
  else if (v.minLength !== undefined) hints.push(t("account.field.lengthMin", { min: v.minLength }));
  else if (v.maxLength !== undefined) hints.push(t("account.field.lengthMax", { max: v.maxLength }));
  if (field.dataType === "date") {
    // Dates are shown as the API has them (ISO 8601), which is also what the date input reads.
    if (v.min !== undefined) hints.push(t("account.field.dateMin", { date: String(v.min) }));
    if (v.max !== undefined) hints.push(t("account.field.dateMax", { date: String(v.max) }));
  } else {
    if (v.min !== undefined && v.max !== undefined) hints.push(t("account.field.range", { min: num(v.min), max: num(v.max) }));
    else if (v.min !== undefined) hints.push(t("account.field.min", { min: num(v.min) }));
    else if (v.max !== undefined) hints.push(t("account.field.max", { max: num(v.max) }));
  }
  if (v.pattern) hints.push(t("account.field.pattern", { pattern: v.pattern }));
  if (field.dataType === "phone") hints.push(t("account.field.phone"));
  if (field.dataType === "url") hints.push(t("account.field.url"));
  if (field.unique) hints.push(t("account.field.unique"));
  return hints;
}

/** A validator's bound in the current language's digits, when it is a number. */
function num(value: number | string | undefined): string {
  return typeof value === "number" ? intl().formatNumber(value) : String(value);
}

function labelOf(field: SchemaField): ReactNode {
  return field.required ? (
    <>
      {field.label} <span className="required">{t("account.field.required")}</span>
    </>
  ) : (
    field.label
  );
}

function shown(draft: Draft): string {
  if (typeof draft === "boolean") return draft ? t("common.yes") : t("common.no");
  return draft;
}

export function ProfileFieldInput({
  field,
  draft,
  onChange,
  error,
  writable,
}: {
  field: SchemaField;
  draft: Draft;
  /** `unreadable`: a number input holding text that is not a number (the browser then reports ""). */
  onChange: (next: Draft, unreadable?: boolean) => void;
  error: string | undefined;
  /** False also when the person's token cannot write at all. */
  writable: boolean;
}) {
  const label = labelOf(field);
  if (!writable) {
    const hint = field.userWritable
      ? t("account.field.readOnly")
      : t("account.field.managed");
    return <TextField label={label} hint={hint} error={error} type="text" value={shown(draft)} readOnly />;
  }
  const hints = hintOf(field);
  const hint = hints.length ? hints.join(" ") : undefined;
  if (field.dataType === "boolean") {
    return (
      <Checkbox
        label={label}
        hint={hint}
        error={error}
        checked={draft === true}
        onChange={(event) => onChange(event.currentTarget.checked)}
      />
    );
  }
  const text = typeof draft === "string" ? draft : "";
  if (field.dataType === "enum") {
    const values = field.enumValues ?? [];
    const options = [
      { value: "", label: field.required ? t("account.field.chooseOne") : t("account.field.none") },
      ...values.map((value) => ({ value, label: value })),
    ];
    // A stored value the administrator has since removed from the list stays visible.
    if (text && !values.includes(text)) options.push({ value: text, label: text });
    return (
      <SelectField
        label={label}
        hint={hint}
        error={error}
        options={options}
        value={text}
        required={field.required}
        onChange={(event) => onChange(event.currentTarget.value)}
      />
    );
  }
  const v = field.validators;
  const ranged = field.dataType === "integer" || field.dataType === "date";
  return (
    <TextField
      label={label}
      hint={hint}
      error={error}
      type={INPUT_TYPES[field.dataType]}
      value={text}
      required={field.required}
      {...(field.dataType === "integer" ? { inputMode: "numeric" as const, step: 1 } : {})}
      {...(ranged && v.min !== undefined ? { min: v.min } : {})}
      {...(ranged && v.max !== undefined ? { max: v.max } : {})}
      {...(!ranged && v.maxLength !== undefined ? { maxLength: v.maxLength } : {})}
      onChange={(event) => onChange(event.currentTarget.value, event.currentTarget.validity.badInput)}
    />
  );
}
