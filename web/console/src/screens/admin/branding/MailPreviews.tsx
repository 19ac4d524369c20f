/**
 * Previews of the provider's mails (`GET /admin/mail-templates`,
 * `GET /admin/mail-templates/{kind}/preview?locale=`): choose a mail and a language, see its
 * subject, its HTML part and its text part, rendered by the provider with sample values and
 * the saved brand. The HTML goes into a sandboxed `<iframe srcdoc>` without `allow-scripts`:
 * nothing in it runs (see `mailFrame.ts` for how its inline styles survive the CSP).
 */
import { useMemo, useState } from "react";
import { LOCALE_NAMES, isLocale } from "../../../../../shared/locales";
import { currentLocale, t } from "../../../i18n";
import { Panel } from "../../../ui/Screen";
import { SelectField } from "../../../ui/form";
import { Loaded, useLoad } from "../../../ui/load";
import { Facts } from "../../../ui/table";
import { applyStyles, setStylesAside } from "./mailFrame";
import { type MailTemplates, loadMailPreview, loadMailTemplates, templateName } from "./model";

export function MailPreviews() {
  const { state, reload } = useLoad((signal) => loadMailTemplates(signal), []);
  return (
    <Panel title={t("admin-branding.mail.title")} id="mail-previews">
      <p className="hint">{t("admin-branding.mail.intro")}</p>
      <Loaded state={state} reload={reload} label={t("admin-branding.mail.loading")}>
        {(templates) =>
          templates.templates.length === 0 ? (
            <p className="empty">{t("admin-branding.mail.none")}</p>
          ) : (
            <Chooser templates={templates} />
          )
        }
      </Loaded>
    </Panel>
  );
}

const languageName = (locale: string): string => (isLocale(locale) ? LOCALE_NAMES[locale] : locale);

function Chooser({ templates }: { templates: MailTemplates }) {
  const [kind, setKind] = useState(templates.templates[0]?.kind ?? "");
  const here = currentLocale();
  const [locale, setLocale] = useState(templates.locales.includes(here) ? here : (templates.locales[0] ?? "en"));
  const preview = useLoad((signal) => loadMailPreview(kind, locale, signal), [kind, locale]);
  return (
    <>
      <div className="deliveries-filter">
        <SelectField
          label={t("admin-branding.mail.kind")}
          value={kind}
          onChange={(event) => setKind(event.currentTarget.value)}
          options={templates.templates.map((template) => ({ value: template.kind, label: templateName(template) }))}
        />
        <SelectField
          label={t("admin-branding.mail.locale")}
          value={locale}
          onChange={(event) => setLocale(event.currentTarget.value)}
          options={templates.locales.map((code) => ({ value: code, label: languageName(code) }))}
        />
      </div>
      <Loaded state={preview.state} reload={preview.reload} label={t("admin-branding.mail.preview.loading")}>
        {(mail) => (
          <div className="mail-preview" data-testid="mail-preview">
            <Facts rows={[[t("admin-branding.mail.subject"), <span lang={mail.locale} dir="auto" data-testid="mail-subject">
                    {mail.subject}
                  </span>]]} />
            <h3>{t("admin-branding.mail.html")}</h3>
            <MailFrame html={mail.html} title={t("admin-branding.mail.html.title", { subject: mail.subject })} />
            <h3>{t("admin-branding.mail.text")}</h3>
            <pre className="mail-preview-text claim-json" lang={mail.locale} dir="auto" data-testid="mail-text">
              {mail.text}
            </pre>
          </div>
        )}
      </Loaded>
    </>
  );
}

/** The mail's HTML part in a sandboxed frame, its inline styles applied through the CSSOM. */
function MailFrame({ html, title }: { html: string; title: string }) {
  const { html: bare, sheets } = useMemo(() => setStylesAside(html), [html]);
  return (
    <iframe
      className="mail-preview-frame"
      sandbox="allow-same-origin"
      srcDoc={bare}
      title={title}
      data-testid="mail-html"
      onLoad={(event) => applyStyles(event.currentTarget, sheets)}
    />
  );
}
