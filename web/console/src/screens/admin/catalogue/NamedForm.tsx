/**
 * The name and description of a role or a group, for its creation and for a change (the
 * two resources have the same rules: name unique and not blank, description optional).
 */
import { useState } from "react";
import { Form, SubmitButton, TextArea, TextField, useSubmit } from "../../../ui/form";
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
  const [name, setName] = useState(initial?.name ?? "");
  const [description, setDescription] = useState(initial?.description ?? "");
  const [notice, setNotice] = useState<string | null>(null);
  const submission = useSubmit(
    async () => {
      setNotice(null);
      setNotice(await onSubmit({ name: name.trim(), description: description.trim() }));
    },
    () => (name.trim() ? {} : { name: "Enter a name." }),
  );
  return (
    <Form submission={submission} label={label}>
      {notice ? <Notice>{notice}</Notice> : null}
      <TextField
        label="Name"
        hint={nameHint}
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
        error={submission.fieldError("name")}
        autoComplete="off"
      />
      <TextArea
        label="Description"
        hint="Optional."
        value={description}
        onChange={(event) => setDescription(event.currentTarget.value)}
        error={submission.fieldError("description")}
        rows={2}
      />
      <div>
        <SubmitButton busy={submission.busy}>{submitLabel}</SubmitButton>
      </div>
    </Form>
  );
}
