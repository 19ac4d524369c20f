/**
 * The sign-in page's texts (docs/frontends.md "Languages"): ICU MessageFormat
 * catalogues in `i18n/<locale>.json` (flat `{ "id": "message" }`), formatted by
 * `@formatjs/intl` with the locale's plural and number rules. English is bundled; another
 * language is loaded when chosen. Every text a person reads goes through `t(id, values)`.
 *
 * Which language: a choice made with the switcher in this tab (sessionStorage) wins; else,
 * on a sign-in flow, the challenge's `locale` (negotiated by the server from `ui_locales`,
 * the person's saved language and `Accept-Language`); else `navigator.languages`.
 */
import { createIntl, createIntlCache, type IntlShape } from "@formatjs/intl";
import { DEFAULT_LOCALE, applyToDocument, directionOf, isLocale, negotiateLocale, type Locale } from "../../shared/locales";
import english from "./i18n/en.json";

export type Catalogue = Record<string, string>;
export type Values = Record<string, string | number>;

const LOADERS = import.meta.glob<Catalogue>(["./i18n/*.json", "!./i18n/en.json"], { import: "default" });

/** Every English message: the reference every other catalogue must match. */
export const ENGLISH: Catalogue = english;

/** Where the switcher's choice is remembered, for this tab only. */
const STORAGE_KEY = "idp.auth.locale";

const cache = createIntlCache();
let current: IntlShape = make(DEFAULT_LOCALE, ENGLISH);
const listeners = new Set<(locale: Locale) => void>();

function make(locale: Locale, messages: Catalogue): IntlShape {
  return createIntl(
    {
      locale,
      messages,
      defaultLocale: DEFAULT_LOCALE,
      // A missing id shows the id; the catalogue test keeps that from shipping.
      onError: () => undefined,
    },
    cache,
  );
}

/** The catalogue of `locale`, English filling any gap. */
export async function loadCatalogue(locale: Locale): Promise<Catalogue> {
  if (locale === DEFAULT_LOCALE) return ENGLISH;
  const load = LOADERS[`./i18n/${locale}.json`];
  if (load === undefined) return ENGLISH;
  return { ...ENGLISH, ...(await load()) };
}

/** Switches every later text to `locale`, sets `<html lang dir>`, tells the listeners. */
export async function setLocale(locale: Locale): Promise<void> {
  let messages: Catalogue;
  try {
    messages = await loadCatalogue(locale);
  } catch {
    return; // the catalogue did not load (network): stay in the current language
  }
  current = make(locale, messages);
  if (typeof document !== "undefined") {
    applyToDocument(locale);
  }
  for (const notify of listeners) notify(locale);
}

export function currentLocale(): Locale {
  return isLocale(current.locale) ? current.locale : DEFAULT_LOCALE;
}

/** Called after each change of language. */
export function onLocaleChange(listener: (locale: Locale) => void): void {
  listeners.add(listener);
}

/**
 * The text `id` in the current language, with ICU arguments. In a right-to-left language
 * each text argument (a client name, usually Latin) is isolated (U+2068 … U+2069), so that
 * "app-4edc" stays one left-to-right run inside the Arabic sentence.
 */
export function t(id: string, values?: Values): string {
  let given = values;
  if (values !== undefined && directionOf(currentLocale()) === "rtl") {
    given = Object.fromEntries(
      Object.entries(values).map(([name, value]) => [name, typeof value === "string" ? `\u2068${value}\u2069` : value]),
    );
  }
  return String(current.formatMessage({ id }, given));
}

/**
 * The text `id` as DOM children, with `nodes` (elements such as `<strong>` around a client
 * name) where the message names them: the translation decides where they go.
 */
export function tNodes(id: string, nodes: Record<string, Node>, values: Values = {}): (string | Node)[] {
  const names = Object.keys(nodes);
  const markers: Values = { ...values };
  names.forEach((name, index) => {
    markers[name] = `\uE000${index}\uE001`;
  });
  return t(id, markers)
    .split(/(\uE000\d+\uE001)/)
    .filter((part) => part !== "")
    .map((part) => {
      const found = /^\uE000(\d+)\uE001$/.exec(part);
      const name = found ? names[Number(found[1])] : undefined;
      return name !== undefined ? (nodes[name] ?? part) : part;
    });
}

/** The language chosen with the switcher in this tab, if any. */
export function chosenLocale(): Locale | null {
  try {
    const stored = window.sessionStorage.getItem(STORAGE_KEY);
    return isLocale(stored) ? stored : null;
  } catch {
    return null; // storage blocked: no remembered choice
  }
}

export function rememberChoice(locale: Locale): void {
  try {
    window.sessionStorage.setItem(STORAGE_KEY, locale);
  } catch {
    // storage blocked: the choice lasts until the page is left
  }
}

/** The language before any challenge is read: the tab's choice, else the browser's. */
export function initialLocale(): Locale {
  return chosenLocale() ?? negotiateLocale(navigator.languages ?? [navigator.language]);
}

/** Adopts the server's choice for a sign-in flow unless the person chose in this tab. */
export async function adoptServerLocale(locale: string | null): Promise<void> {
  if (chosenLocale() !== null || locale === null) return;
  const wanted = negotiateLocale([locale]);
  if (wanted !== currentLocale()) await setLocale(wanted);
}
