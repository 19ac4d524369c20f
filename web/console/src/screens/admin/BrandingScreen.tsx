/**
 * Branding (`/console/admin/branding`, issue #28, scope `idp:branding:read`): the provider's
 * brand (product name, primary colour with a live contrast hint, terms and privacy links;
 * `GET/PUT /admin/branding`), its logo (`PUT/DELETE /admin/branding/logo`, previewed before
 * and after the upload), and previews of the mails in each language
 * (`/admin/mail-templates`). Writing needs `idp:branding:write`; without it the screen reads.
 */
import { useEffect, useState } from "react";
import { hasScope } from "../../auth/session";
import { t } from "../../i18n";
import { Panel, Screen } from "../../ui/Screen";
import { useForm } from "../../ui/bind";
import { ConfirmButton } from "../../ui/dialog";
import { Form, SubmitButton, SubmitRow, TextField, useSubmit } from "../../ui/form";
import { Loaded, useLoad } from "../../ui/load";
import { Facts, Notice, formatTime } from "../../ui/table";
import "./branding/branding.css";
import { MailPreviews } from "./branding/MailPreviews";
import {
  BRANDING_WRITE,
  type BrandSettings,
  LOGO_FIELD,
  LOGO_TYPES,
  contrastHint,
  isColour,
  loadBranding,
  localErrors,
  removeLogo,
  saveBranding,
  uploadLogo,
  valuesOf,
} from "./branding/model";

export function BrandingScreen(_props: { params: Record<string, string> }) {
  const { state, reload } = useLoad((signal) => loadBranding(signal), []);
  return (
    <Screen title={t("admin-branding.title")} intro={t("admin-branding.intro")}>
      <Loaded state={state} reload={reload} label={t("admin-branding.loading")}>
        {(settings) => <Branding initial={settings} />}
      </Loaded>
      <MailPreviews />
    </Screen>
  );
}

function Branding({ initial }: { initial: BrandSettings }) {
  const [settings, setSettings] = useState(initial);
  const canWrite = hasScope(BRANDING_WRITE);
  return (
    <>
      <Panel title={t("admin-branding.brand.title")} id="brand">
        {canWrite ? <BrandForm settings={settings} onSaved={setSettings} /> : <BrandFacts settings={settings} />}
      </Panel>
      <LogoPanel settings={settings} canWrite={canWrite} onChange={setSettings} />
    </>
  );
}

const none = (value: string | null): string => value ?? t("admin-branding.unset");

function BrandFacts({ settings }: { settings: BrandSettings }) {
  return (
    <Facts
      rows={[
        [t("admin-branding.field.productName"), none(settings.productName)],
        [t("admin-branding.field.primaryColor"), settings.primaryColor ? <code>{settings.primaryColor}</code> : none(null)],
        [t("admin-branding.field.termsUri"), none(settings.termsUri)],
        [t("admin-branding.field.privacyUri"), none(settings.privacyUri)],
        [t("admin-branding.changed"), formatTime(settings.updatedAt)],
      ]}
    />
  );
}

function BrandForm({ settings, onSaved }: { settings: BrandSettings; onSaved: (next: BrandSettings) => void }) {
  const [notice, setNotice] = useState<string | null>(null);
  const form = useForm(
    valuesOf(settings),
    async (values) => {
      setNotice(null);
      const saved = await saveBranding(values);
      onSaved(saved);
      form.setValues(valuesOf(saved));
      setNotice(t("admin-branding.saved"));
    },
    localErrors,
  );
  const { values, text, submission } = form;
  const hint = contrastHint(values.primaryColor);
  return (
    <Form submission={submission} label={t("admin-branding.brand.form")}>
      {notice ? <Notice>{notice}</Notice> : null}
      <TextField
        label={t("admin-branding.field.productName")}
        hint={t("admin-branding.field.productName.hint")}
        autoComplete="off"
        maxLength={80}
        {...text("productName")}
      />
      <TextField
        label={t("admin-branding.field.primaryColor")}
        hint={
          <>
            {t("admin-branding.field.primaryColor.hint")}{" "}
            {/* The live hint is read with the input and announced as it changes. */}
            <span className={hint.ok ? "contrast-ok" : "contrast-bad"} role="status" data-testid="contrast-hint">
              {hint.text}
            </span>
          </>
        }
        autoComplete="off"
        spellCheck={false}
        placeholder="#1d4f91"
        {...text("primaryColor")}
      />
      {/* Only a readable sample: white text on a failing colour is what the hint warns about. */}
      {isColour(values.primaryColor) && hint.ok ? (
        <p>
          <ColourSample colour={values.primaryColor.trim()} />
        </p>
      ) : null}
      <TextField
        label={t("admin-branding.field.termsUri")}
        hint={t("admin-branding.field.uri.hint")}
        type="url"
        autoComplete="off"
        spellCheck={false}
        {...text("termsUri")}
      />
      <TextField
        label={t("admin-branding.field.privacyUri")}
        hint={t("admin-branding.field.uri.hint")}
        type="url"
        autoComplete="off"
        spellCheck={false}
        {...text("privacyUri")}
      />
      <SubmitRow submission={submission}>{t("admin-branding.save")}</SubmitRow>
    </Form>
  );
}

/** A button as the sign-in page would draw it: white text on the colour (set through the CSSOM). */
function ColourSample({ colour }: { colour: string }) {
  return (
    <span className="brand-sample" style={{ backgroundColor: colour }} aria-hidden="true">
      {t("admin-branding.colour.sample")}
    </span>
  );
}

function LogoPanel({
  settings,
  canWrite,
  onChange,
}: {
  settings: BrandSettings;
  canWrite: boolean;
  onChange: (next: BrandSettings) => void;
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
      setNotice(t("admin-branding.logo.saved"));
    },
    () => (file ? {} : { [LOGO_FIELD]: t("admin-branding.logo.choose") }),
  );
  return (
    <Panel title={t("admin-branding.logo.title")} id="brand-logo">
      {notice ? <Notice>{notice}</Notice> : null}
      {settings.logoUri ? (
        <img className="brand-logo" src={settings.logoUri} alt={t("admin-branding.logo.current")} data-testid="brand-logo" />
      ) : (
        <p className="empty">{t("admin-branding.logo.none")}</p>
      )}
      {canWrite ? (
        <Form submission={submission} label={t("admin-branding.logo.form")}>
          <TextField
            key={inputKey}
            label={t("admin-branding.logo.file")}
            hint={t("admin-branding.logo.hint")}
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
              <img className="brand-logo" src={chosenUrl} alt={t("admin-branding.logo.chosen")} />
              <figcaption className="hint">{t("admin-branding.logo.chosen.caption")}</figcaption>
            </figure>
          ) : null}
          <div className="form-row">
            <SubmitButton busy={submission.busy} busyLabel={t("admin-branding.logo.uploading")}>
              {t("admin-branding.logo.upload")}
            </SubmitButton>
            {settings.logoUri ? (
              <ConfirmButton
                label={t("admin-branding.logo.remove")}
                title={t("admin-branding.logo.remove.title")}
                confirmLabel={t("admin-branding.logo.remove")}
                onConfirm={async () => {
                  setNotice(null);
                  await removeLogo();
                  onChange({ ...settings, logoUri: null });
                  setNotice(t("admin-branding.logo.removed"));
                }}
              >
                <p>{t("admin-branding.logo.remove.body")}</p>
              </ConfirmButton>
            ) : null}
          </div>
        </Form>
      ) : null}
    </Panel>
  );
}
