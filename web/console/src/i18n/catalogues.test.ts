// @vitest-environment happy-dom
/**
 * The catalogues: every area's locale files hold exactly English's ids, each
 * message parses as ICU MessageFormat with the same arguments as English, and every id the
 * sources read with `t("…")` exists in English. A missing translation fails here, not in a
 * person's browser.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { type MessageFormatElement, TYPE, parse } from "@formatjs/icu-messageformat-parser";
import { describe, expect, test } from "vitest";
import { SUPPORTED_LOCALES } from "../../../shared/locales";
import { ENGLISH } from "./index";

const HERE = dirname(fileURLToPath(import.meta.url));
const MESSAGES = join(HERE, "messages");
const SOURCES = join(HERE, "..");

type Catalogue = Record<string, string>;

/** One locale file of an area; empty when missing (the "every file is there" test says so). */
function read(area: string, locale: string): Catalogue {
  const path = join(MESSAGES, area, `${locale}.json`);
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Catalogue) : {};
}

const AREAS = readdirSync(MESSAGES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/** The argument names a message uses (plural, select and tag bodies included), with their kind. */
export function argumentsOf(elements: MessageFormatElement[], found = new Set<string>()): Set<string> {
  for (const element of elements) {
    switch (element.type) {
      case TYPE.argument:
        found.add(element.value);
        break;
      case TYPE.number:
      case TYPE.date:
      case TYPE.time:
        found.add(element.value);
        break;
      case TYPE.plural:
      case TYPE.select:
        found.add(element.value);
        for (const option of Object.values(element.options)) argumentsOf(option.value, found);
        break;
      case TYPE.tag:
        found.add(element.value);
        argumentsOf(element.children, found);
        break;
      default:
        break;
    }
  }
  return found;
}

const sorted = (values: Iterable<string>): string[] => [...values].sort();

describe.each(AREAS)("the catalogue area %s", (area) => {
  const english = read(area, "en");

  test("every locale has its file", () => {
    const missing = SUPPORTED_LOCALES.filter((locale) => !existsSync(join(MESSAGES, area, `${locale}.json`)));
    expect(missing, area).toEqual([]);
  });

  test("English ids start with the area", () => {
    for (const id of Object.keys(english)) expect(id.startsWith(`${area}.`), id).toBe(true);
  });

  test.each(SUPPORTED_LOCALES.filter((locale) => locale !== "en"))("%s has exactly English's ids", (locale) => {
    const translated = read(area, locale);
    const missing = Object.keys(english).filter((id) => !(id in translated));
    const extra = Object.keys(translated).filter((id) => !(id in english));
    expect({ missing, extra }, `${area}/${locale}.json`).toEqual({ missing: [], extra: [] });
  });

  test.each([...SUPPORTED_LOCALES])("%s: every message parses, with English's arguments", (locale) => {
    const translated = read(area, locale);
    for (const [id, message] of Object.entries(translated)) {
      expect(typeof message, `${locale} ${id}`).toBe("string");
      let elements: MessageFormatElement[] = [];
      expect(() => {
        elements = parse(message);
      }, `${locale} ${id}: ${message}`).not.toThrow();
      const source = english[id];
      if (source === undefined) continue;
      expect(sorted(argumentsOf(elements)), `${locale} ${id}`).toEqual(sorted(argumentsOf(parse(source))));
    }
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "messages" ? [] : sourceFiles(path);
    return /\.(ts|tsx)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

test("every id the sources read with t(\"…\") exists in English", () => {
  const missing: string[] = [];
  for (const file of sourceFiles(SOURCES)) {
    const text = readFileSync(file, "utf8");
    for (const found of text.matchAll(/\bt\(\s*"([a-zA-Z][\w.-]*)"/g)) {
      const id = found[1] ?? "";
      if (!(id in ENGLISH)) missing.push(`${relative(SOURCES, file)}: ${id}`);
    }
  }
  expect(missing).toEqual([]);
});

// Importing every screen takes a while on a busy machine.
test("navigation entries are message ids English has", { timeout: 60_000 }, async () => {
  const { ROUTES } = await import("../routes");
  for (const route of ROUTES) if (route.nav) expect(route.nav in ENGLISH, route.nav).toBe(true);
});
