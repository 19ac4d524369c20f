/**
 * The client screen's "Branding" section: the client's own product name, primary
 * colour (a colour picker beside the `#rrggbb` text), terms and privacy links and logo, shown
 * on the sign-in page during this client's flow, field by field over the provider's brand.
 * Readers need `idp:branding:read`; only holders of `idp:branding:write` change it. The
 * provider's 422 sentences (the colour's contrast names its ratio) show at their fields; a
 * refused logo (SVG 415, too large 413) at the file input. "Use the provider's brand"
 * deletes the client's row.
 */
import { useState } from "react";
import { hasScope } from "../../../auth/session";
import { t } from "../../../i18n";
import { Panel } from "../../../ui/Screen";
import { useForm } from "../../../ui/bind";
import { ConfirmButton } from "../../../ui/dialog";
import { Form, SubmitRow, TextField } from "../../../ui/form";
import { Loaded, useLoad } from "../../../ui/load";
import { Notice } from "../../../ui/table";
import { BrandFacts, BrandFields, type FieldTexts, LogoControl, type LogoTexts } from "../branding/BrandFields";
import { valuesOf } from "../branding/rules";
import "./branding.css";
import { BRANDING_WRITE, type ClientBrand, EMPTY_BRAND, clientBrandApi, localErrors, passesContrast, pickerValue } from "./brand";

export function ClientBranding({ clientId, clientName }: { clientId: string; clientName: string }) {
  const { state, reload } = useLoad((signal) => clientBrandApi(clientId).load(signal), [clientId]);
  return (
    <Panel title={t("admin-directory.brand.title")} id="client-branding">
      <p className="hint">{t("admin-directory.brand.intro")}</p>
      <Loaded state={state} reload={reload} label={t("admin-directory.brand.loading")}>
        {(brand) => <Branding clientId={clientId} clientName={clientName} initial={brand} />}
      </Loaded>
    </Panel>
  );
}

const fieldTexts = (): FieldTexts => ({
  productName: t("admin-directory.brand.productName"),
  productNameHint: t("admin-directory.brand.productNameHint"),
  primaryColor: t("admin-directory.brand.primaryColor"),
  termsUri: t("admin-directory.brand.termsUri"),
  privacyUri: t("admin-directory.brand.privacyUri"),
  uriHint: t("admin-directory.brand.uriHint"),
});

function Branding({ clientId, clientName, initial }: { clientId: string; clientName: string; initial: ClientBrand }) {
  const [brand, setBrand] = useState(initial);
  // A new version remounts the form with the values the provider answered (after a reset).
  const [version, setVersion] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  const api = clientBrandApi(clientId);
  const logoAlt = t("admin-directory.brand.logoAlt", { client: clientName });
  if (!hasScope(BRANDING_WRITE)) {
    // A value of the client's own, or "The provider's".
    const providers = t("admin-directory.brand.providers");
    return (
      <BrandFacts
        brand={brand}
        texts={fieldTexts()}
        unset={providers}
        changed={t("admin-directory.brand.changed")}
        label={t("admin-directory.brand.title")}
        logo={[
          t("admin-directory.brand.logo"),
          brand.logoUri ? <img className="client-brand-logo" src={brand.logoUri} alt={logoAlt} /> : providers,
        ]}
      />
    );
  }
  return (
    <>
      {notice ? <Notice>{notice}</Notice> : null}
      <BrandForm
        key={version}
        clientId={clientId}
        brand={brand}
        onSaved={(saved) => {
          setNotice(null);
          setBrand(saved);
        }}
      />
      <LogoControl
        brand={brand}
        onChange={setBrand}
        uploadLogo={api.uploadLogo}
        removeLogo={api.removeLogo}
        texts={logoTexts(clientName)}
        imageClass="client-brand-logo"
        testId="client-logo"
        canWrite
        section={{ heading: <h3>{t("admin-directory.brand.logo")}</h3>, className: "form subform" }}
      />
      <h3>{t("admin-directory.brand.resetTitle")}</h3>
      <p>{t("admin-directory.brand.resetHint")}</p>
      <ConfirmButton
        label={t("admin-directory.brand.reset")}
        title={t("admin-directory.brand.resetQuestion", { client: clientName })}
        confirmLabel={t("admin-directory.brand.resetConfirm")}
        onConfirm={async () => {
          setNotice(null);
          await api.reset();
          setBrand(EMPTY_BRAND);
          setVersion((v) => v + 1);
          setNotice(t("admin-directory.brand.resetDone"));
        }}
      >
        <p>{t("admin-directory.brand.resetConsequence")}</p>
      </ConfirmButton>
    </>
  );
}

function BrandForm({
  clientId,
  brand,
  onSaved,
}: {
  clientId: string;
  brand: ClientBrand;
  onSaved: (saved: ClientBrand) => void;
}) {
  const [saved, setSaved] = useState(false);
  const form = useForm(
    valuesOf(brand),
    async (values) => {
      setSaved(false);
      const answer = await clientBrandApi(clientId).save(values);
      form.setValues(valuesOf(answer));
      onSaved(answer);
      setSaved(true);
    },
    localErrors,
  );
  const { values, text, set, submission } = form;
  const colour = text("primaryColor");
  return (
    <Form submission={submission} label={t("admin-directory.brand.form")}>
      <BrandFields
        texts={fieldTexts()}
        text={text}
        colour={
          <div className="client-brand-colour">
            <TextField
              label={t("admin-directory.brand.primaryColor")}
              hint={t("admin-directory.brand.primaryColorHint")}
              autoComplete="off"
              spellCheck={false}
              placeholder="#1d4f91"
              {...colour}
              onChange={(event) => {
                setSaved(false);
                colour.onChange(event);
              }}
            />
            <input
              type="color"
              className="client-brand-picker"
              aria-label={t("admin-directory.brand.picker")}
              value={pickerValue(values.primaryColor)}
              onChange={(event) => {
                setSaved(false);
                set("primaryColor", event.currentTarget.value);
              }}
            />
            {passesContrast(values.primaryColor) ? (
              <span className="client-brand-sample" style={{ backgroundColor: values.primaryColor.trim() }} aria-hidden="true">
                {t("admin-directory.brand.sample")}
              </span>
            ) : null}
          </div>
        }
      />
      <SubmitRow submission={submission}>{t("admin-directory.brand.save")}</SubmitRow>
      {saved && !submission.error ? <Notice>{t("admin-directory.brand.saved")}</Notice> : null}
    </Form>
  );
}

const logoTexts = (client: string): LogoTexts => ({
  form: t("admin-directory.brand.logoForm"),
  current: t("admin-directory.brand.logoAlt", { client }),
  none: t("admin-directory.brand.logoNone"),
  file: t("admin-directory.brand.logoFile"),
  hint: t("admin-directory.brand.logoHint"),
  choose: t("admin-directory.brand.logoChoose"),
  chosen: t("admin-directory.brand.logoChosen"),
  chosenCaption: t("admin-directory.brand.logoChosenCaption"),
  upload: t("admin-directory.brand.logoUpload"),
  uploading: t("admin-directory.brand.logoUploading"),
  saved: t("admin-directory.brand.logoSaved"),
  remove: t("admin-directory.brand.logoRemove"),
  removeTitle: t("admin-directory.brand.logoRemoveQuestion", { client }),
  removeConfirm: t("admin-directory.brand.logoRemove"),
  removeBody: t("admin-directory.brand.logoRemoveConsequence"),
  removed: t("admin-directory.brand.logoRemoved"),
});
