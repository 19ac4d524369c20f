/**
 * Branding (`/console/admin/branding`, scope `idp:branding:read`): the provider's
 * brand (product name, primary colour with a live contrast hint, terms and privacy links;
 * `GET/PUT /admin/branding`), its logo (`PUT/DELETE /admin/branding/logo`, previewed before
 * and after the upload), and previews of the mails in each language
 * (`/admin/mail-templates`). Writing needs `idp:branding:write`; without it the screen reads.
 */
import { useState } from "react";
import { hasScope } from "../../auth/session";
import { t } from "../../i18n";
import { Panel, Screen } from "../../ui/Screen";
import { useForm } from "../../ui/bind";
import { Form, SubmitRow, TextField } from "../../ui/form";
import { Loaded, useLoad } from "../../ui/load";
import { Notice } from "../../ui/table";
import { BrandFacts, BrandFields, type FieldTexts, LogoControl, type LogoTexts } from "./branding/BrandFields";
import "./branding/branding.css";
import { MailPreviews } from "./branding/MailPreviews";
import {
  BRANDING_WRITE,
  type BrandSettings,
  contrastHint,
  isColour,
  loadBranding,
  localErrors,
  removeLogo,
  saveBranding,
  uploadLogo,
} from "./branding/model";
import { valuesOf } from "./branding/rules";

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

const fieldTexts = (): FieldTexts => ({
  productName: t("admin-branding.field.productName"),
  productNameHint: t("admin-branding.field.productName.hint"),
  primaryColor: t("admin-branding.field.primaryColor"),
  termsUri: t("admin-branding.field.termsUri"),
  privacyUri: t("admin-branding.field.privacyUri"),
  uriHint: t("admin-branding.field.uri.hint"),
});

function Branding({ initial }: { initial: BrandSettings }) {
  const [settings, setSettings] = useState(initial);
  const canWrite = hasScope(BRANDING_WRITE);
  return (
    <>
      <Panel title={t("admin-branding.brand.title")} id="brand">
        {canWrite ? (
          <BrandForm settings={settings} onSaved={setSettings} />
        ) : (
          <BrandFacts
            brand={settings}
            texts={fieldTexts()}
            unset={t("admin-branding.unset")}
            changed={t("admin-branding.changed")}
          />
        )}
      </Panel>
      <Panel title={t("admin-branding.logo.title")} id="brand-logo">
        <LogoControl
          brand={settings}
          onChange={setSettings}
          uploadLogo={uploadLogo}
          removeLogo={removeLogo}
          texts={logoTexts()}
          imageClass="brand-logo"
          testId="brand-logo"
          canWrite={canWrite}
        />
      </Panel>
    </>
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
  const colour = (
    <>
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
    </>
  );
  return (
    <Form submission={submission} label={t("admin-branding.brand.form")}>
      {notice ? <Notice>{notice}</Notice> : null}
      <BrandFields texts={fieldTexts()} text={text} colour={colour} />
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

const logoTexts = (): LogoTexts => ({
  form: t("admin-branding.logo.form"),
  current: t("admin-branding.logo.current"),
  none: t("admin-branding.logo.none"),
  file: t("admin-branding.logo.file"),
  hint: t("admin-branding.logo.hint"),
  choose: t("admin-branding.logo.choose"),
  chosen: t("admin-branding.logo.chosen"),
  chosenCaption: t("admin-branding.logo.chosen.caption"),
  upload: t("admin-branding.logo.upload"),
  uploading: t("admin-branding.logo.uploading"),
  saved: t("admin-branding.logo.saved"),
  remove: t("admin-branding.logo.remove"),
  removeTitle: t("admin-branding.logo.remove.title"),
  removeConfirm: t("admin-branding.logo.remove"),
  removeBody: t("admin-branding.logo.remove.body"),
  removed: t("admin-branding.logo.removed"),
});
