/// <reference types="node" />
/**
 * Finds import cycles among the modules of a source folder, for the apps' unit tests: a
 * module that imports itself through others (a screen importing the flow that shows it)
 * is refused. Type-only imports count too, since they tie the modules as tightly.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SOURCE = /\.(ts|tsx)$/;
/** `import … from "./x"`, `export … from "./x"`, `import "./x"`, `import("./x")`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']*)["']/g;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return SOURCE.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

/** The file a relative specifier names (`./x` → `./x.ts`, `./x.tsx` or `./x/index.ts`). */
function resolveSpecifier(from: string, specifier: string): string | null {
  const base = resolve(dirname(from), specifier);
  const candidates = [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")];
  return candidates.find((path) => SOURCE.test(path) && existsSync(path) && statSync(path).isFile()) ?? null;
}

/** Each module's relative imports of other source modules. */
export function importGraph(folder: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(folder)) {
    const text = readFileSync(file, "utf8");
    const targets = [...text.matchAll(SPECIFIER)]
      .map((found) => resolveSpecifier(file, found[1] ?? ""))
      .filter((target): target is string => target !== null);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Every cycle of the graph of `folder`, each as paths relative to it ("a.ts → b.ts → a.ts"). */
export function importCycles(folder: string): string[] {
  const graph = importGraph(folder);
  const cycles: string[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string): void => {
    const at = path.indexOf(file);
    if (at >= 0) {
      cycles.push([...path.slice(at), file].map((step) => relative(folder, step)).join(" → "));
      return;
    }
    if (done.has(file)) return;
    path.push(file);
    for (const target of graph.get(file) ?? []) visit(target);
    path.pop();
    done.add(file);
  };
  for (const file of graph.keys()) visit(file);
  return cycles;
}
