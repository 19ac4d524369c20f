/**
 * Form parts with the accessibility rules of the sign-in page (docs/frontends.md): every
 * control has a `<label for>`, hints and errors are tied to it with `aria-describedby`, a
 * field in error has `aria-invalid`, and the error summary (`role="alert"`) takes focus.
 */
import {
  type FormEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
  useCallback,
  useEffect,
  useId,
  useRef,
  useState,
} from "react";
import { ApiError, Redirecting, describeError } from "../api/client";
import { t } from "../i18n";

/** The state of one submission: busy while it runs, then the error it raised, if any. */
export interface Submission {
  busy: boolean;
  error: unknown;
  /** The API's message for a field (`email`, `scopes[1]`...), or a local one. */
  fieldError: (field: string) => string | undefined;
  run: (event?: FormEvent) => Promise<boolean>;
  setLocalErrors: (errors: Record<string, string>) => void;
  reset: () => void;
}

/**
 * Runs `action` on submit; answers true when it succeeded. Field errors of a 422/409
 * come from the problem's `errors[]`; `validate` may refuse before anything is sent.
 */
export function useSubmit(action: () => Promise<void>, validate?: () => Record<string, string>): Submission {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [local, setLocal] = useState<Record<string, string>>({});
  const run = useCallback(
    async (event?: FormEvent): Promise<boolean> => {
      event?.preventDefault();
      const refused = validate?.() ?? {};
      setLocal(refused);
      if (Object.keys(refused).length) {
        setError(null);
        return false;
      }
      setBusy(true);
      setError(null);
      try {
        await action();
        return true;
      } catch (caught) {
        setError(caught);
        return false;
      } finally {
        setBusy(false);
      }
    },
    [action, validate],
  );
  const fieldError = (field: string): string | undefined =>
    local[field] ?? (error instanceof ApiError ? error.fieldMessage(field) : undefined);
  return {
    busy,
    error,
    fieldError,
    run,
    setLocalErrors: setLocal,
    reset: () => {
      setError(null);
      setLocal({});
    },
  };
}

interface Invalid {
  id: string;
  label: string;
  message: string;
}

/** The controls in error inside `form`, with their label and their error sentence. */
function invalidControls(form: Element | null): Invalid[] {
  if (!form) return [];
  const found: Invalid[] = [];
  for (const control of form.querySelectorAll<HTMLElement>('[aria-invalid="true"], fieldset.has-error')) {
    const id = control.id || control.querySelector("input")?.id || "";
    const label =
      control instanceof HTMLFieldSetElement
        ? (control.querySelector("legend")?.textContent ?? "")
        : (form.querySelector(`label[for="${CSS.escape(id)}"]`)?.textContent ?? "");
    const errorId = (control.getAttribute("aria-describedby") ?? "").split(" ").find((ref) => ref.endsWith("-error"));
    const message = errorId ? (document.getElementById(errorId)?.textContent ?? "") : "";
    if (id && message) found.push({ id, label: label.trim(), message });
  }
  return found;
}

/**
 * The error summary above a form (the GOV.UK pattern): it takes focus when it appears and
 * lists each field in error by its label, linked to the field; the field shows its own
 * sentence too. Without field errors it shows the problem's sentence.
 */
export function FormErrors({ submission }: { submission: Submission }) {
  const box = useRef<HTMLDivElement>(null);
  const { error } = submission;
  const [invalid, setInvalid] = useState<Invalid[]>([]);
  useEffect(() => {
    setInvalid(error ? invalidControls(box.current?.closest("form") ?? null) : []);
    if (error && !(error instanceof Redirecting)) box.current?.focus();
  }, [error]);
  if (!error) return null;
  if (error instanceof Redirecting) {
    return (
      <p className="loading" role="status">
        {t("common.signingInAgain")}
      </p>
    );
  }
  const fields = error instanceof ApiError ? (error.problem.errors ?? []) : [];
  return (
    <div className="form-errors" role="alert" tabIndex={-1} ref={box}>
      {fields.length === 0 ? <p>{describeError(error)}</p> : null}
      {fields.length > 0 && invalid.length === 0 ? (
        <ul>
          {fields.map((item) => (
            <li key={`${item.field}:${item.message}`}>{item.message}</li>
          ))}
        </ul>
      ) : null}
      {fields.length > 0 && invalid.length > 0 ? (
        <>
          <p>{invalid.length === 1 ? t("ui.form.oneToCorrect") : t("ui.form.someToCorrect")}</p>
          <ul>
            {invalid.map((item) => (
              <li key={item.id}>
                <a
                  href={`#${item.id}`}
                  onClick={(event) => {
                    event.preventDefault();
                    document.getElementById(item.id)?.focus();
                  }}
                >
                  {item.label ? t("ui.form.fieldError", { label: item.label, message: item.message }) : item.message}
                </a>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}

interface FieldFrame {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | undefined;
}

function useDescribedBy(hint: ReactNode, error: string | undefined) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  return { id, hintId, errorId, describedBy };
}

/** The hint and the error sentence of a control, with the ids its `aria-describedby` names. */
function HintAndError({ hint, hintId, error, errorId }: { hint: ReactNode; hintId?: string | undefined; error?: string | undefined; errorId?: string | undefined }) {
  return (
    <>
      {hint ? (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      ) : null}
    </>
  );
}

/** What a labelled control carries: its id and the accessibility state of its hint and error. */
interface ControlProps {
  id: string;
  "aria-describedby": string | undefined;
  "aria-invalid": true | undefined;
}

/** A label, the hint, the error and the control `render` draws, tied together by ids. */
function Framed({ label, hint, error, render }: FieldFrame & { render: (control: ControlProps) => ReactNode }) {
  const { id, hintId, errorId, describedBy } = useDescribedBy(hint, error);
  return (
    <div className={error ? "field has-error" : "field"}>
      <label htmlFor={id}>{label}</label>
      <HintAndError hint={hint} hintId={hintId} error={error} errorId={errorId} />
      {render({ id, "aria-describedby": describedBy, "aria-invalid": error ? true : undefined })}
    </div>
  );
}

type InputProps = FieldFrame & Omit<InputHTMLAttributes<HTMLInputElement>, "id">;

/** A labelled input (text, email, password, number, date, url, tel, search, file). */
export function TextField({ label, hint, error, ...input }: InputProps) {
  return <Framed label={label} hint={hint} error={error} render={(control) => <input {...control} {...input} />} />;
}

type TextAreaProps = FieldFrame & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "id">;

export function TextArea({ label, hint, error, ...area }: TextAreaProps) {
  return <Framed label={label} hint={hint} error={error} render={(control) => <textarea {...control} {...area} />} />;
}

type SelectProps = FieldFrame &
  Omit<SelectHTMLAttributes<HTMLSelectElement>, "id"> & { options: { value: string; label: string }[] };

export function SelectField({ label, hint, error, options, ...select }: SelectProps) {
  return (
    <Framed
      label={label}
      hint={hint}
      error={error}
      render={(control) => (
        <select {...control} {...select}>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    />
  );
}

type CheckboxProps = { label: ReactNode; hint?: ReactNode; error?: string | undefined } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  "id" | "type"
>;

/** A checkbox with its label after it. */
export function Checkbox({ label, hint, error, ...input }: CheckboxProps) {
  const { id, hintId, errorId, describedBy } = useDescribedBy(hint, error);
  return (
    <div className={error ? "check has-error" : "check"}>
      <input
        id={id}
        type="checkbox"
        aria-describedby={describedBy}
        aria-invalid={error ? true : undefined}
        {...input}
      />
      <label htmlFor={id}>{label}</label>
      <HintAndError hint={hint} hintId={hintId} error={error} errorId={errorId} />
    </div>
  );
}

/**
 * A set of checkboxes in a `<fieldset>` (scopes of a role, roles of a user, grant types):
 * `value` is the chosen list, kept in the order of `options`.
 */
export function CheckboxGroup({
  legend,
  options,
  value,
  onChange,
  error,
  hint,
}: {
  legend: string;
  options: { value: string; label: ReactNode; hint?: string }[];
  value: readonly string[];
  onChange: (next: string[]) => void;
  error?: string | undefined;
  hint?: ReactNode;
}) {
  const id = useId();
  const chosen = new Set(value);
  return (
    <fieldset
      className={error ? "choices has-error" : "choices"}
      aria-describedby={[hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined}
    >
      <legend>{legend}</legend>
      <HintAndError hint={hint} hintId={`${id}-hint`} error={error} errorId={`${id}-error`} />
      {options.length === 0 ? <p className="empty">{t("ui.form.noChoices")}</p> : null}
      {options.map((option) => (
        <Checkbox
          key={option.value}
          label={option.label}
          hint={option.hint}
          checked={chosen.has(option.value)}
          onChange={(event) => {
            const next = new Set(chosen);
            if (event.currentTarget.checked) next.add(option.value);
            else next.delete(option.value);
            onChange(options.map((o) => o.value).filter((v) => next.has(v)));
          }}
        />
      ))}
    </fieldset>
  );
}

/** The submit button: disabled and saying so while the form's request runs. */
export function SubmitButton({ busy, children, busyLabel }: { busy: boolean; children: ReactNode; busyLabel?: string }) {
  return (
    <button type="submit" className="button primary" disabled={busy} aria-disabled={busy}>
      {busy ? (busyLabel ?? t("common.saving")) : children}
    </button>
  );
}

/** The row under a form's fields with its submit button, busy while `submission` runs. */
export function SubmitRow({
  submission,
  busyLabel,
  children,
}: {
  submission: Submission;
  busyLabel?: string;
  children: ReactNode;
}) {
  return (
    <div className="form-row">
      <SubmitButton busy={submission.busy} {...(busyLabel ? { busyLabel } : {})}>
        {children}
      </SubmitButton>
    </div>
  );
}

/** A form with the summary above its fields, `aria-busy` while it submits, no browser validation. */
export function Form({
  submission,
  children,
  label,
  className,
}: {
  submission: Submission;
  children: ReactNode;
  label: string;
  className?: string;
}) {
  return (
    <form
      className={className ?? "form"}
      aria-label={label}
      aria-busy={submission.busy}
      noValidate
      onSubmit={(event) => {
        void submission.run(event);
      }}
    >
      <FormErrors submission={submission} />
      {children}
    </form>
  );
}
