/**
 * The language switcher in the header: a native labelled `<select>` (keyboard and screen
 * readers work as everywhere), each language named in itself with its own `lang`. A choice
 * applies at once; when signed in it is saved (`PUT /entity/preferences`), and a failed save
 * says so politely while the choice stays for this tab.
 */
import { useId, useState } from "react";
import { LOCALE_NAMES, SUPPORTED_LOCALES, isLocale } from "../../shared/locales";
import { signedIn } from "./auth/session";
import { t, useLocale } from "./i18n";
import { chooseLocale } from "./i18n/preference";

export function LanguageSwitcher() {
  const locale = useLocale();
  const id = useId();
  const [failed, setFailed] = useState(false);
  return (
    <div className="language">
      <label htmlFor={id}>{t("shell.language.label")}</label>
      <select
        id={id}
        value={locale}
        aria-describedby={failed ? `${id}-status` : undefined}
        onChange={(event) => {
          const next = event.currentTarget.value;
          if (!isLocale(next)) return;
          setFailed(false);
          chooseLocale(next, signedIn() !== null).catch(() => setFailed(true));
        }}
      >
        {SUPPORTED_LOCALES.map((code) => (
          <option key={code} value={code} lang={code}>
            {LOCALE_NAMES[code]}
          </option>
        ))}
      </select>
      <span id={`${id}-status`} className="language-status" role="status">
        {failed ? t("shell.language.notSaved") : null}
      </span>
    </div>
  );
}
