/// <reference types="node" />
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { importCycles } from "../../shared/import-cycles";

test("no module imports itself through others", () => {
  expect(importCycles(fileURLToPath(new URL(".", import.meta.url)))).toEqual([]);
});
