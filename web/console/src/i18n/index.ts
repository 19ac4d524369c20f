/**
 * The console's texts: ICU MessageFormat catalogues read by react-intl.
 *
 * Catalogues live in `messages/<area>/<locale>.json`, flat `{ "id": "ICU message" }`, the ids
 * prefixed by their area (`account.email.title`). English is bundled; another language is
 * loaded when chosen. Any code reads a text with `t(id, values)`; components re-render on a
 * change of language because the app is keyed by `useLocale()`.
 */
import { useSyncExternalStore } from "react";
import { createIntl, createIntlCache, type IntlShape } from "react-intl";
import { DEFAULT_LOCALE, applyToDocument, isLocale, type Locale } from "../../../shared/locales";

export type Catalogue = Record<string, string>;
type Values = Record<string, string | number | boolean | Date | null | undefined>;

const ENGLISH_AREAS = import.meta.glob<Catalogue>("./messages/*/en.json", { eager: true, import: "default" });
// English is bundled above; the other languages are chunks loaded when chosen.
const ALL_AREAS = import.meta.glob<Catalogue>(["./messages/*/*.json", "!./messages/*/en.json"], { import: "default" });

/** Every English message, all areas merged. */
export const ENGLISH: Catalogue = Object.assign({}, ...Object.values(ENGLISH_AREAS)) as Catalogue;

const cache = createIntlCache();
let current: IntlShape = make(DEFAULT_LOCALE, ENGLISH);
const listeners = new Set<() => void>();

function make(locale: Locale, messages: Catalogue): IntlShape {
  return createIntl(
    {
      locale,
      messages,
      defaultLocale: DEFAULT_LOCALE,
      // A missing translation falls back to the id; the catalogue test keeps that from shipping.
      onError: () => undefined,
    },
    cache,
  );
}

/** The merged catalogue of `locale`, English filling any gap. */
export async function loadCatalogue(locale: Locale): Promise<Catalogue> {
  if (locale === DEFAULT_LOCALE) return ENGLISH;
  const suffix = `/${locale}.json`;
  const parts = await Promise.all(
    Object.entries(ALL_AREAS)
      .filter(([path]) => path.endsWith(suffix))
      .map(([, load]) => load()),
  );
  return Object.assign({}, ENGLISH, ...parts) as Catalogue;
}

/** Switches every text to `locale` (and `<html lang dir>`). */
export async function setLocale(locale: Locale): Promise<void> {
  const messages = await loadCatalogue(locale);
  current = make(locale, messages);
  applyToDocument(locale);
  for (const notify of listeners) notify();
}

export function currentLocale(): Locale {
  const locale = current.locale;
  return isLocale(locale) ? locale : DEFAULT_LOCALE;
}

/** The formatter of the current language, for numbers, dates and lists. */
export function intl(): IntlShape {
  return current;
}

/** The text `id` in the current language, with ICU arguments. */
export function t(id: string, values?: Values): string {
  return current.formatMessage({ id }, values as Record<string, string | number | boolean | Date | null | undefined>);
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The current language; a component using it re-renders when it changes. */
export function useLocale(): Locale {
  return useSyncExternalStore(subscribe, currentLocale);
}
