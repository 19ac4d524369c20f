/**
 * The scopes a client may request or a role holds: one checkbox per scope with its
 * description, saved as a whole set (`PUT .../scopes`). Without the write scope the chosen
 * ones are listed instead.
 */
import { useState } from "react";
import { put } from "../../../api/client";
import { t } from "../../../i18n";
import { CheckboxGroup, Form, SubmitButton, useSubmit } from "../../../ui/form";
import { Loaded, useLoad } from "../../../ui/load";
import { Notice } from "../../../ui/table";
import { everyApiScope } from "../../../api/pages";
import { type Scope, listErrors, oidcScopes } from "./common";

export function ScopeChoice({
  path,
  chosen,
  withOidc,
  canWrite,
  legend,
  onSaved,
}: {
  /** The `PUT` route, e.g. `/admin/roles/{id}/scopes`. */
  path: string;
  chosen: readonly string[];
  /** Offer the standard OpenID Connect scopes too (clients; roles cannot hold them). */
  withOidc: boolean;
  canWrite: boolean;
  legend: string;
  onSaved?: () => void;
}) {
  const { state, reload } = useLoad(async (signal) => {
    const scopes = await everyApiScope<Scope>(signal);
    const options = [
      ...(withOidc ? oidcScopes() : []),
      ...scopes.map((scope) => ({ value: scope.value, description: scope.description })),
    ];
    // A chosen value the lists do not know any more stays visible (and can be unticked).
    for (const value of chosen) {
      if (!options.some((option) => option.value === value)) options.push({ value, description: "" });
    }
    return options;
  }, [withOidc]);
  if (!canWrite) {
    return chosen.length ? (
      <ul className="scope-list">
        {chosen.map((value) => (
          <li key={value}>
            <code>{value}</code>
          </li>
        ))}
      </ul>
    ) : (
      <p className="empty">{t("admin-directory.scopes.none")}</p>
    );
  }
  return (
    <Loaded state={state} reload={reload} label={t("admin-directory.scopes.loading")}>
      {(options) => <ScopeForm path={path} chosen={chosen} options={options} legend={legend} onSaved={onSaved} />}
    </Loaded>
  );
}

function ScopeForm({
  path,
  chosen,
  options,
  legend,
  onSaved,
}: {
  path: string;
  chosen: readonly string[];
  options: { value: string; description: string }[];
  legend: string;
  onSaved: (() => void) | undefined;
}) {
  const [value, setValue] = useState<string[]>(() => options.map((o) => o.value).filter((v) => chosen.includes(v)));
  const [saved, setSaved] = useState(false);
  const submission = useSubmit(async () => {
    setSaved(false);
    await put(path, { scopes: value });
    setSaved(true);
    onSaved?.();
  });
  return (
    <Form submission={submission} label={legend}>
      {saved ? <Notice>{t("admin-directory.scopes.saved")}</Notice> : null}
      <CheckboxGroup
        legend={legend}
        options={options.map((option) => ({
          value: option.value,
          label: <code>{option.value}</code>,
          ...(option.description ? { hint: option.description } : {}),
        }))}
        value={value}
        onChange={(next) => {
          setSaved(false);
          setValue(next);
        }}
        error={listErrors(submission, "scopes", (index) => value[index])}
      />
      <div>
        <SubmitButton busy={submission.busy}>{t("admin-directory.scopes.save")}</SubmitButton>
      </div>
    </Form>
  );
}
