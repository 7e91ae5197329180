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
