/**
 * The languages both frontends ship (docs/frontends.md "Languages"), and how one
 * is chosen from a list of preferences (BCP 47 tags, most wanted first): the first tag whose
 * language we ship, compared case-insensitively, `de-AT` falling back to `de` (RFC 4647
 * §3.4 "Lookup"). The server applies the same rule in `idp_common.protocol.rfc4647_locales`.
 */
export const SUPPORTED_LOCALES = ["en", "de", "fr", "es", "ar"] as const;
export type Locale = (typeof SUPPORTED_LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "en";

/** Languages written right to left: the page mirrors (`<html dir="rtl">`). */
const RIGHT_TO_LEFT: ReadonlySet<Locale> = new Set<Locale>(["ar"]);

/** Each language's name in itself, for the language switcher. */
export const LOCALE_NAMES: Record<Locale, string> = {
  en: "English",
  de: "Deutsch",
  fr: "Français",
  es: "Español",
  ar: "العربية",
};

export function isLocale(tag: string | null | undefined): tag is Locale {
  return tag !== null && tag !== undefined && (SUPPORTED_LOCALES as readonly string[]).includes(tag);
}

/** The shipped language one tag asks for (`de-AT` → `de`), or null. */
export function lookupLocale(tag: string): Locale | null {
  const parts = tag.trim().toLowerCase().split("-");
  while (parts.length > 0) {
    const candidate = parts.join("-");
    if (isLocale(candidate)) return candidate;
    parts.pop();
  }
  return null;
}

/** The first of `preferences` we ship, else `DEFAULT_LOCALE`. */
export function negotiateLocale(preferences: readonly (string | null | undefined)[]): Locale {
  for (const tag of preferences) {
    if (!tag) continue;
    const found = lookupLocale(tag);
    if (found) return found;
  }
  return DEFAULT_LOCALE;
}

export function directionOf(locale: Locale): "rtl" | "ltr" {
  return RIGHT_TO_LEFT.has(locale) ? "rtl" : "ltr";
}

/** Sets `<html lang dir>` for `locale`. */
export function applyToDocument(locale: Locale, root: HTMLElement = document.documentElement): void {
  root.lang = locale;
  root.dir = directionOf(locale);
}
