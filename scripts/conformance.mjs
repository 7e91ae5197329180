#!/usr/bin/env node
/**
 * `npm run conformance`: the generic server scenarios of @modelcontextprotocol/conformance (those
 * that need no fixture tools, prompts or resources) against our Streamable HTTP transport
 * (`dist/src/index.js --sandbox --http --port 0`). The suite needs Node >= 22: it runs on the
 * `node@22` npm package through npx, the system Node is untouched. Builds dist/ when it is older
 * than the sources, stops the server in any case, prints "N passed, N failed" last, and exits 1 on
 * any failed check or scenario. Warnings (SHOULDs) are printed but do not fail.
 *   node scripts/conformance.mjs [--e2e] [--scenario NAME]...
 *     --e2e: also run test/e2e with vitest on Node 22; --scenario: run these instead of the default set
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "dist/src/index.js");
const SUITE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "dns-rebinding-protection",
  "server-sse-multiple-streams",
];
const SCENARIO_TIMEOUT_MS = 60_000;
const NPX = process.platform === "win32" ? "npx.cmd" : "npx";

const log = (line) => process.stderr.write(`[conformance] ${line}\n`);

/** Newest modification time (ms) under `dir`. */
function newest(dir) {
  let max = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile())
      max = Math.max(max, statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
  }
  return max;
}

function buildIfNeeded() {
  const sources = Math.max(newest(join(ROOT, "src")), newest(join(ROOT, "tools")));
  if (existsSync(BIN) && statSync(BIN).mtimeMs >= sources) return;
  log("dist/ is missing or older than the sources: building (tsc -p tsconfig.build.json)");
  const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "inherit" });
}

/** Path of the Node 22 binary from the `node@22` npm package (fetched into the npx cache once). */
function node22() {
  const out = execFileSync(NPX, ["-y", "node@22", "-p", "process.execPath + ' ' + process.version"], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"], // npx's config warnings on stderr are noise here
  }).trim();
  const [path, version] = out.split("\n").at(-1).split(" ");
  if (!version?.startsWith("v22.")) throw new Error(`node@22 gave ${out}`);
  return { path, version };
}

/** Start our server on a free port; resolves with its URL and a stop function. */
function startServer() {
  const child = spawn(process.execPath, [BIN, "--sandbox", "--http", "--port", "0"], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "error" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`server did not start within 15 s: ${seen}`));
    }, 15_000);
    child.once("exit", (code) => reject(new Error(`server exited with ${code}: ${seen}`)));
    child.stderr.on("data", (chunk) => {
      if (seen.length < 10_000) seen += chunk;
      const m = /listening on (http:\/\/\S+\/mcp)/.exec(seen);
      if (!m) return;
      clearTimeout(timer);
      resolve({ url: m[1], stop });
    });
  });
}

/** Run one scenario; returns its checks (from checks.json) and the suite's exit code. */
function runScenario(node, url, scenario, outDir) {
  return new Promise((resolve) => {
    const child = spawn(node, [SUITE, "server", "--url", url, "--scenario", scenario, "-o", outDir], {
      cwd: outDir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), SCENARIO_TIMEOUT_MS);
    child.once("exit", (code) => {
      clearTimeout(timer);
      const files = readdirSync(outDir, { recursive: true }).filter((f) => String(f).endsWith("checks.json"));
      const checks = files.flatMap((f) => JSON.parse(readFileSync(join(outDir, String(f)), "utf8")));
      resolve({ code, checks, output });
    });
  });
}

async function runE2e(node) {
  const dir = join(ROOT, "test/e2e");
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => /\.test\.[cm]?[jt]s$/.test(f)) : [];
  if (files.length === 0) {
    log("test/e2e has no tests: skipped the Node 22 e2e run");
    return 0;
  }
  log(`e2e tests on Node 22: ${files.join(", ")}`);
  const child = spawn(node, [join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "test/e2e"], {
    cwd: ROOT,
    stdio: "inherit",
  });
  return new Promise((resolve) => child.once("exit", (code) => resolve(code ?? 1)));
}

async function main(argv) {
  const started = Date.now();
  const chosen = argv.flatMap((a, i) => (argv[i - 1] === "--scenario" ? [a] : []));
  const scenarios = chosen.length > 0 ? chosen : SCENARIOS;
  buildIfNeeded();
  const node = node22();
  log(`suite @modelcontextprotocol/conformance on Node ${node.version}`);
  const server = await startServer();
  log(`server ${server.url}`);
  const work = mkdtempSync(join(tmpdir(), "mcp-conformance-"));
  let passed = 0;
  let failed = 0;
  let warnings = 0;
  try {
    for (const scenario of scenarios) {
      const outDir = mkdtempSync(join(work, `${scenario}-`));
      const { code, checks, output } = await runScenario(node.path, server.url, scenario, outDir);
      const bad = checks.filter((c) => c.status === "FAILURE");
      const warned = checks.filter((c) => c.status === "WARNING");
      const ok = code === 0 && bad.length === 0 && checks.length > 0;
      if (ok) passed++;
      else failed++;
      warnings += warned.length;
      log(
        `${ok ? "PASS" : "FAIL"} ${scenario} (${checks.filter((c) => c.status === "SUCCESS").length} checks ok)`,
      );
      for (const c of [...bad, ...warned]) log(`  ${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
      if (!ok && checks.length === 0) log(`  suite exit ${code}, output:\n${output.slice(-2_000)}`);
    }
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
  const e2e = argv.includes("--e2e") ? await runE2e(node.path) : 0;
  if (e2e !== 0) failed++;
  log(
    `${scenarios.length} scenario(s), ${warnings} warning(s), ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  return failed === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    log(String(error?.stack ?? error));
    process.stdout.write("0 passed, 1 failed\n");
    process.exitCode = 1;
  },
);
