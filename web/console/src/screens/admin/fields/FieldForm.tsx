/**
 * The editor of a profile field, for a new field and for a stored one. A stored field
 * shows `key`, type, `unique` and group read-only: they cannot change (rule 4).
 */
import { type Dispatch, type ReactNode, type SetStateAction, useState } from "react";
import { binders } from "../../../ui/bind";
import { Checkbox, Form, SelectField, type Submission, SubmitRow, TextArea, TextField } from "../../../ui/form";
import { t } from "../../../i18n";
import { Facts } from "../../../ui/table";
import { ClaimPreview } from "./ClaimPreview";
import { DATA_TYPES, type Draft, type FieldCreate, RANGED_TYPES, TEXT_TYPES, draftOf, typeLabel } from "./model";
import type { Choice, EditorOptions } from "./options";

const typeOptions = () => DATA_TYPES.map((value) => ({ value, label: `${typeLabel(value)} (${value})` }));

/** A select that fills the form from a preset of `GET /admin/profile-fields/presets`. */
function PresetPicker({ presets, onPick }: { presets: FieldCreate[]; onPick: (preset: FieldCreate) => void }) {
  const [chosen, setChosen] = useState("");
  const picked = presets.find((preset) => preset.key === chosen);
  return (
    <div className="preset-picker">
      <SelectField
        label={t("admin-ops.fields.preset")}
        hint={t("admin-ops.fields.preset.hint")}
        value={chosen}
        onChange={(event) => {
          const key = event.currentTarget.value;
          setChosen(key);
          const preset = presets.find((p) => p.key === key);
          if (preset) onPick(preset);
        }}
        options={[
          { value: "", label: t("admin-ops.fields.preset.none") },
          ...presets.map((preset) => ({
            value: preset.key,
            label: preset.claimName
              ? t("admin-ops.fields.preset.withClaim", { label: preset.label, claim: preset.claimName })
              : preset.label,
          })),
        ]}
      />
      <p className="hint" role="status">
        {picked ? t("admin-ops.fields.preset.filled", { label: picked.label }) : ""}
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
            label={t("admin-ops.fields.fixed")}
            rows={[
              [t("admin-ops.fields.col.key"), <code>{draft.key}</code>],
              [t("admin-ops.fields.col.type"), typeLabel(draft.dataType)],
              [
                t("admin-ops.fields.unique"),
                draft.unique ? t("admin-ops.fields.unique.yes") : t("admin-ops.fields.unique.no"),
              ],
              [t("admin-ops.fields.group"), draft.groupId ? (groupName ?? draft.groupId) : t("admin-ops.fields.everyone")],
            ]}
          />
        ) : (
          <TextField
            label={t("admin-ops.fields.col.key")}
            hint={t("admin-ops.fields.key.hint")}
            autoComplete="off"
            spellCheck={false}
            {...text("key")}
          />
        )}
        <TextField
          label={t("admin-ops.fields.col.label")}
          hint={t("admin-ops.fields.label.hint")}
          {...text("label")}
        />
        {stored ? null : (
          <SelectField
            label={t("admin-ops.fields.col.type")}
            options={typeOptions()}
            {...text("dataType")}
          />
        )}
        <Fieldset legend={t("admin-ops.fields.rules")}>
          <Checkbox
            label={t("admin-ops.fields.required")}
            hint={t("admin-ops.fields.required.hint")}
            {...check("required")}
          />
          {stored ? null : (
            <Checkbox
              label={t("admin-ops.fields.unique")}
              hint={t("admin-ops.fields.unique.hint")}
              {...check("unique")}
            />
          )}
          <Checkbox
            label={t("admin-ops.fields.userReadable")}
            hint={t("admin-ops.fields.ownProfile")}
            {...check("userReadable")}
          />
          <Checkbox
            label={t("admin-ops.fields.userWritable")}
            hint={t("admin-ops.fields.ownProfile")}
            {...check("userWritable")}
          />
        </Fieldset>
        {TEXT_TYPES.has(draft.dataType) ? (
          <Fieldset legend={t("admin-ops.fields.validation")} hint={t("admin-ops.fields.noLimit")}>
            <TextField
              label={t("admin-ops.fields.pattern")}
              hint={t("admin-ops.fields.pattern.hint")}
              spellCheck={false}
              autoComplete="off"
              {...text("pattern", "validators.pattern")}
            />
            <div className="field-pair">
              <TextField label={t("admin-ops.fields.minLength")} type="number" inputMode="numeric" min={0} {...text("minLength", "validators.minLength")} />
              <TextField label={t("admin-ops.fields.maxLength")} type="number" inputMode="numeric" min={0} {...text("maxLength", "validators.maxLength")} />
            </div>
          </Fieldset>
        ) : null}
        {ranged ? (
          <Fieldset legend={t("admin-ops.fields.validation")} hint={t("admin-ops.fields.noLimit")}>
            <div className="field-pair">
              <TextField label={t("admin-ops.fields.min")} type={boundType} {...text("min", "validators.min")} />
              <TextField label={t("admin-ops.fields.max")} type={boundType} {...text("max", "validators.max")} />
            </div>
          </Fieldset>
        ) : null}
        {draft.dataType === "enum" ? (
          <TextArea
            label={t("admin-ops.fields.permittedValues")}
            hint={t("admin-ops.fields.onePerLine")}
            spellCheck={false}
            {...text("enumValues")}
          />
        ) : null}
        <TextField
          label={t("admin-ops.fields.displayOrder")}
          type="number"
          inputMode="numeric"
          hint={
            stored
              ? t("admin-ops.fields.order.hint")
              : t("admin-ops.fields.order.hintNew")
          }
          {...text("displayOrder")}
        />
        {stored ? null : (
          <SelectField
            label={t("admin-ops.fields.group")}
            hint={t("admin-ops.fields.group.hint")}
            options={withCurrent(options.groups, draft.groupId, t("admin-ops.fields.group.none"))}
            {...text("groupId")}
          />
        )}
        <Fieldset
          legend={t("admin-ops.fields.col.claim")}
          hint={t("admin-ops.fields.claim.hint")}
        >
          <TextField label={t("admin-ops.fields.claimName")} spellCheck={false} autoComplete="off" {...text("claimName")} />
          <SelectField
            label={t("admin-ops.fields.claimScope")}
            hint={t("admin-ops.fields.claimScope.hint")}
            options={withCurrent(options.scopes, draft.claimScope, t("admin-ops.fields.claimScope.none"))}
            {...text("claimScope")}
          />
        </Fieldset>
        <SubmitRow submission={submission}>{submitLabel}</SubmitRow>
      </Form>
      <ClaimPreview draft={draft} groupName={groupName} />
    </div>
  );
}
