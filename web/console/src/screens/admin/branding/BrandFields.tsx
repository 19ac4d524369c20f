/**
 * The parts of a brand's form both branding screens draw: the product name, terms
 * and privacy inputs around the screen's own colour control, the read-only facts, and the
 * logo control (choose a file, see it before sending, upload, remove). Each screen passes its
 * own words (already translated, so its message ids stay where they are read) and calls.
 */
import { type ReactNode, useEffect, useState } from "react";
import type { binders } from "../../../ui/bind";
import { ConfirmButton } from "../../../ui/dialog";
import { Form, SubmitButton, TextField, useSubmit } from "../../../ui/form";
import { Facts, Notice, formatTime } from "../../../ui/table";
import { type BrandRow, type BrandValues, LOGO_FIELD, LOGO_TYPES } from "./rules";

type TextBinder = ReturnType<typeof binders<BrandValues>>["text"];

/** The labels and hints of the text inputs, and the facts' row names. */
export interface FieldTexts {
  productName: string;
  productNameHint: string;
  primaryColor: string;
  termsUri: string;
  privacyUri: string;
  uriHint: string;
}

/** The brand's text inputs, with the screen's colour control (`colour`) after the name. */
export function BrandFields({ texts, text, colour }: { texts: FieldTexts; text: TextBinder; colour: ReactNode }) {
  return (
    <>
      <TextField
        label={texts.productName}
        hint={texts.productNameHint}
        autoComplete="off"
        maxLength={80}
        {...text("productName")}
      />
      {colour}
      {(["termsUri", "privacyUri"] as const).map((member) => (
        <TextField
          key={member}
          label={texts[member]}
          hint={texts.uriHint}
          type="url"
          autoComplete="off"
          spellCheck={false}
          {...text(member)}
        />
      ))}
    </>
  );
}

/**
 * The brand for a reader without `idp:branding:write`: `unset` stands for a null value (the
 * default, or "The provider's"); `logo` is a row of its own before "Changed" when given.
 */
export function BrandFacts({
  brand,
  texts,
  unset,
  changed,
  label,
  logo,
}: {
  brand: BrandRow;
  texts: FieldTexts;
  unset: string;
  changed: string;
  label?: string;
  logo?: readonly [string, ReactNode];
}) {
  const shown = (value: string | null): string => value ?? unset;
  return (
    <Facts
      {...(label === undefined ? {} : { label })}
      rows={[
        [texts.productName, shown(brand.productName)],
        [texts.primaryColor, brand.primaryColor ? <code>{brand.primaryColor}</code> : unset],
        [texts.termsUri, shown(brand.termsUri)],
        [texts.privacyUri, shown(brand.privacyUri)],
        logo ?? null,
        [changed, formatTime(brand.updatedAt)],
      ]}
    />
  );
}

/** The logo control's words, and its notices after an upload or a removal. */
export interface LogoTexts {
  form: string;
  current: string;
  none: string;
  file: string;
  hint: string;
  choose: string;
  chosen: string;
  chosenCaption: string;
  upload: string;
  uploading: string;
  saved: string;
  remove: string;
  removeTitle: string;
  removeConfirm: string;
  removeBody: string;
  removed: string;
}

/**
 * The current logo and, for a writer, the form that replaces or removes it. With `section`
 * the whole control is one form under its heading (a section of the client screen); without,
 * the current logo stands before the form (a panel of its own), and a reader sees only it.
 */
export function LogoControl({
  brand,
  onChange,
  uploadLogo,
  removeLogo,
  texts,
  imageClass,
  testId,
  canWrite,
  section,
}: {
  brand: BrandRow;
  onChange: (next: BrandRow) => void;
  uploadLogo: (file: File) => Promise<BrandRow>;
  removeLogo: () => Promise<void>;
  texts: LogoTexts;
  imageClass: string;
  testId: string;
  canWrite: boolean;
  section?: { heading: ReactNode; className: string };
}) {
  const [file, setFile] = useState<File | null>(null);
  const [chosenUrl, setChosenUrl] = useState<string | null>(null);
  const [inputKey, setInputKey] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  // The chosen file is shown before it is sent (a blob: URL, which the CSP's img-src allows).
  useEffect(() => {
    if (!file) {
      setChosenUrl(null);
      return;
    }
    const url = URL.createObjectURL(file);
    setChosenUrl(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);
  const submission = useSubmit(
    async () => {
      if (!file) return;
      setNotice(null);
      const saved = await uploadLogo(file);
      setFile(null);
      setInputKey((key) => key + 1);
      onChange(saved);
      setNotice(texts.saved);
    },
    () => (file ? {} : { [LOGO_FIELD]: texts.choose }),
  );
  const current = (
    <>
      {notice ? <Notice>{notice}</Notice> : null}
      {brand.logoUri ? (
        <img className={imageClass} src={brand.logoUri} alt={texts.current} data-testid={testId} />
      ) : (
        <p className="empty">{texts.none}</p>
      )}
    </>
  );
  const controls = (
    <>
      <TextField
        key={inputKey}
        label={texts.file}
        hint={texts.hint}
        type="file"
        accept={LOGO_TYPES}
        error={submission.fieldError(LOGO_FIELD)}
        onChange={(event) => {
          setFile(event.currentTarget.files?.[0] ?? null);
          submission.reset();
        }}
      />
      {chosenUrl ? (
        <figure>
          <img className={imageClass} src={chosenUrl} alt={texts.chosen} />
          <figcaption className="hint">{texts.chosenCaption}</figcaption>
        </figure>
      ) : null}
      <div className="form-row">
        <SubmitButton busy={submission.busy} busyLabel={texts.uploading}>
          {texts.upload}
        </SubmitButton>
        {brand.logoUri ? (
          <ConfirmButton
            label={texts.remove}
            title={texts.removeTitle}
            confirmLabel={texts.removeConfirm}
            onConfirm={async () => {
              setNotice(null);
              await removeLogo();
              onChange({ ...brand, logoUri: null });
              setNotice(texts.removed);
            }}
          >
            <p>{texts.removeBody}</p>
          </ConfirmButton>
        ) : null}
      </div>
    </>
  );
  if (section) {
    return (
      <Form submission={submission} label={texts.form} className={section.className}>
        {section.heading}
        {current}
        {controls}
      </Form>
    );
  }
  return (
    <>
      {current}
      {canWrite ? (
        <Form submission={submission} label={texts.form}>
          {controls}
        </Form>
      ) : null}
    </>
  );
}
