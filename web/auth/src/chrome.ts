/**
 * What surrounds every screen: the brand above the card (logo, product name, primary
 * colour) and the language switcher below it. Built once at load; the switcher's choice
 * is remembered for the tab and redraws the current screen at once.
 */
import { LOCALE_NAMES, SUPPORTED_LOCALES, isLocale } from "../../shared/locales";
import { getBranding, type Brand } from "./api";
import { applyColour, safeLogo } from "./brand";
import { h, redrawScreen } from "./dom";
import { currentLocale, onLocaleChange, rememberChoice, setLocale, t } from "./i18n";

const SWITCHER_ID = "locale-switcher";

function header(): HTMLElement {
  let element = document.getElementById("brand");
  if (element === null) {
    element = h("header", { id: "brand", class: "brand" });
    element.hidden = true;
    document.body.prepend(element);
  }
  return element;
}

/** Shows `brand` above the card (nothing when null: the page stays neutral). */
export function showBrand(brand: Brand | null): void {
  const element = header();
  applyColour(brand?.primaryColor ?? null);
  if (brand === null) {
    element.replaceChildren();
    element.hidden = true;
    return;
  }
  const logo = safeLogo(brand.logoUri);
  const name = h("p", { class: "brand-name" }, brand.productName);
  if (logo === null) {
    element.replaceChildren(name);
  } else {
    element.replaceChildren(h("img", { class: "brand-logo", src: logo, alt: brand.productName }), name);
  }
  element.hidden = false;
}

/** The provider's brand, for pages without a challenge; shown when it arrives. */
export async function showProviderBrand(): Promise<void> {
  try {
    showBrand(await getBranding());
  } catch {
    showBrand(null); // no brand is better than no page
  }
}

/** The footer with the language switcher: a labelled `<select>`, keyboard-operable. */
export function mountSwitcher(): void {
  const label = h("label", { for: SWITCHER_ID }, t("switcher.label"));
  const select = h(
    "select",
    { id: SWITCHER_ID, name: "locale", autocomplete: "off" },
    ...SUPPORTED_LOCALES.map((locale) => h("option", { value: locale, lang: locale }, LOCALE_NAMES[locale])),
  );
  select.value = currentLocale();
  select.addEventListener("change", () => {
    const chosen = select.value;
    if (!isLocale(chosen)) return;
    rememberChoice(chosen);
    void setLocale(chosen).then(redrawScreen);
  });
  onLocaleChange((locale) => {
    label.textContent = t("switcher.label");
    select.value = locale;
  });
  document.body.append(h("footer", { class: "page-footer" }, h("div", { class: "switcher" }, label, select)));
}
