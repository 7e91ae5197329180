#!/usr/bin/env node
/**
 * The second step of `npm run build` (after `tsc -p tsconfig.build.json` wrote dist/src and
 * dist/tools): esbuild bundles the compiled binary into dist/bin/, the `maintenance-mcp` bin that
 * ships. Node's ES module loader costs about as much per module as the code in it, and the
 * unbundled server loads ~166 of them (ours, zod's, the SDK's) before it answers `tools/list`.
 * IMPORTANT: code splitting stays on: each `import()` (the server behind the version check, the
 * sandbox, the HTTP transport, undici, hawk, telemetry, hosting) stays a chunk loaded on demand;
 * one file without splitting parses ~3 MB at start and is slower than no bundle.
 * Bundled: everything but OpenTelemetry and Redis (hosting-only, loaded when configured, kept as
 * dependencies), so the SDK and our code share one zod. No source maps and no minification:
 * stack traces stay readable.
 *
 *   node scripts/build.mjs
 */
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "esbuild";

const root = resolve(import.meta.dirname, "..");
const outdir = join(root, "dist", "bin");

// esbuild turns the bundled CommonJS packages' (undici, hawk) `require("node:…")` into calls of a
// `require` it expects to exist; an ES module has none, so each output file makes one.
const REQUIRE_SHIM =
  'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);';

rmSync(outdir, { recursive: true, force: true });
const { metafile } = await build({
  absWorkingDir: root,
  entryPoints: { "maintenance-mcp": "dist/src/bin.js" },
  outdir,
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  external: ["@opentelemetry/*", "@redis/*", "redis"],
  banner: { js: REQUIRE_SHIM },
  sourcemap: false,
  minify: false,
  metafile: true,
  logLevel: "warning",
});

const outputs = Object.entries(metafile.outputs);
const kib = outputs.reduce((sum, [, o]) => sum + o.bytes, 0) / 1024;
process.stderr.write(`dist/bin: ${outputs.length} files, ${kib.toFixed(0)} KiB\n`);
