/**
 * The name and description of a role or a group, for its creation and for a change (the
 * two resources have the same rules: name unique and not blank, description optional).
 */
import { useState } from "react";
import { t } from "../../../i18n";
import { blankErrors, useForm } from "../../../ui/bind";
import { Form, SubmitButton, TextArea, TextField } from "../../../ui/form";
import { Notice } from "../../../ui/table";

export function NamedForm({
  label,
  submitLabel,
  initial,
  nameHint,
  onSubmit,
}: {
  label: string;
  submitLabel: string;
  initial?: { name: string; description: string };
  nameHint?: string;
  /** Sends the values; answers a notice to show, or null when the screen moves on. */
  onSubmit: (values: { name: string; description: string }) => Promise<string | null>;
}) {
  const [notice, setNotice] = useState<string | null>(null);
  const { submission, text } = useForm(
    { name: initial?.name ?? "", description: initial?.description ?? "" },
    async ({ name, description }) => {
      setNotice(null);
      setNotice(await onSubmit({ name: name.trim(), description: description.trim() }));
    },
    (values) => blankErrors(values, { name: t("admin-directory.named.nameMissing") }),
  );
  return (
    <Form submission={submission} label={label}>
      {notice ? <Notice>{notice}</Notice> : null}
      <TextField label={t("admin-directory.named.name")} hint={nameHint} {...text("name")} autoComplete="off" />
      <TextArea label={t("admin-directory.named.description")} hint={t("admin-directory.named.optional")} {...text("description")} rows={2} />
      <div>
        <SubmitButton busy={submission.busy}>{submitLabel}</SubmitButton>
      </div>
    </Form>
  );
}
