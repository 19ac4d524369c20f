/**
 * The editor of a profile field, for a new field and for a stored one. A stored field
 * shows `key`, type, `unique` and group read-only: they cannot change (rule 4).
 */
import { type Dispatch, type ReactNode, type SetStateAction, useState } from "react";
import { binders } from "../../../ui/bind";
import { Checkbox, Form, SelectField, type Submission, SubmitRow, TextArea, TextField } from "../../../ui/form";
import { Facts } from "../../../ui/table";
import { ClaimPreview } from "./ClaimPreview";
import { DATA_TYPES, type Draft, type FieldCreate, RANGED_TYPES, TEXT_TYPES, TYPE_LABELS, draftOf } from "./model";
import type { Choice, EditorOptions } from "./options";

const TYPE_OPTIONS = DATA_TYPES.map((value) => ({ value, label: `${TYPE_LABELS[value]} (${value})` }));

/** A select that fills the form from a preset of `GET /admin/profile-fields/presets`. */
function PresetPicker({ presets, onPick }: { presets: FieldCreate[]; onPick: (preset: FieldCreate) => void }) {
  const [chosen, setChosen] = useState("");
  const picked = presets.find((preset) => preset.key === chosen);
  return (
    <div className="preset-picker">
      <SelectField
        label="Start from a preset"
        hint="Fills in the form below; change anything before creating the field."
        value={chosen}
        onChange={(event) => {
          const key = event.currentTarget.value;
          setChosen(key);
          const preset = presets.find((p) => p.key === key);
          if (preset) onPick(preset);
        }}
        options={[
          { value: "", label: "No preset" },
          ...presets.map((preset) => ({
            value: preset.key,
            label: preset.claimName ? `${preset.label} (claim ${preset.claimName})` : preset.label,
          })),
        ]}
      />
      <p className="hint" role="status">
        {picked ? `Filled in from the preset "${picked.label}".` : ""}
      </p>
    </div>
  );
}

/** Options of a select, keeping a stored value that is not (or no longer) offered. */
function withCurrent(choices: Choice[], current: string, none: string): { value: string; label: string }[] {
  const list = [{ value: "", label: none }, ...choices];
  if (current && !choices.some((choice) => choice.value === current)) list.push({ value: current, label: current });
  return list;
}

function Fieldset({ legend, children, hint }: { legend: string; children: ReactNode; hint?: string }) {
  return (
    <fieldset className="choices">
      <legend>{legend}</legend>
      {hint ? <p className="hint">{hint}</p> : null}
      {children}
    </fieldset>
  );
}

export function FieldForm({
  form,
  options,
  presets,
  stored,
  submitLabel,
  formLabel,
}: {
  /** The draft, its setter and its submission (`useForm`). */
  form: { values: Draft; setValues: Dispatch<SetStateAction<Draft>>; submission: Submission };
  options: EditorOptions;
  /** Given for a new field. */
  presets?: FieldCreate[];
  /** True for a stored field: key, type, unique and group are shown read-only. */
  stored: boolean;
  submitLabel: string;
  formLabel: string;
}) {
  const { values: draft, setValues: onChange, submission } = form;
  const { text, check } = binders(draft, onChange, submission);
  const groupName = options.groupNames.get(draft.groupId);
  const ranged = RANGED_TYPES.has(draft.dataType);
  const boundType = draft.dataType === "date" ? "date" : "number";

  return (
    <div className="field-editor">
      <Form submission={submission} label={formLabel}>
        {presets ? (
          <PresetPicker
            presets={presets}
            onPick={(preset) => {
              submission.reset();
              onChange(draftOf(preset));
            }}
          />
        ) : null}
        {stored ? (
          <Facts
            label="Fixed properties"
            rows={[
              ["Key", <code>{draft.key}</code>],
              ["Type", TYPE_LABELS[draft.dataType]],
              ["Unique", draft.unique ? "Yes: no two people can hold the same value" : "No"],
              ["Group", draft.groupId ? (groupName ?? draft.groupId) : "Everyone"],
            ]}
          />
        ) : (
          <TextField
            label="Key"
            hint="Lowercase letters, digits and _; starts with a letter. Cannot change later."
            autoComplete="off"
            spellCheck={false}
            {...text("key")}
          />
        )}
        <TextField label="Label" hint="What people see next to the field." {...text("label")} />
        {stored ? null : (
          <SelectField
            label="Type"
            options={TYPE_OPTIONS}
            {...text("dataType")}
          />
        )}
        <Fieldset legend="Rules">
          <Checkbox label="Required" hint="A person's value cannot be removed." {...check("required")} />
          {stored ? null : (
            <Checkbox label="Unique" hint="No two people can hold the same value. Cannot change later." {...check("unique")} />
          )}
          <Checkbox label="The person can see it" hint="In their own profile." {...check("userReadable")} />
          <Checkbox label="The person can change it" hint="In their own profile." {...check("userWritable")} />
        </Fieldset>
        {TEXT_TYPES.has(draft.dataType) ? (
          <Fieldset legend="Validation" hint="Leave empty for no limit.">
            <TextField
              label="Pattern"
              hint="A regular expression the whole value must match."
              spellCheck={false}
              autoComplete="off"
              {...text("pattern", "validators.pattern")}
            />
            <div className="field-pair">
              <TextField label="Minimum length" type="number" inputMode="numeric" min={0} {...text("minLength", "validators.minLength")} />
              <TextField label="Maximum length" type="number" inputMode="numeric" min={0} {...text("maxLength", "validators.maxLength")} />
            </div>
          </Fieldset>
        ) : null}
        {ranged ? (
          <Fieldset legend="Validation" hint="Leave empty for no limit.">
            <div className="field-pair">
              <TextField label="Minimum" type={boundType} {...text("min", "validators.min")} />
              <TextField label="Maximum" type={boundType} {...text("max", "validators.max")} />
            </div>
          </Fieldset>
        ) : null}
        {draft.dataType === "enum" ? (
          <TextArea
            label="Permitted values"
            hint="One per line."
            spellCheck={false}
            {...text("enumValues")}
          />
        ) : null}
        <TextField
          label="Display order"
          type="number"
          inputMode="numeric"
          hint={stored ? "Fields are listed by this number." : "Leave empty to place it after the last field."}
          {...text("displayOrder")}
        />
        {stored ? null : (
          <SelectField
            label="Group"
            hint="A group's field applies only to its members."
            options={withCurrent(options.groups, draft.groupId, "Everyone (no group)")}
            {...text("groupId")}
          />
        )}
        <Fieldset legend="Claim" hint="Release the value to applications as a claim. Leave both empty for none.">
          <TextField label="Claim name" spellCheck={false} autoComplete="off" {...text("claimName")} />
          <SelectField
            label="Claim scope"
            hint="The claim is released only when an application is granted this scope."
            options={withCurrent(options.scopes, draft.claimScope, "No scope")}
            {...text("claimScope")}
          />
        </Fieldset>
        <SubmitRow submission={submission}>{submitLabel}</SubmitRow>
      </Form>
      <ClaimPreview draft={draft} groupName={groupName} />
    </div>
  );
}
