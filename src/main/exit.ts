/**
 * How the binary ends: the one line on stderr for a start that cannot go on (exit code 2), and the
 * signals that stop a running server. Only src/main/ prints configuration problems and picks exit codes.
 */
import { scrubText } from "../errors/redact.js";

/** Exit code for bad usage or configuration. */
export const USAGE_EXIT = 2;

/** Print a start problem (scrubbed of any known secret) and give the exit code for it. */
export function fail(message: string): number {
  process.stderr.write(`maintenance-mcp: ${scrubText(message)}\n`);
  return USAGE_EXIT;
}

/**
 * A start that cannot go on, with the one line that says why: thrown by the steps of serve()
 * (src/main/serve.ts), printed by fail() once what was already started is closed.
 */
export class StartRefused extends Error {
  override readonly name = "StartRefused";
}

/** Resolves with the name of the first SIGINT or SIGTERM. */
export function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve(signal));
  });
}

/**
 * Under an npm script (`npm start`: npm sets npm_lifecycle_event), resolves once the process that
 * started this one is gone. npm runs the script through a shell and forwards a SIGTERM to that
 * shell only, so without this `kill <npm's pid>` would leave the server running, orphaned. Never
 * resolves otherwise: a server started from a shell or a service manager outlives its parent by
 * design (nohup, systemd). Polls twice a second on a timer that never keeps the process alive.
 */
export function parentGone(env: Record<string, string | undefined>): Promise<string> {
  if (env.npm_lifecycle_event === undefined) return new Promise(() => {});
  const parent = process.ppid;
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (process.ppid === parent && isAlive(parent)) return;
      clearInterval(timer);
      resolve("parent exited");
    }, 500);
    timer.unref();
  });
}

/** Whether process `pid` exists (Windows does not re-parent an orphan, so the ppid alone cannot tell). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * What serve() has started, closed in reverse order (the last started first) at shutdown or when a
 * later step refuses the start.
 */
export class OpenResources {
  readonly #closers: (() => Promise<void>)[] = [];

  add(close: () => Promise<void>): void {
    this.#closers.push(close);
  }

  async closeAll(): Promise<void> {
    while (this.#closers.length > 0) await this.#closers.pop()!();
  }
}
