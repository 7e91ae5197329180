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

/** Run the binary to completion (for usage/config errors, --help, --version). */
export async function runBin(args: string[], env: Record<string, string>, timeoutMs = 10_000): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
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
