/// <reference types="node" />
/**
 * The catalogues (docs/frontends.md "Languages"): every language has exactly English's
 * keys; every message parses as ICU MessageFormat and uses English's arguments; every
 * plural covers the language's plural categories (Arabic's six); every id the code reads
 * with `t("…")` / `tNodes("…")` exists in English. A key missing anywhere fails here.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TYPE, parse, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import { describe, expect, test } from "vitest";
import { SUPPORTED_LOCALES } from "../../shared/locales";
import { currentLocale, setLocale, t, tNodes } from "./i18n";

const SRC = fileURLToPath(new URL(".", import.meta.url));
type Catalogue = Record<string, string>;

function catalogue(locale: string): Catalogue {
  return JSON.parse(readFileSync(join(SRC, "i18n", `${locale}.json`), "utf8")) as Catalogue;
}

/** The argument names a message uses, and for each plural argument its categories. */
function argumentsOf(elements: MessageFormatElement[], found = new Set<string>(), plurals: string[][] = []) {
  for (const element of elements) {
    switch (element.type) {
      case TYPE.argument:
      case TYPE.number:
      case TYPE.date:
      case TYPE.time:
        found.add(element.value);
        break;
      case TYPE.select:
      case TYPE.plural:
        found.add(element.value);
        if (element.type === TYPE.plural) plurals.push(Object.keys(element.options));
        for (const option of Object.values(element.options)) argumentsOf(option.value, found, plurals);
        break;
      case TYPE.tag:
        found.add(element.value);
        argumentsOf(element.children, found, plurals);
        break;
      default:
        break;
    }
  }
  return { names: [...found].sort(), plurals };
}

/** What is wrong with `other` against English: missing, extra, unparsable, other arguments. */
function catalogueProblems(locale: string, english: Catalogue, other: Catalogue): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(english)) {
    if (!(key in other)) problems.push(`${locale}: missing ${key}`);
  }
  for (const key of Object.keys(other)) {
    if (!(key in english)) problems.push(`${locale}: extra ${key}`);
  }
  const categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
  for (const [key, message] of Object.entries(other)) {
    const source = english[key];
    if (source === undefined) continue;
    let mine: ReturnType<typeof argumentsOf>;
    try {
      mine = argumentsOf(parse(message));
    } catch (error) {
      problems.push(`${locale}: ${key} does not parse: ${String(error)}`);
      continue;
    }
    const theirs = argumentsOf(parse(source));
    if (mine.names.join(",") !== theirs.names.join(",")) {
      problems.push(`${locale}: ${key} uses {${mine.names.join(", ")}}, English {${theirs.names.join(", ")}}`);
    }
    for (const options of mine.plurals) {
      const missing = categories.filter((category) => !options.includes(category));
      if (missing.length > 0) problems.push(`${locale}: ${key} lacks plural forms ${missing.join(", ")}`);
    }
  }
  return problems;
}

function sources(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) ? [path] : [];
  });
}

const ENGLISH = catalogue("en");

describe("catalogues", () => {
  test("the five languages are shipped", () => {
    const files = readdirSync(join(SRC, "i18n")).filter((name) => name.endsWith(".json"));
    expect(files.map((name) => name.replace(/\.json$/, "")).sort()).toEqual([...SUPPORTED_LOCALES].sort());
  });

  test.each(SUPPORTED_LOCALES.filter((l) => l !== "en"))("%s has exactly English's keys, arguments and plural forms", (locale) => {
    expect(catalogueProblems(locale, ENGLISH, catalogue(locale))).toEqual([]);
  });

  test("English itself parses and covers its plural forms", () => {
    expect(catalogueProblems("en", ENGLISH, ENGLISH)).toEqual([]);
  });

  test("the check fails on a missing key, another argument, a missing plural form", () => {
    // English's own messages stand for a German catalogue: the check alone is tested here.
    const german = { ...ENGLISH };
    const { "login.title": _dropped, ...withoutKey } = german;
    expect(catalogueProblems("de", ENGLISH, withoutKey)).toEqual(["de: missing login.title"]);
    const renamed = { ...german, "consent.title": "{app} Zugriff erlauben?" };
    expect(catalogueProblems("de", ENGLISH, german)).toEqual([]);
    expect(catalogueProblems("de", ENGLISH, renamed)).toHaveLength(1);
    const arabic = { ...catalogue("ar"), "error.tooManyAttempts": "{seconds, plural, one {ثانية} other {# ثانية}}" };
    expect(catalogueProblems("ar", ENGLISH, arabic).filter((p) => p.includes("error.tooManyAttempts"))).toEqual([
      "ar: error.tooManyAttempts lacks plural forms few, many, two, zero",
    ]);
  });

  test("every id the code reads exists in English", () => {
    const used = new Set<string>();
    for (const file of sources(SRC)) {
      for (const found of readFileSync(file, "utf8").matchAll(/\b(?:t|tNodes)\(\s*"([^"]+)"/g)) {
        used.add(found[1] ?? "");
      }
    }
    expect(used.size).toBeGreaterThan(100);
    expect([...used].filter((id) => !(id in ENGLISH))).toEqual([]);
  });
});

describe("t", () => {
  test("formats plurals by the language's rules", () => {
    expect(t("error.tooManyAttempts", { seconds: 1 })).toBe("Too many attempts. Try again in 1 second.");
    expect(t("error.tooManyAttempts", { seconds: 7 })).toBe("Too many attempts. Try again in 7 seconds.");
  });

  test("tNodes puts the nodes where the message says", () => {
    const strong = { nodeType: 1, name: "strong" } as unknown as Node;
    expect(tNodes("client.continueTo", { client: strong })).toEqual(["to continue to ", strong]);
  });
});

describe("setLocale", () => {
  test("Arabic uses its six plural forms for the wait", async () => {
    await setLocale("ar");
    try {
      expect(currentLocale()).toBe("ar");
      const wait = (seconds: number) => t("error.tooManyAttempts", { seconds });
      expect(wait(1)).toContain("ثانية واحدة");
      expect(wait(2)).toContain("ثانيتين");
      expect(wait(3)).toContain("3 ثوانٍ");
      expect(wait(11)).toContain("11 ثانية");
      // A Latin client name stays one run inside the Arabic sentence.
      expect(t("consent.title", { client: "app-4edc" })).toContain("\u2068app-4edc\u2069");
    } finally {
      await setLocale("en");
    }
  });

  test("German says one second and several seconds", async () => {
    await setLocale("de");
    try {
      expect(t("error.tooManyAttempts", { seconds: 1 })).toBe("Zu viele Versuche. Versuchen Sie es in 1 Sekunde erneut.");
      expect(t("error.tooManyAttempts", { seconds: 30 })).toBe("Zu viele Versuche. Versuchen Sie es in 30 Sekunden erneut.");
    } finally {
      await setLocale("en");
    }
  });
});
