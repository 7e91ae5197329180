#!/usr/bin/env node
/**
 * `npm run build` (after scripts/check-node.cjs). First esbuild transpiles src/ and tools/ file by
 * file to dist/src and dist/tools (what the benchmarks and scripts import). It type-checks nothing:
 * `npm run typecheck` does (CI runs it, and so does `prepack`); tsc's emit took ~20 s of every build,
 * twice per CI run, to write what esbuild writes in under a second (isolatedModules and
 * verbatimModuleSyntax in tsconfig.json make the two emits the same, file by file). Then esbuild
 * bundles the server into dist/bin/, the `maintenance-mcp` bin that ships. Node's ES module loader costs about as much per module as the code in it, and the
 * unbundled server loads 164 of them (ours, zod's, the SDK's) before it answers `tools/list`.
 * IMPORTANT: code splitting stays on: each `import()` (the server behind the version check, the
 * sandbox, the HTTP transport, undici, hawk, OpenTelemetry, Redis, hosting) stays a chunk loaded on
 * demand;
 * one file without splitting parses ~3 MB at start and is slower than no bundle.
 * Bundled: everything, OpenTelemetry and the Redis client included (hosting-only: their chunks load
 * when configured), so the package has no `dependencies` and installs at ~5 MB instead of ~43 MB;
 * the SDK and our code share one zod. The licences ship beside the code in
 * dist/bin/third-party-licenses.txt (scripts/licenses/ holds those a package does not ship itself).
 * No source maps and no minification: stack traces stay readable.
 * Then the MCP App view (src/ui/, interface.md §8): bundled for the browser with the extension's
 * App class, minified, and inlined (script and styles) into one HTML file that needs no network,
 * dist/bin/ui/budget-review.html, which the server reads on `resources/read`. The build fails if it
 * passes 1 MB.
 *
 *   node scripts/build.mjs
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build, transform } from "esbuild";

const root = resolve(import.meta.dirname, "..");
const outdir = join(root, "dist", "bin");

// esbuild turns the bundled CommonJS packages' (undici, hawk) `require("node:…")` into calls of a
// `require` it expects to exist; an ES module has none, so each output file makes one.
const REQUIRE_SHIM =
  'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);';

/**
 * The licence text of every package in the bundle (MIT, BSD-3-Clause and Apache-2.0 all ask that it
 * travel with the code), from the build's inputs. Fails on a package without a licence file.
 */
function thirdPartyLicenses(inputs) {
  const dirs = new Set();
  for (const path of Object.keys(inputs)) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(path);
    if (m) dirs.add(m[1]);
  }
  const sections = [...dirs].sort().map((dir) => {
    const pkg = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
    const file = readdirSync(join(root, dir)).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
    const kept = join(root, "scripts", "licenses", `${pkg.name.replace("/", "__")}.txt`);
    if (file === undefined && !existsSync(kept))
      throw new Error(`${dir}: no licence file to ship with the bundle (add ${kept})`);
    const text = readFileSync(file === undefined ? kept : join(root, dir, file), "utf8").trim();
    return `${pkg.name} ${pkg.version} (${pkg.license})\n\n${text}\n`;
  });
  return `Packages bundled into dist/bin/ and their licences.\n\n${sections.join(`\n${"-".repeat(80)}\n\n`)}`;
}

/**
 * Two of undici's modules replaced in the bundle, each by a file in scripts/undici-shims/ that says
 * why: its `node:assert` (~6 ms to load) and its HTTP/2 client (node:http2 and node:tls, ~8 ms),
 * which our Agent never uses. Together ~14 ms off the first upstream request. The build fails if
 * either no longer matches (a new undici), rather than silently shipping without.
 */
function undiciDiet() {
  const shims = join(root, "scripts", "undici-shims");
  const replaced = new Set();
  const fromUndici = (importer) => /node_modules\/undici\//.test(importer);
  return {
    name: "undici-diet",
    setup(b) {
      b.onResolve({ filter: /^node:assert$/ }, (args) => {
        if (!fromUndici(args.importer)) return undefined;
        replaced.add("node:assert");
        return { path: join(shims, "assert.cjs") };
      });
      b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) => {
        if (!fromUndici(args.importer)) return undefined;
        replaced.add("client-h2");
        return { path: join(shims, "client-h2.cjs") };
      });
      b.onEnd(() => {
        for (const what of ["node:assert", "client-h2"])
          if (!replaced.has(what))
            throw new Error(`undici-diet: undici no longer imports ${what}; update scripts/build.mjs`);
      });
    },
  };
}

/**
 * zod's `locales` namespace (40-odd translations of its error messages, ~370 KB, half the zod chunk)
 * reduced in the bundle to the English one, the only one in use (zod's default, which its schemas
 * import directly; neither we nor the SDK call `z.config(z.locales.xx())`). It sat in the chunk
 * every start compiles before `tools/list`: ~6 ms of CPU before the first result. The build fails
 * if zod no longer imports it, rather than silently shipping without.
 */
function zodLocalesDiet() {
  let replaced = false;
  return {
    name: "zod-locales-diet",
    setup(b) {
      b.onLoad({ filter: /node_modules\/zod\/v4\/locales\/index\.js$/ }, () => {
        replaced = true;
        return { contents: 'export { default as en } from "./en.js";', loader: "js" };
      });
      b.onEnd(() => {
        if (!replaced)
          throw new Error(
            "zod-locales-diet: zod no longer has v4/locales/index.js; update scripts/build.mjs",
          );
      });
    },
  };
}

/**
 * The SDK's default JSON Schema validator (its bundled ajv, ajv-formats and two more dialects, ~290 KB
 * of CommonJS) runs all of ajv's module code when the SDK loads, though an engine is only made on the
 * first validation (an elicitation's answer; a tool call never needs one). Rewritten in the bundle so
 * that ajv's modules run on that first use too: ~5 ms of CPU off every start. Only the validator
 * class is lazy-safe (the `Ajv` and `addFormats` exports are not), so the build fails if anything
 * imports the SDK's `validators/ajv` entry, or if the file no longer reads as expected.
 */
const AJV_EAGER = `var import_ajv = require_ajv();
var import__2019 = require__2019();
var import__2020 = require__2020();
var import_dist = /* @__PURE__ */ __toESM(require_dist(), 1);
/** \`ajv-formats\` default export, normalised through the CJS/ESM interop wrapper. */
const addFormats = import_dist.default;`;
const AJV_LAZY = `let ajvModules;
/** ajv's modules, run on the first validation (scripts/build.mjs, lazyAjv). */
const ajvLoaded = () => (ajvModules ??= {
  ajv: require_ajv(),
  d2019: require__2019(),
  d2020: require__2020(),
  formats: __toESM(require_dist(), 1).default,
});
const addFormats = (...args) => ajvLoaded().formats(...args);`;
const AJV_USES = [
  ["createDefaultAjvInstance(import__2020.Ajv2020)", "createDefaultAjvInstance(ajvLoaded().d2020.Ajv2020)"],
  ["createDefaultAjvInstance(import__2019.Ajv2019)", "createDefaultAjvInstance(ajvLoaded().d2019.Ajv2019)"],
  ["createDefaultAjvInstance(import_ajv.Ajv)", "createDefaultAjvInstance(ajvLoaded().ajv.Ajv)"],
  ["const Ajv = import_ajv.Ajv;", "const Ajv = undefined;"],
];

function lazyAjv() {
  let replaced = false;
  return {
    name: "lazy-ajv",
    setup(b) {
      b.onLoad({ filter: /@modelcontextprotocol\/server\/dist\/ajvProvider-[^/]+\.mjs$/ }, (args) => {
        let text = readFileSync(args.path, "utf8");
        const fail = (what) => ({
          errors: [{ text: `lazy-ajv: ${what} not found in ${args.path}; update scripts/build.mjs` }],
        });
        if (!text.includes(AJV_EAGER)) return fail("the eager requires");
        text = text.replace(AJV_EAGER, AJV_LAZY);
        for (const [from, to] of AJV_USES) {
          if (!text.includes(from)) return fail(from);
          text = text.replace(from, to);
        }
        if (/import_ajv|import__20|import_dist/.test(text))
          return fail("no other use of the eager imports, but one is");
        replaced = true;
        return { contents: text, loader: "js" };
      });
      b.onLoad({ filter: /@modelcontextprotocol\/server\/dist\/validators\/ajv\.mjs$/ }, () => ({
        errors: [
          { text: "lazy-ajv: the SDK's validators/ajv entry needs the eager Ajv export; drop lazyAjv()" },
        ],
      }));
      b.onEnd(() => {
        if (!replaced)
          throw new Error("lazy-ajv: the SDK no longer has dist/ajvProvider-*.mjs; update scripts/build.mjs");
      });
    },
  };
}

/** The view's largest allowed size (interface.md §8: at most 1 MB). */
const VIEW_MAX_BYTES = 1_000_000;

/** src/ui/ → one self-contained HTML document; returns it and the esbuild inputs (for the licences). */
async function buildView() {
  const ui = join(root, "src", "ui");
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const script = await build({
    absWorkingDir: root,
    entryPoints: [join(ui, "main.ts")],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2022",
    minify: true,
    // The bundled packages' licences ship in third-party-licenses.txt beside the view.
    legalComments: "none",
    charset: "utf8",
    define: { VIEW_VERSION: JSON.stringify(pkg.version) },
    metafile: true,
    logLevel: "warning",
  });
  const styles = await transform(readFileSync(join(ui, "styles.css"), "utf8"), {
    loader: "css",
    minify: true,
    charset: "utf8",
  });
  const js = script.outputFiles[0].text;
  // IMPORTANT: inlined code must not close its own element early.
  if (/<\/script/i.test(js) || /<\/style/i.test(styles.code)) {
    throw new Error("the view's inlined code contains a closing </script> or </style>");
  }
  const html = readFileSync(join(ui, "index.html"), "utf8")
    .replace("<!-- build: styles -->", () => `<style>${styles.code.trim()}</style>`)
    .replace("<!-- build: script -->", () => `<script>${js.trim()}</script>`);
  const bytes = Buffer.byteLength(html);
  if (bytes > VIEW_MAX_BYTES) {
    throw new Error(`the budget-review view is ${bytes} bytes, above ${VIEW_MAX_BYTES} (interface.md §8)`);
  }
  return { html, inputs: script.metafile.inputs };
}

/** src/ and tools/ (not src/ui/, the browser's), one .js per .ts under dist/: no bundle, no types checked. */
async function transpile() {
  const sources = ["src", "tools"].flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true })
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
      .map((f) => join(dir, f))
      .filter((f) => !f.startsWith(join("src", "ui"))),
  );
  for (const dir of ["src", "tools"]) rmSync(join(root, "dist", dir), { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: sources,
    outdir: "dist",
    outbase: ".",
    format: "esm",
    platform: "node",
    target: "es2022",
    logLevel: "warning",
  });
}

/**
 * The tools' JSON Schemas, converted now rather than on every start (~12 ms before the first tools/list):
 * written into dist/src/mcp/built-tool-schemas.js, in toolVariants()'s order, before it is bundled.
 * As a JSON.parse of one string: V8 reads that faster than the same object as code.
 */
async function storeToolSchemas() {
  const url = (path) => pathToFileURL(join(root, "dist", path)).href;
  const { toolVariants, convertToolSchemas } = await import(url("src/mcp/tool-schemas.js"));
  const schemas = toolVariants().map(convertToolSchemas);
  writeFileSync(
    join(root, "dist", "src", "mcp", "built-tool-schemas.js"),
    `export const BUILT_TOOL_SCHEMAS = JSON.parse(${JSON.stringify(JSON.stringify(schemas))});\n`,
  );
}

await transpile();
await storeToolSchemas();
rmSync(outdir, { recursive: true, force: true });
const view = await buildView();
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
  banner: { js: REQUIRE_SHIM },
  sourcemap: false,
  minify: false,
  metafile: true,
  plugins: [undiciDiet(), zodLocalesDiet(), lazyAjv()],
  logLevel: "warning",
});

mkdirSync(join(outdir, "ui"));
writeFileSync(join(outdir, "ui", "budget-review.html"), view.html);
writeFileSync(
  join(outdir, "third-party-licenses.txt"),
  thirdPartyLicenses({ ...metafile.inputs, ...view.inputs }),
);

const outputs = Object.entries(metafile.outputs);
const kib = outputs.reduce((sum, [, o]) => sum + o.bytes, 0) / 1024;
process.stderr.write(
  `dist/bin: ${outputs.length} files, ${kib.toFixed(0)} KiB; ui/budget-review.html ${(Buffer.byteLength(view.html) / 1024).toFixed(0)} KiB\n`,
);
