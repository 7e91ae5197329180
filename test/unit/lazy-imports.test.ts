/**
 * Cold start: `src/client/lazy.ts` and everything it imports statically must not load undici,
 * hawk, zod or the eager client (`./index.js`); only `import type` and dynamic `import()` may
 * name them. Walks the static import graph from lazy.ts.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^'"]*?\sfrom\s+)?["']([^"']+)["']/gm;

function staticGraph(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const visit = (file: string) => {
    if (graph.has(file)) return;
    const source = readFileSync(file, "utf8");
    const specs = [...source.matchAll(STATIC_IMPORT)].map((m) => m[1]!);
    graph.set(file, specs);
    for (const spec of specs)
      if (spec.startsWith(".")) visit(resolve(dirname(file), spec).replace(/\.js$/, ".ts"));
  };
  visit(entry);
  return graph;
}

describe("lazy client imports", () => {
  it("never statically imports undici, hawk, zod or ./index.js", () => {
    const graph = staticGraph(resolve(root, "src/client/lazy.ts"));
    const offending = [...graph].flatMap(([file, specs]) =>
      specs
        .filter((s) => /^(undici|hawk|zod)$/.test(s) || s.endsWith("/index.js") || s === "./http.js")
        .map((s) => `${file}: ${s}`),
    );
    expect(offending).toEqual([]);
    expect(graph.size).toBeGreaterThan(2);
  });
});
