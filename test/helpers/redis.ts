/**
 * A real, throwaway redis-server per test file: a free loopback port, persistence off, started and
 * stopped with bounded waits (killed on teardown if it does not stop).
 * redis-server comes from Debian (`apt-get install -y --no-install-recommends redis-server`);
 * `.ci/run` installs it. Missing in CI → the tests fail with that command; missing locally (CI unset)
 * → they are skipped with the same hint.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe } from "vitest";

const INSTALL_HINT =
  "redis-server is not installed: run `apt-get update && apt-get install -y --no-install-recommends redis-server` (.ci/run does this in CI)";

/**
 * The environment redis-server runs in: ours less `LD_PRELOAD`. Under libfaketime (the suite's moved-clock
 * runs, CONTRIBUTING.md "Clocks in tests") redis-server hangs at start with the library loaded; it keeps
 * only relative times (TTLs), so the real clock serves it as well.
 */
function redisEnv(): NodeJS.ProcessEnv {
  const { LD_PRELOAD: _preload, ...env } = process.env;
  return env;
}

/** `redis-cli -p port ...args`, its output: off libfaketime like the server (under it redis-cli hangs too). */
export function redisCli(port: number, ...args: string[]): string {
  return execFileSync("redis-cli", ["-p", String(port), ...args], {
    env: redisEnv(),
    timeout: 10_000,
  }).toString();
}

/** Whether `redis-server` can be run here. */
export const redisInstalled: boolean =
  spawnSync("redis-server", ["--version"], { stdio: "ignore", env: redisEnv() }).error === undefined;

/**
 * `describe` for suites that need Redis. In CI (or with redis-server present) it runs them: a missing
 * redis-server then fails in `startRedis` with the install command. Locally without it, it skips them.
 */
export const describeRedis: typeof describe =
  redisInstalled || process.env.CI ? describe : (describe.skip as typeof describe);
if (!redisInstalled && !process.env.CI) process.stderr.write(`[skipped: Redis tests] ${INSTALL_HINT}\n`);

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Freeze the server (SIGSTOP): connections stay open, nothing is answered. */
  pause(): void;
  /** Let a paused server go on (SIGCONT). */
  resume(): void;
  /** Stop the server (SIGTERM, then SIGKILL after 3 s; a paused one is resumed first). Idempotent. */
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    let reply = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      reply += chunk.toString("latin1");
      if (reply.includes("\r\n")) done(reply.startsWith("+PONG"));
    });
  });
}

function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function startOnce(extraArgs: readonly string[]): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "redis-test-"));
  const child = spawn(
    "redis-server",
    [
      "--save",
      "",
      "--appendonly",
      "no",
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      ...extraArgs,
    ],
    { stdio: ["ignore", "ignore", "pipe"], env: redisEnv() },
  );
  let stderr = "";
  child.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString("utf8");
  });
  const spawnError = new Promise<Error>((resolve) => child.once("error", resolve));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (alive()) {
      child.kill("SIGCONT");
      child.kill("SIGTERM");
      if (!(await exited(child, 3000))) {
        child.kill("SIGKILL");
        await exited(child, 3000);
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const failed = await Promise.race([spawnError, exited(child, 100).then(() => undefined)]);
    if (failed instanceof Error) {
      await stop();
      throw new Error((failed as NodeJS.ErrnoException).code === "ENOENT" ? INSTALL_HINT : failed.message);
    }
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`redis-server exited with code ${child.exitCode} on port ${port}: ${stderr.trim()}`);
    }
    if (await pingOnce(port))
      return {
        port,
        url: `redis://127.0.0.1:${port}`,
        pause: () => alive() && child.kill("SIGSTOP"),
        resume: () => alive() && child.kill("SIGCONT"),
        stop,
      };
  }
  await stop();
  throw new Error(`redis-server did not answer PING on port ${port} within 10 s`);
}

/**
 * Start a redis-server on a free loopback port, with `extraArgs` as more command-line settings
 * (e.g. `["--maxmemory-policy", "volatile-lru"]`); retries once if the port was taken meanwhile.
 */
export async function startRedis(extraArgs: readonly string[] = []): Promise<RedisServer> {
  if (!redisInstalled) throw new Error(INSTALL_HINT);
  try {
    return await startOnce(extraArgs);
  } catch (error) {
    if (!/exited with code/.test(String(error))) throw error;
    return await startOnce(extraArgs);
  }
}

/** One redis-server for the enclosing test file, started before all tests and stopped after. */
export function useRedis(extraArgs: readonly string[] = []): { readonly server: RedisServer } {
  let server: RedisServer | undefined;
  beforeAll(async () => {
    server = await startRedis(extraArgs);
  });
  afterAll(async () => {
    await server?.stop();
  });
  return {
    get server() {
      if (!server) throw new Error("redis-server not started yet");
      return server;
    },
  };
}
