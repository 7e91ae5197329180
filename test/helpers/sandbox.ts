/** Start one sandbox per test file, and build configs and clients pointed at it. */
import { afterAll, beforeAll } from "vitest";
import { createClients } from "../../src/client/index.js";
import type { Clients } from "../../src/client/types.js";
import { loadConfig } from "../../src/config/config.js";
import { type SandboxHandle, type SandboxOptions, startSandbox } from "../../src/sandbox/index.js";
import { createLogger, type Logger } from "../../src/telemetry/logger.js";

export interface SandboxFixture {
  readonly sb: SandboxHandle;
  /** Real clients (undici, OAuth or Hawk) against the sandbox. */
  clients(options?: {
    auth?: "oauth" | "hawk";
    client?: "demo" | "readonly" | "noaddon";
    env?: Record<string, string>;
  }): Clients;
}

/** A logger whose lines are kept in `lines` (for assertions on stderr content). */
export function captureLogger(level: "debug" | "info" = "debug"): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger({ level, sink: (l) => lines.push(l) }), lines };
}

export function useSandbox(options: SandboxOptions = {}): SandboxFixture {
  let sb: SandboxHandle | undefined;
  const opened: Clients[] = [];
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, ...options });
  });
  afterAll(async () => {
    await Promise.all(opened.map((c) => c.close()));
    await sb?.close();
  });
  return {
    get sb() {
      if (!sb) throw new Error("sandbox not started yet");
      return sb;
    },
    clients(o = {}) {
      if (!sb) throw new Error("sandbox not started yet");
      const config = loadConfig({
        ...sb.env({ auth: o.auth, client: o.client }),
        MMS_MAX_RETRIES: "1",
        ...o.env,
      });
      const clients = createClients(config, { logger: createLogger({ level: "error", sink: () => {} }) });
      opened.push(clients);
      return clients;
    },
  };
}

/**
 * Add `copies` copies of company 1's budgets (new ids and folios) to a running sandbox, so a review
 * walks ten times the pages: enough for a test to hold some and cancel the rest.
 */
export function repeatBudgets(sb: SandboxHandle, copies: number): void {
  const originals = sb.state.budgets.filter((b) => b.companyId === 1);
  for (let copy = 1; copy <= copies; copy++) {
    for (const b of originals) {
      sb.state.budgets.push({
        ...b,
        record: { ...b.record, id: b.record.id + copy * 100_000, folio: `${b.record.folio}-${copy}` },
      });
    }
  }
}
