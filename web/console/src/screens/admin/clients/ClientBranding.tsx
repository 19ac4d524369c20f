/**
 * The client screen's "Branding" section (issue #28): the client's own product name, primary
 * colour (a colour picker beside the `#rrggbb` text), terms and privacy links and logo, shown
 * on the sign-in page during this client's flow, field by field over the provider's brand.
 * Readers need `idp:branding:read`; only holders of `idp:branding:write` change it. The
 * provider's 422 sentences (the colour's contrast names its ratio) show at their fields; a
 * refused logo (SVG 415, too large 413) at the file input. "Use the provider's brand"
 * deletes the client's row.
 */
import { useEffect, useState } from "react";
import { hasScope } from "../../../auth/session";
import { t } from "../../../i18n";
import { Panel } from "../../../ui/Screen";
import { useForm } from "../../../ui/bind";
import { ConfirmButton } from "../../../ui/dialog";
import { Form, SubmitButton, SubmitRow, TextField, useSubmit } from "../../../ui/form";
import { Loaded, useLoad } from "../../../ui/load";
import { Facts, Notice, formatTime } from "../../../ui/table";
import "./branding.css";
import {
  BRANDING_WRITE,
  type ClientBrand,
  EMPTY_BRAND,
  LOGO_FIELD,
  LOGO_TYPES,
  loadBrand,
  localErrors,
  passesContrast,
  pickerValue,
  removeLogo,
  resetBrand,
  saveBrand,
  uploadLogo,
  valuesOf,
} from "./brand";

export function ClientBranding({ clientId, clientName }: { clientId: string; clientName: string }) {
  const { state, reload } = useLoad((signal) => loadBrand(clientId, signal), [clientId]);
  return (
    <Panel title={t("admin-directory.brand.title")} id="client-branding">
      <p className="hint">{t("admin-directory.brand.intro")}</p>
      <Loaded state={state} reload={reload} label={t("admin-directory.brand.loading")}>
        {(brand) => <Branding clientId={clientId} clientName={clientName} initial={brand} />}
      </Loaded>
    </Panel>
  );
}

function Branding({ clientId, clientName, initial }: { clientId: string; clientName: string; initial: ClientBrand }) {
  const [brand, setBrand] = useState(initial);
  // A new version remounts the form with the values the provider answered (after a reset).
  const [version, setVersion] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  if (!hasScope(BRANDING_WRITE)) return <BrandFacts brand={brand} clientName={clientName} />;
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
      <LogoForm clientId={clientId} clientName={clientName} brand={brand} onChange={setBrand} />
      <h3>{t("admin-directory.brand.resetTitle")}</h3>
      <p>{t("admin-directory.brand.resetHint")}</p>
      <ConfirmButton
        label={t("admin-directory.brand.reset")}
        title={t("admin-directory.brand.resetQuestion", { client: clientName })}
        confirmLabel={t("admin-directory.brand.resetConfirm")}
        onConfirm={async () => {
          setNotice(null);
          await resetBrand(clientId);
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

/** A value of the client's own, or "The provider's". */
const own = (value: string | null) => value ?? t("admin-directory.brand.providers");

function BrandFacts({ brand, clientName }: { brand: ClientBrand; clientName: string }) {
  return (
    <Facts
      label={t("admin-directory.brand.title")}
      rows={[
        [t("admin-directory.brand.productName"), own(brand.productName)],
        [t("admin-directory.brand.primaryColor"), brand.primaryColor ? <code>{brand.primaryColor}</code> : own(null)],
        [t("admin-directory.brand.termsUri"), own(brand.termsUri)],
        [t("admin-directory.brand.privacyUri"), own(brand.privacyUri)],
        [
          t("admin-directory.brand.logo"),
          brand.logoUri ? (
            <img className="client-brand-logo" src={brand.logoUri} alt={t("admin-directory.brand.logoAlt", { client: clientName })} />
          ) : (
            own(null)
          ),
        ],
        [t("admin-directory.brand.changed"), formatTime(brand.updatedAt)],
      ]}
    />
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
      const answer = await saveBrand(clientId, values);
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
      <TextField
        label={t("admin-directory.brand.productName")}
        hint={t("admin-directory.brand.productNameHint")}
        autoComplete="off"
        maxLength={80}
        {...text("productName")}
      />
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
      <TextField
        label={t("admin-directory.brand.termsUri")}
        hint={t("admin-directory.brand.uriHint")}
        type="url"
        autoComplete="off"
        spellCheck={false}
        {...text("termsUri")}
      />
      <TextField
        label={t("admin-directory.brand.privacyUri")}
        hint={t("admin-directory.brand.uriHint")}
        type="url"
        autoComplete="off"
        spellCheck={false}
        {...text("privacyUri")}
      />
      <SubmitRow submission={submission}>{t("admin-directory.brand.save")}</SubmitRow>
      {saved && !submission.error ? <Notice>{t("admin-directory.brand.saved")}</Notice> : null}
    </Form>
  );
}

function LogoForm({
  clientId,
  clientName,
  brand,
  onChange,
}: {
  clientId: string;
  clientName: string;
  brand: ClientBrand;
  onChange: (next: ClientBrand) => void;
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
      const saved = await uploadLogo(clientId, file);
      setFile(null);
      setInputKey((key) => key + 1);
      onChange(saved);
      setNotice(t("admin-directory.brand.logoSaved"));
    },
    () => (file ? {} : { [LOGO_FIELD]: t("admin-directory.brand.logoChoose") }),
  );
  return (
    <Form submission={submission} label={t("admin-directory.brand.logoForm")} className="form subform">
      <h3>{t("admin-directory.brand.logo")}</h3>
      {notice ? <Notice>{notice}</Notice> : null}
      {brand.logoUri ? (
        <img
          className="client-brand-logo"
          src={brand.logoUri}
          alt={t("admin-directory.brand.logoAlt", { client: clientName })}
          data-testid="client-logo"
        />
      ) : (
        <p className="empty">{t("admin-directory.brand.logoNone")}</p>
      )}
      <TextField
        key={inputKey}
        label={t("admin-directory.brand.logoFile")}
        hint={t("admin-directory.brand.logoHint")}
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
          <img className="client-brand-logo" src={chosenUrl} alt={t("admin-directory.brand.logoChosen")} />
          <figcaption className="hint">{t("admin-directory.brand.logoChosenCaption")}</figcaption>
        </figure>
      ) : null}
      <div className="form-row">
        <SubmitButton busy={submission.busy} busyLabel={t("admin-directory.brand.logoUploading")}>
          {t("admin-directory.brand.logoUpload")}
        </SubmitButton>
        {brand.logoUri ? (
          <ConfirmButton
            label={t("admin-directory.brand.logoRemove")}
            title={t("admin-directory.brand.logoRemoveQuestion", { client: clientName })}
            confirmLabel={t("admin-directory.brand.logoRemove")}
            onConfirm={async () => {
              setNotice(null);
              await removeLogo(clientId);
              onChange({ ...brand, logoUri: null });
              setNotice(t("admin-directory.brand.logoRemoved"));
            }}
          >
            <p>{t("admin-directory.brand.logoRemoveConsequence")}</p>
          </ConfirmButton>
        ) : null}
      </div>
    </Form>
  );
}
