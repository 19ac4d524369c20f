/**
 * The settings of a webhook endpoint, for its creation and for a change: URL, description,
 * the event types it receives (from `GET /admin/webhooks/event-types`, by family, with "All
 * event types") and whether it is enabled. The API's field errors (`url`, `eventTypes[2]`…)
 * show at their field.
 */
import { useId, useState } from "react";
import { t } from "../../../i18n";
import { useForm } from "../../../ui/bind";
import { Checkbox, Form, SubmitButton, type Submission, TextField } from "../../../ui/form";
import { Loaded, useLoad } from "../../../ui/load";
import { Notice } from "../../../ui/table";
import { listErrors } from "../catalogue/common";
import {
  type EndpointValues,
  type WebhookEndpoint,
  allState,
  endpointProblems,
  eventTypes,
  families,
  orderedTypes,
  toggleAll,
  valuesOf,
} from "./model";

/** A family's heading: the known ones in the reader's language, any other by its name. */
function familyName(family: string): string {
  const id = `admin-ops.webhooks.family.${family}`;
  const text = t(id);
  return text === id ? family : text;
}

export function EndpointForm({
  endpoint,
  label,
  submitLabel,
  onSubmit,
}: {
  /** The endpoint being changed; none for a creation. */
  endpoint?: WebhookEndpoint;
  label: string;
  submitLabel: string;
  /** Sends the values; answers a notice to show, or null when the screen moves on. */
  onSubmit: (values: EndpointValues) => Promise<string | null>;
}) {
  const [notice, setNotice] = useState<string | null>(null);
  const catalogue = useLoad((signal) => eventTypes(signal), []);
  const form = useForm(
    valuesOf(endpoint),
    async (values) => {
      setNotice(null);
      setNotice(await onSubmit(values));
    },
    endpointProblems,
  );
  const { values, submission, text, check, set } = form;
  return (
    <Form submission={submission} label={label}>
      {notice ? <Notice>{notice}</Notice> : null}
      <TextField
        label={t("admin-ops.webhooks.url")}
        type="url"
        hint={t("admin-ops.webhooks.url.hint")}
        autoComplete="off"
        spellCheck={false}
        {...text("url")}
      />
      <TextField label={t("admin-ops.webhooks.description.optional")} autoComplete="off" {...text("description")} />
      <Loaded state={catalogue.state} reload={catalogue.reload} label={t("admin-ops.webhooks.loadingTypes")}>
        {(types) => (
          <EventTypes
            catalogue={types}
            chosen={values.eventTypes}
            onChange={(next) => set("eventTypes", orderedTypes(types, next))}
            submission={submission}
          />
        )}
      </Loaded>
      <Checkbox
        label={t("admin-ops.webhooks.enabled")}
        hint={t("admin-ops.webhooks.enabled.hint")}
        {...check("enabled")}
      />
      <div className="form-row">
        <SubmitButton busy={submission.busy}>{submitLabel}</SubmitButton>
      </div>
    </Form>
  );
}

function EventTypes({
  catalogue,
  chosen,
  onChange,
  submission,
}: {
  catalogue: string[];
  chosen: string[];
  onChange: (next: string[]) => void;
  submission: Submission;
}) {
  const id = useId();
  const error = listErrors(submission, "eventTypes", (index) => chosen[index]);
  const all = allState(catalogue, chosen);
  const picked = new Set(chosen);
  const flip = (type: string, on: boolean): void =>
    onChange(on ? [...chosen, type] : chosen.filter((other) => other !== type));
  const describedBy = [`${id}-hint`, error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <fieldset className={error ? "choices event-types has-error" : "choices event-types"} aria-describedby={describedBy}>
      <legend>{t("admin-ops.webhooks.eventTypes")}</legend>
      <p className="hint" id={`${id}-hint`}>
        {t("admin-ops.webhooks.types.chosen", { chosen: chosen.length, total: catalogue.length })}
      </p>
      {error ? (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
      <div className="check select-all">
        <input
          id={`${id}-all`}
          type="checkbox"
          checked={all === "all"}
          ref={(box) => {
            if (box) box.indeterminate = all === "some";
          }}
          aria-invalid={error ? true : undefined}
          onChange={() => onChange(toggleAll(catalogue, chosen))}
        />
        <label htmlFor={`${id}-all`}>{t("admin-ops.webhooks.types.all")}</label>
      </div>
      {families(catalogue).map(({ family, types }) => (
        <fieldset key={family} className="event-family">
          <legend>{familyName(family)}</legend>
          {types.map((type) => (
            <Checkbox
              key={type}
              label={<code>{type}</code>}
              checked={picked.has(type)}
              onChange={(event) => flip(type, event.currentTarget.checked)}
            />
          ))}
        </fieldset>
      ))}
      {chosen
        .filter((type) => !catalogue.includes(type))
        .map((type) => (
          <Checkbox
            key={type}
            label={
              <>
                <code>{type}</code> {t("admin-ops.webhooks.types.gone")}
              </>
            }
            checked
            onChange={() => flip(type, false)}
          />
        ))}
    </fieldset>
  );
}
