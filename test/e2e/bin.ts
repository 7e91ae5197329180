/** Spawning the shipped binary (the dist/bin/ bundle, built by `npm ci` through the `dependencies` script and by `pretest`). */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";

export const BIN = "dist/bin/maintenance-mcp.js";

/** The test runner's environment without any MMS_* / MCP_* / LOG_LEVEL, so tests never touch a real upstream. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => e[1] !== undefined && !/^(MMS_|MCP_|LOG_LEVEL$)/.test(e[0]),
    ),
  );
  return { ...base, ...extra };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run the binary to completion (for usage/config errors, --help, --version, --check). Its stdin is
 * closed at once, as a host that goes away would: an unconfigured stdio server then exits 2.
 */
export async function runBin(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 10_000,
  options: { keepStdinOpen?: boolean } = {},
): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
  if (!options.keepStdinOpen) child.stdin.end();
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** Start the binary and wait until stderr contains `ready`; returns the child and its collected output. */
export async function startBin(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{
  child: ChildProcessWithoutNullStreams;
  match: RegExpMatchArray;
  output: { stdout: string; stderr: string };
}> {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (d) => (output.stdout += d));
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in time; stderr: ${output.stderr}`)), 10_000);
    child.stderr.on("data", (d) => {
      output.stderr += d;
      const m = output.stderr.match(ready);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    child.once("exit", (code) => reject(new Error(`exited ${code} before ready; stderr: ${output.stderr}`)));
  });
  return { child, match, output };
}

/** A raw JSON-RPC session with the binary over real stdio (no SDK client, so its exit code is seen). */
export interface RawSession {
  /** Send a request and resolve with its response (`result` or `error`). */
  request(method: string, params?: unknown): Promise<Record<string, unknown>>;
  notify(method: string, params?: unknown): void;
  /** initialize + notifications/initialized; resolves with the initialize result. */
  initialize(): Promise<Record<string, unknown>>;
  /** Close stdin and wait for the exit. */
  end(): Promise<Run>;
}

export function rawSession(
  args: string[],
  env: Record<string, string>,
  options: { bin?: string } = {},
): RawSession {
  const child = spawn(process.execPath, [options.bin ?? BIN, ...args], {
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let buffered = "";
  let nextId = 1;
  const waiters = new Map<number, (message: Record<string, unknown>) => void>();
  child.stderr.on("data", (d) => (stderr += d));
  child.stdout.on("data", (d: Buffer) => {
    stdout += d;
    buffered += d;
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      const message = JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>;
      buffered = buffered.slice(newline + 1);
      if (typeof message.id === "number") waiters.get(message.id)?.(message);
      newline = buffered.indexOf("\n");
    }
  });
  const exited = once(child, "exit") as Promise<[number | null]>;
  const write = (message: unknown) =>
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...(message as object) })}\n`);
  const session: RawSession = {
    request(method, params = {}) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no answer to ${method}; stderr: ${stderr}`)),
          10_000,
        );
        waiters.set(id, (m) => {
          clearTimeout(timer);
          resolve(m);
        });
        write({ id, method, params });
      });
    },
    notify(method, params = {}) {
      write({ method, params });
    },
    async initialize() {
      const answer = await session.request("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "e2e-raw", version: "1" },
      });
      session.notify("notifications/initialized");
      return answer.result as Record<string, unknown>;
    },
    async end() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const [code] = await exited;
      clearTimeout(timer);
      return { code, stdout, stderr };
    },
  };
  return session;
}
