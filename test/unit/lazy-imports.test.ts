/**
 * Cold start: the entry (src/bin.ts) loads only the Node.js version check and the heap
 * settings before the server;
 * the server's static import graph (src/main/index.ts and everything it imports without
 * `import()`) must not load undici or hawk; they load in the background after the transport is
 * up (`clients.warm()`) or on the first call. Redis and the OpenTelemetry SDK load only when their
 * environment variables ask for them. Only `import type` and dynamic `import()` may name them.
 */
import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
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

describe("cold-start imports", () => {
  it("the entry imports nothing statically but the version check and the heap settings (an old Node exits before anything loads)", () => {
    const graph = staticGraph(resolve(root, "src/bin.ts"));
    expect([...graph.keys()].map((f) => relative(root, f)).sort()).toEqual([
      "src/bin.ts",
      "src/main/heap.ts",
      "src/main/node-version.ts",
    ]);
    // Both are pure: heap.ts imports node:v8 only.
    expect(graph.get(resolve(root, "src/main/heap.ts"))).toEqual(["node:v8"]);
  });

  it("the binary never statically imports undici or hawk", () => {
    const graph = staticGraph(resolve(root, "src/main/index.ts"));
    const offending = [...graph].flatMap(([file, specs]) =>
      specs.filter((s) => /^(undici|hawk)(\/|$)/.test(s)).map((s) => `${file}: ${s}`),
    );
    expect(offending).toEqual([]);
    // The client is part of the graph, so the check covers it.
    expect([...graph.keys()].some((f) => f.endsWith("src/client/transport.ts"))).toBe(true);
  });

  it("the binary never statically imports OpenTelemetry or Redis (loaded only when configured)", () => {
    const graph = staticGraph(resolve(root, "src/main/index.ts"));
    const offending = [...graph].flatMap(([file, specs]) =>
      specs.filter((s) => /^(@redis\/|redis$|ioredis$|@opentelemetry\/)/.test(s)).map((s) => `${file}: ${s}`),
    );
    expect(offending).toEqual([]);
    // The hooks are in the graph (so the check covers the request path), the SDK side is not.
    expect([...graph.keys()].some((f) => f.endsWith("src/telemetry/hooks.ts"))).toBe(true);
  });
});
