/**
 * Which language the console starts in and where a choice is kept (docs/console.md
 * "Languages"): the person's saved preference (`GET /entity/preferences`, `users.ui_locale`)
 * once signed in, else the browser's `navigator.languages`. A choice made with the switcher
 * is saved with `PUT /entity/preferences` and kept for this tab even when the save fails.
 */
import { type Locale, isLocale, negotiateLocale } from "../../../shared/locales";
import { get, put } from "../api/client";
import { currentLocale, setLocale } from "./index";

export interface Preferences {
  locale: string | null;
}

/** The language the browser asks for (`navigator.languages`, most wanted first). */
export function browserLocale(): Locale {
  const wanted = navigator.languages?.length ? navigator.languages : [navigator.language];
  return negotiateLocale(wanted);
}

/** A choice made in this tab wins over the saved preference until the page is left. */
let chosenHere: Locale | null = null;

/** How long the first screen waits for the saved language before it shows (then it switches when it arrives). */
const WAIT_MS = 1500;

/**
 * After sign-in: switches to the saved language (if any), waiting at most {@link WAIT_MS}
 * so the shell is not painted in one language and then another.
 */
export async function applySavedLocale(): Promise<void> {
  const saved = get<Preferences>("/entity/preferences").then(
    (answer) => (isLocale(answer.locale) ? answer.locale : null),
    () => null,
  );
  const apply = saved.then(async (locale) => {
    if (locale && chosenHere === null && locale !== currentLocale()) await setLocale(locale);
  });
  await Promise.race([apply, new Promise((resolve) => setTimeout(resolve, WAIT_MS))]);
}

/** The switcher's choice: shown at once, then saved when signed in. Rejects when the save failed. */
export async function chooseLocale(locale: Locale, save: boolean): Promise<void> {
  chosenHere = locale;
  await setLocale(locale);
  if (save) await put<Preferences>("/entity/preferences", { locale });
}
