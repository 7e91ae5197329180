/**
 * Shared helpers of the quality suite (faults, soak, fuzz, security): fast clients against a
 * sandbox, result inspection, request-count arithmetic, and spawning the built binary.
 * IMPORTANT: the e2e parts run the shipped bundle, `dist/bin/maintenance-mcp.js`; `npm ci` builds it
 * through the `dependencies` script.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createClients } from "../../src/client/index.js";
import type { Clients } from "../../src/client/types.js";
import { loadConfig } from "../../src/config/config.js";
import type { SandboxHandle } from "../../src/sandbox/index.js";
import { createLogger, type Logger } from "../../src/telemetry/logger.js";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const BIN = `${REPO_ROOT}dist/bin/maintenance-mcp.js`;

/** Fails with a clear message when dist/ is missing (run `npm run build`). */
export function requireDist(): void {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` before the e2e tests`);
}

/** Retry/backoff settings small enough that every fault scenario finishes in well under a second. */
export const FAST_DEPS = { backoffBaseMs: 5, backoffMaxMs: 20, totalBudgetMs: 4_000 } as const;

export interface FastClients {
  clients: Clients;
  /** Log lines written by the client (debug level). */
  lines: string[];
  logger: Logger;
}

/**
 * Real clients (undici, OAuth or Hawk) against `sb`, with small timeouts: MMS_TIMEOUT_MS and
 * MMS_MAX_RETRIES go through loadConfig like the binary's environment does.
 */
export function fastClients(
  sb: SandboxHandle,
  options: {
    auth?: "oauth" | "hawk";
    env?: Record<string, string>;
    deps?: Partial<{ backoffBaseMs: number; backoffMaxMs: number; totalBudgetMs: number }>;
  } = {},
): FastClients {
  const lines: string[] = [];
  const logger = createLogger({ level: "debug", sink: (l) => lines.push(l) });
  const config = loadConfig({
    ...sb.env({ auth: options.auth ?? "oauth" }),
    // Long enough for a loaded machine (a 1 s bound timed out a sandbox answer beside two CPU-bound
    // processes); the tests of timeouts set their own, shorter, with an upstream held far past it.
    MMS_TIMEOUT_MS: "10000",
    MMS_MAX_RETRIES: "2",
    ...options.env,
  });
  const clients = createClients(config, { logger, ...FAST_DEPS, ...options.deps });
  return { clients, lines, logger };
}

/** The text of a result's first content block. */
export function firstText(result: unknown): string {
  const first = (result as CallToolResult).content?.[0];
  return first && first.type === "text" ? first.text : "";
}

/** Every text block of a result, joined (message and details). */
export function allText(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

/** The first line of an error result. */
export function firstLine(result: unknown): string {
  return firstText(result).split("\n")[0] ?? "";
}

/** The JSON after "Details: " in an error result, or undefined. */
export function detailsOf(result: unknown): Record<string, unknown> | undefined {
  const text = firstText(result);
  const at = text.indexOf("\nDetails: ");
  if (at === -1) return undefined;
  return JSON.parse(text.slice(at + "\nDetails: ".length)) as Record<string, unknown>;
}

/** Total number of upstream requests the sandbox has seen. */
export function totalRequests(sb: SandboxHandle): number {
  return Object.values(sb.faults.requestCount).reduce((a, b) => a + b, 0);
}

/** Requests counted for one "METHOD /path" key (0 when none). */
export function countOf(sb: SandboxHandle, key: string): number {
  return sb.faults.requestCount[key] ?? 0;
}

/** Resolve with `promise`, or reject after `ms` (so a hang fails the test with a message, not a timeout). */
export async function within<T>(ms: number, promise: Promise<T>, what = "call"): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/** Deterministic PRNG (the sandbox's mulberry32), so soak runs are reproducible from their seed. */
export { prng } from "../../src/sandbox/seed.js";

/** A new-purchase entry that the sandbox accepts (WH-MAIN, HR-001, SP-1003). */
export function purchaseArgs(document: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    warehouse_code: "WH-MAIN",
    movement_type: "purchase",
    document,
    code_user: "HR-001",
    items: [{ code: "SP-1003", qty: 1, unit_cost: 10 }],
    ...extra,
  };
}

/** Movements stored by the sandbox whose document is `document`. */
export function movementsWithDocument(sb: SandboxHandle, document: string): number {
  return sb.state.movements.filter((m) => m.movement.document === document).length;
}

/** Resident set size of a process in bytes, from /proc (Linux). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
}

export interface SpawnedServer {
  child: ChildProcess;
  /** Everything the child wrote to stdout and stderr so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or null when killed by a signal). */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after 3 s; resolves when the process is gone. */
  stop(): Promise<void>;
}

/** Spawn the built binary with exactly `env` (plus PATH/HOME), collecting its output. */
export function spawnBin(
  args: string[],
  env: Record<string, string>,
  nodeArgs: string[] = [],
): SpawnedServer {
  requireDist();
  const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (c: Buffer) => {
    out += c.toString("utf8");
  });
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 3_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Spawn `--http --port 0` and wait for the "listening on <url>" line on stderr. */
export async function spawnHttpServer(
  args: string[],
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<SpawnedServer & { url: string }> {
  const server = spawnBin(["--http", "--port", "0", ...args], env, nodeArgs);
  const url = await within(
    10_000,
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const m = /listening on (http:\/\/\S+\/mcp)/.exec(server.stderr());
        if (m) {
          server.child.stderr?.off("data", check);
          resolve(m[1]!);
        }
      };
      server.child.stderr?.on("data", check);
      server.exited.then((code) => reject(new Error(`server exited (${code}): ${server.stderr()}`)));
      check();
    }),
    "HTTP server start",
  );
  return { ...server, url };
}

/** Preload for spawned servers: SIGUSR2 → full GC, then "gc-probe heapUsed=… rss=…" on stderr. */
export const GC_PROBE_ARGS = ["--expose-gc", "--import", `${REPO_ROOT}test/quality/gc-probe.mjs`];

/** Ask a server spawned with GC_PROBE_ARGS for its heap after a full GC. */
export async function probeHeap(server: SpawnedServer): Promise<{ heapUsed: number; rss: number }> {
  const seen = (server.stderr().match(/gc-probe /g) ?? []).length;
  server.child.kill("SIGUSR2");
  return within(
    5_000,
    new Promise((resolve) => {
      const check = () => {
        const lines = [...server.stderr().matchAll(/gc-probe heapUsed=(\d+) rss=(\d+)/g)];
        if (lines.length > seen) {
          server.child.stderr?.off("data", check);
          const last = lines[lines.length - 1]!;
          resolve({ heapUsed: Number(last[1]), rss: Number(last[2]) });
        }
      };
      server.child.stderr?.on("data", check);
      check();
    }),
    "gc probe",
  );
}
