/**
 * A form's values kept in one state, with binders for its controls: `text("email")` gives a
 * TextField its value, its change handler and the error the submission holds for `email`
 * (or for the field the API names, when that differs); `check` does the same for a checkbox.
 */
import { type Dispatch, type SetStateAction, useState } from "react";
import { type Submission, useSubmit } from "./form";

/** The members of `T` whose values are of type `V`. */
type MembersOf<T, V> = { [K in keyof T]: T[K] extends V ? K : never }[keyof T] & string;

export function binders<T extends object>(
  values: T,
  setValues: Dispatch<SetStateAction<T>>,
  submission: Submission | null = null,
) {
  const set = <K extends keyof T>(member: K, value: T[K]): void =>
    setValues((previous) => ({ ...previous, [member]: value }));
  return {
    set,
    text: (member: MembersOf<T, string>, field: string = member) => ({
      value: values[member] as string,
      onChange: (event: { currentTarget: { value: string } }) => set(member, event.currentTarget.value as T[typeof member]),
      error: submission?.fieldError(field),
    }),
    check: (member: MembersOf<T, boolean>, field: string = member) => ({
      checked: values[member] as boolean,
      onChange: (event: { currentTarget: { checked: boolean } }) =>
        set(member, event.currentTarget.checked as T[typeof member]),
      error: submission?.fieldError(field),
    }),
  };
}

/**
 * The values of a form (starting at `initial`), its submission running `action` on them
 * (after `validate`, which may refuse before anything is sent) and the binders of its
 * controls; `reset()` puts the values back to `initial`.
 */
export function useForm<T extends object>(
  initial: T,
  action: (values: T) => Promise<void>,
  validate?: (values: T) => Record<string, string>,
) {
  const [values, setValues] = useState(initial);
  const submission = useSubmit(() => action(values), validate ? () => validate(values) : undefined);
  return { values, setValues, submission, reset: () => setValues(initial), ...binders(values, setValues, submission) };
}

/**
 * A form's "Enter …" messages: for each member named in `blank` whose value is blank (after
 * trimming), and each named in `empty` whose value is empty (a password: spaces are one).
 */
export function blankErrors<T extends object>(
  values: T,
  blank: Partial<Record<MembersOf<T, string>, string>>,
  empty: Partial<Record<MembersOf<T, string>, string>> = {},
): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const [messages, trim] of [[blank, true], [empty, false]] as const) {
    for (const [member, message] of Object.entries(messages) as [MembersOf<T, string>, string][]) {
      const value = String(values[member]);
      if ((trim ? value.trim() : value) === "") errors[member] = message;
    }
  }
  return errors;
}
