/**
 * Profile fields on the wire (`/admin/profile-fields`, idp_common.profile_fields.schema) and
 * the editor's state: every input is kept as text and turned into a body on submit, so a
 * half-typed number never reaches the API and the preview can follow each keystroke.
 */
import { t } from "../../../i18n";

export const DATA_TYPES = ["string", "integer", "boolean", "date", "enum", "email", "phone", "url"] as const;
export type DataType = (typeof DATA_TYPES)[number];

/** A type's name in the reader's language ("Whole number"). */
export function typeLabel(type: string): string {
  const id = `admin-ops.fields.type.${type}`;
  const text = t(id);
  return text === id ? type : text;
}

/** Types whose values are text: `pattern`, `minLength`, `maxLength` apply. */
export const TEXT_TYPES: ReadonlySet<DataType> = new Set(["string", "email", "phone", "url"]);
/** Types with an order: `min`, `max` apply (numbers, or ISO dates). */
export const RANGED_TYPES: ReadonlySet<DataType> = new Set(["integer", "date"]);

export interface Validators {
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  min?: number | string;
  max?: number | string;
}

/** A creation body, and the shape of a preset. */
export interface FieldCreate {
  key: string;
  label: string;
  dataType?: DataType;
  required?: boolean;
  unique?: boolean;
  userReadable?: boolean;
  userWritable?: boolean;
  validators?: Validators;
  enumValues?: string[] | null;
  displayOrder?: number | null;
  groupId?: string | null;
  claimName?: string | null;
  claimScope?: string | null;
}

export interface ProfileField {
  id: string;
  key: string;
  label: string;
  dataType: DataType;
  required: boolean;
  unique: boolean;
  userReadable: boolean;
  userWritable: boolean;
  validators: Validators;
  enumValues: string[] | null;
  displayOrder: number;
  groupId: string | null;
  claimName: string | null;
  claimScope: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What the editor holds: text for every input, booleans for the checkboxes. */
export interface Draft
  extends Pick<ProfileField, "key" | "label" | "dataType" | "required" | "unique" | "userReadable" | "userWritable"> {
  pattern: string;
  minLength: string;
  maxLength: string;
  min: string;
  max: string;
  /** One permitted value per line. */
  enumValues: string;
  displayOrder: string;
  groupId: string;
  claimName: string;
  claimScope: string;
}

/** The defaults of docs/design.md rule 7. */
export const EMPTY_DRAFT: Draft = {
  key: "",
  label: "",
  dataType: "string",
  required: false,
  unique: false,
  userReadable: true,
  userWritable: false,
  pattern: "",
  minLength: "",
  maxLength: "",
  min: "",
  max: "",
  enumValues: "",
  displayOrder: "",
  groupId: "",
  claimName: "",
  claimScope: "",
};

const text = (value: string | number | null | undefined): string =>
  value === null || value === undefined ? "" : String(value);

/** A preset or a stored field as the editor's state. */
export function draftOf(field: FieldCreate | ProfileField): Draft {
  const v = field.validators ?? {};
  return {
    key: field.key,
    label: field.label,
    dataType: field.dataType ?? "string",
    required: field.required ?? false,
    unique: field.unique ?? false,
    userReadable: field.userReadable ?? true,
    userWritable: field.userWritable ?? false,
    pattern: text(v.pattern),
    minLength: text(v.minLength),
    maxLength: text(v.maxLength),
    min: text(v.min),
    max: text(v.max),
    enumValues: (field.enumValues ?? []).join("\n"),
    displayOrder: text(field.displayOrder),
    groupId: field.groupId ?? "",
    claimName: field.claimName ?? "",
    claimScope: field.claimScope ?? "",
  };
}

export function enumList(draft: Draft): string[] {
  return draft.enumValues
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
}

function whole(value: string): number | null {
  const trimmed = value.trim();
  return /^-?\d+$/.test(trimmed) ? Number(trimmed) : null;
}

/**
 * Checks the browser can make before sending: numbers that are not whole numbers. The
 * provider checks everything else and names the member at fault; the keys here are its
 * names, so one `fieldError()` serves both.
 */
export function localErrors(draft: Draft): Record<string, string> {
  const errors: Record<string, string> = {};
  const numbers: [keyof Draft, string][] = [["displayOrder", "displayOrder"]];
  if (TEXT_TYPES.has(draft.dataType)) {
    numbers.push(["minLength", "validators.minLength"], ["maxLength", "validators.maxLength"]);
  }
  if (draft.dataType === "integer") numbers.push(["min", "validators.min"], ["max", "validators.max"]);
  for (const [member, field] of numbers) {
    const value = String(draft[member]);
    if (value.trim() && whole(value) === null) errors[field] = t("admin-ops.fields.error.whole");
  }
  return errors;
}

/** The validators that apply to the draft's type; inputs left empty are left out. */
export function validatorsOf(draft: Draft): Validators {
  const v: Validators = {};
  if (TEXT_TYPES.has(draft.dataType)) {
    if (draft.pattern) v.pattern = draft.pattern;
    const low = whole(draft.minLength);
    const high = whole(draft.maxLength);
    if (low !== null) v.minLength = low;
    if (high !== null) v.maxLength = high;
  } else if (draft.dataType === "integer") {
    const low = whole(draft.min);
    const high = whole(draft.max);
    if (low !== null) v.min = low;
    if (high !== null) v.max = high;
  } else if (draft.dataType === "date") {
    if (draft.min) v.min = draft.min;
    if (draft.max) v.max = draft.max;
  }
  return v;
}

const orNull = (value: string): string | null => (value.trim() ? value.trim() : null);

/** `POST /admin/profile-fields`: every member, defaults sent as they are. */
export function createBody(draft: Draft): FieldCreate {
  const body: FieldCreate = {
    key: draft.key.trim(),
    dataType: draft.dataType,
    unique: draft.unique,
    ...changeable(draft, draft.dataType),
  };
  if (draft.groupId) body.groupId = draft.groupId;
  return body;
}

/** The members a stored field can change (rule 4), as a field of `dataType` sends them. */
function changeable(draft: Draft, dataType: DataType) {
  const members: Pick<
    FieldCreate,
    "label" | "required" | "userReadable" | "userWritable" | "validators" | "claimName" | "claimScope" | "enumValues" | "displayOrder"
  > = {
    label: draft.label,
    required: draft.required,
    userReadable: draft.userReadable,
    userWritable: draft.userWritable,
    validators: validatorsOf(draft),
    claimName: orNull(draft.claimName),
    claimScope: orNull(draft.claimScope),
  };
  if (dataType === "enum") members.enumValues = enumList(draft);
  const order = whole(draft.displayOrder);
  if (order !== null) members.displayOrder = order;
  return members;
}

/**
 * `PATCH /admin/profile-fields/{id}`: only the members that changed (the audit row then
 * names what changed). `key`, `dataType`, `unique` and `groupId` cannot change (rule 4).
 */
export function patchBody(field: ProfileField, draft: Draft): Record<string, unknown> {
  const wanted: Record<string, unknown> = changeable(draft, field.dataType);
  const current = field as unknown as Record<string, unknown>;
  const changed: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(wanted)) {
    if (canonical(value) !== canonical(current[member] ?? null)) changed[member] = value;
  }
  return changed;
}

/** JSON with sorted keys, so `{min, max}` and `{max, min}` compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b)))
      : inner,
  );
}

/** Claims the preview shows with a value people recognise. */
const KNOWN_EXAMPLES: Record<string, string> = {
  given_name: "Ada",
  family_name: "Lovelace",
  birthdate: "1990-01-31",
  phone_number: "+44 20 7946 0958",
  locale: "en-GB",
  zoneinfo: "Europe/London",
  website: "https://example.com/ada",
};

/** An example value of the field's type, as it would appear in a token. */
export function exampleValue(draft: Draft): string | number | boolean {
  const known = KNOWN_EXAMPLES[draft.claimName.trim()];
  const fits = TEXT_TYPES.has(draft.dataType) || (draft.dataType === "date" && /^\d{4}-\d{2}-\d{2}$/.test(known ?? ""));
  if (known !== undefined && fits) return known;
  switch (draft.dataType) {
    case "integer":
      return 42;
    case "boolean":
      return true;
    case "date":
      return "1990-01-31";
    case "enum":
      return enumList(draft)[0] ?? t("admin-ops.fields.example.firstValue");
    case "email":
      return "ada@example.com";
    case "phone":
      return "+44 20 7946 0958";
    case "url":
      return "https://example.com";
    default:
      return t("admin-ops.fields.example.text");
  }
}

export function flagsOf(field: ProfileField): string[] {
  const flags: string[] = [];
  if (field.required) flags.push(t("admin-ops.fields.flag.required"));
  if (field.unique) flags.push(t("admin-ops.fields.flag.unique"));
  if (field.userReadable) flags.push(t("admin-ops.fields.flag.userReadable"));
  if (field.userWritable) flags.push(t("admin-ops.fields.flag.userWritable"));
  if (field.groupId) flags.push(t("admin-ops.fields.flag.groupOnly"));
  return flags;
}
