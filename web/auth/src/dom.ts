/**
 * Small DOM helpers. Everything is built with createElement and textContent (never
 * innerHTML), so names coming from the API cannot inject markup, and nothing uses inline
 * styles (the CSP forbids them): visibility is the `hidden` property, looks are classes.
 */

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | boolean | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === true) {
      element.setAttribute(name, "");
    } else if (typeof value === "string") {
      element.setAttribute(name, value);
    }
  }
  for (const child of children) {
    if (child !== null && child !== undefined && child !== false) {
      element.append(child);
    }
  }
  return element;
}

let uid = 0;
/** A document-unique id with a readable prefix. */
export function newId(prefix: string): string {
  uid += 1;
  return `${prefix}-${uid}`;
}

function root(): HTMLElement {
  const app = document.getElementById("app");
  if (app === null) {
    throw new Error("missing #app");
  }
  return app;
}

/** What builds the screen now shown, so that a change of language can build it again. */
let build: (() => void) | null = null;
/** What the screen now shown wants done when it goes (a camera to stop, a prompt to end). */
let leaving: (() => void)[] = [];
let redrawing = false;

function leave(): void {
  for (const done of leaving.splice(0)) {
    done();
  }
}

/**
 * Shows the screen `render` builds (with `showScreen`) and remembers it: every screen goes
 * through here, so that the language switcher can show it again in the new language.
 */
export function screen(render: () => void): void {
  leave();
  build = render;
  render();
}

/** Runs `done` when the current screen is replaced (or redrawn). */
export function whenLeft(done: () => void): void {
  leaving.push(done);
}

/** The inputs whose value survives a redraw: what was typed, except secrets and files. */
function keptInputs(): HTMLInputElement[] {
  return [...root().querySelectorAll("input")].filter(
    (input) => input.name !== "" && input.type !== "password" && input.type !== "file",
  );
}

/**
 * Builds the current screen again (the language changed), keeping what was typed in its
 * text fields. Focus stays where it is (on the switcher).
 */
export function redrawScreen(): void {
  if (build === null) {
    return;
  }
  const typed = new Map(keptInputs().map((input) => [input.name, input.value]));
  leave();
  redrawing = true;
  try {
    build();
  } finally {
    redrawing = false;
  }
  for (const input of keptInputs()) {
    const value = typed.get(input.name);
    if (value !== undefined) {
      input.value = value;
    }
  }
}

/**
 * Replaces the page with a new screen: sets the document title, renders the heading and
 * the content, then moves focus to the heading so that keyboard and screen-reader users
 * start at the top of the new step (not when the same screen is redrawn in another
 * language: focus stays on the switcher).
 */
export function showScreen(name: string, title: string, ...content: Child[]): HTMLHeadingElement {
  document.body.dataset.screen = name; // lets tests and styles tell the screens apart
  const heading = h("h1", { id: "screen-title", tabindex: "-1" }, title);
  const app = root();
  app.setAttribute("aria-labelledby", "screen-title");
  app.removeAttribute("aria-busy");
  app.replaceChildren(heading, ...content.filter((c): c is Node | string => Boolean(c)));
  document.title = title;
  if (!redrawing) {
    heading.focus();
  }
  return heading;
}

/** Adds `id` to the space-separated `aria-describedby` list of `element`. */
export function addDescribedBy(element: HTMLElement, id: string): void {
  const ids = new Set((element.getAttribute("aria-describedby") ?? "").split(/\s+/).filter(Boolean));
  ids.add(id);
  element.setAttribute("aria-describedby", [...ids].join(" "));
}

export function removeDescribedBy(element: HTMLElement, id: string): void {
  const ids = (element.getAttribute("aria-describedby") ?? "")
    .split(/\s+/)
    .filter((x) => x && x !== id);
  if (ids.length > 0) {
    element.setAttribute("aria-describedby", ids.join(" "));
  } else {
    element.removeAttribute("aria-describedby");
  }
}

export interface FieldOptions {
  name: string;
  label: string;
  type?: string;
  autocomplete?: string;
  inputmode?: string;
  hint?: string;
  value?: string;
  spellcheck?: boolean;
}

/** A labelled input with an optional hint and an error message linked by aria-describedby. */
export class Field {
  readonly input: HTMLInputElement;
  readonly element: HTMLDivElement;
  private readonly error: HTMLParagraphElement;

  constructor(readonly options: FieldOptions) {
    const id = newId(options.name);
    this.input = h("input", {
      id,
      name: options.name,
      type: options.type ?? "text",
      autocomplete: options.autocomplete,
      inputmode: options.inputmode,
      spellcheck: options.spellcheck === false ? "false" : undefined,
      autocapitalize: options.spellcheck === false ? "off" : undefined,
      required: true,
      "aria-required": "true",
    });
    if (options.value !== undefined) {
      this.input.value = options.value;
    }
    this.error = h("p", { id: `${id}-error`, class: "field-error" });
    this.error.hidden = true;
    let hint: HTMLParagraphElement | null = null;
    if (options.hint !== undefined) {
      hint = h("p", { id: `${id}-hint`, class: "hint" }, options.hint);
      addDescribedBy(this.input, hint.id);
    }
    this.element = h("div", { class: "field" }, h("label", { for: id }, options.label), hint, this.error, this.input);
  }

  get value(): string {
    return this.input.value;
  }

  /** Shows (or, with `null`, clears) the message next to the field. */
  setError(message: string | null): void {
    if (message === null) {
      this.error.hidden = true;
      this.error.textContent = "";
      this.input.removeAttribute("aria-invalid");
      removeDescribedBy(this.input, this.error.id);
      return;
    }
    this.error.textContent = message;
    this.error.hidden = false;
    this.input.setAttribute("aria-invalid", "true");
    addDescribedBy(this.input, this.error.id);
  }
}

/**
 * A form with an error summary and a busy state. `submit` runs the handler with every
 * button disabled; the handler returns `true` to keep them disabled (the page is
 * navigating away).
 */
export class Form {
  readonly element: HTMLFormElement;
  private readonly summary: HTMLDivElement;
  private readonly linked = new Set<HTMLInputElement>();
  /** Buttons outside the form that start another way in (a passkey): busy with it. */
  private readonly outside: HTMLButtonElement[] = [];
  private busy = false;

  constructor(
    readonly fields: Field[],
    actions: HTMLElement[],
    onSubmit: (form: Form) => Promise<boolean>,
  ) {
    this.summary = h("div", { id: newId("form-error"), class: "error-summary", role: "alert", tabindex: "-1" });
    this.summary.hidden = true;
    // method="post" so that, should the script not run, nothing typed lands in a URL.
    // noValidate: the page shows its own messages, linked to the fields.
    this.element = h("form", { method: "post", novalidate: true }, this.summary, ...fields.map((f) => f.element), ...actions);
    this.element.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.run(() => onSubmit(this));
    });
  }

  /** Runs `task` with the form busy; ignores a second submit while one is running. */
  async run(task: () => Promise<boolean>): Promise<void> {
    if (this.busy) {
      return;
    }
    this.setBusy(true);
    let keepBusy = false;
    try {
      keepBusy = await task();
    } finally {
      if (!keepBusy) {
        this.setBusy(false);
      }
    }
  }

  /** Also disables `buttons` (outside the form) while the form is busy. */
  alsoDisable(...buttons: HTMLButtonElement[]): void {
    this.outside.push(...buttons);
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    this.element.setAttribute("aria-busy", String(busy));
    for (const button of [...this.element.querySelectorAll("button"), ...this.outside]) {
      button.disabled = busy;
    }
  }

  clearErrors(): void {
    this.summary.hidden = true;
    this.summary.replaceChildren();
    for (const input of this.linked) {
      input.removeAttribute("aria-invalid");
      removeDescribedBy(input, this.summary.id);
    }
    this.linked.clear();
    for (const field of this.fields) {
      field.setError(null);
    }
  }

  /**
   * Shows a message for the whole form, links it to `inputs` (aria-describedby,
   * aria-invalid) and moves focus to it. The summary is role="alert", so it is announced.
   */
  showError(message: string | HTMLElement[], inputs: HTMLInputElement[] = []): void {
    this.summary.replaceChildren(...(typeof message === "string" ? [h("p", {}, message)] : message));
    this.summary.hidden = false;
    for (const input of inputs) {
      input.setAttribute("aria-invalid", "true");
      addDescribedBy(input, this.summary.id);
      this.linked.add(input);
    }
    this.summary.focus();
  }

  /**
   * Shows each message next to its field (by `name`) and focuses the first field in
   * error. Messages for unknown fields go to the summary. Returns false if none given.
   */
  showFieldErrors(errors: { field: string; message: string }[]): boolean {
    const other: string[] = [];
    let first: Field | null = null;
    for (const { field: name, message } of errors) {
      const field = this.fields.find((f) => f.options.name === name);
      if (field === undefined) {
        other.push(message);
      } else {
        field.setError(message);
        first ??= field;
      }
    }
    if (other.length > 0) {
      this.showError(other.join(" "));
    } else if (first !== null) {
      first.input.focus();
    }
    return errors.length > 0;
  }
}

export function button(label: string, attrs: Attrs = {}): HTMLButtonElement {
  return h("button", { type: "submit", ...attrs }, label);
}

/** A `<p class="status" role="status">`, announced politely when its text changes. */
export function statusLine(text = ""): HTMLParagraphElement {
  return h("p", { class: "status", role: "status" }, text);
}
