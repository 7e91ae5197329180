/**
 * `maintenance-mcp sandbox [--host H] [--port P] [--state FILE] [--faults] [--rate-limit N]`: run the simulator
 * alone. This command is not the MCP server, so its banner (URLs, MMS_* exports, demo
 * credentials) goes to stdout. Runs until SIGINT/SIGTERM, then closes cleanly.
 */
import { parseArgs } from "node:util";
import { createLogger } from "../telemetry/logger.js";
import { DEMO_CREDENTIALS, type SandboxHandle, StateFileError, startSandbox } from "./index.js";

const USAGE = `Usage: maintenance-mcp sandbox [options]

Run the embedded simulator of the maintenance API (token endpoint, main API, hub) on one origin.

Options:
  --host HOST     interface to bind (default 127.0.0.1)
  --port PORT     port to listen on (default 4010; 0 = any free port)
  --state FILE    keep the data in FILE across restarts (created when missing; its folder must
                  exist). One sandbox per file: FILE.lock marks it in use, FILE.journal holds the
                  writes while running. Every write is on disk before it is answered.
  --faults        expose the fault-injection control route POST/DELETE /__faults
  --rate-limit N  play the platform's limit: N requests per minute per company, announced in
                  both header spellings (Request-Call-Limit-*, RateLimit-*), 406 past it
                  (the platform's is 200; default: no limit)
  --help          show this help
`;

export interface SandboxCommandIo {
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  /** Resolves when the command should stop; default: the first SIGINT or SIGTERM. */
  until?: (handle: SandboxHandle) => Promise<void>;
}

function banner(sb: SandboxHandle): string {
  const c = DEMO_CREDENTIALS;
  const exports = Object.entries(sb.env())
    .map(([k, v]) => `export ${k}=${v}`)
    .join("\n");
  return `maintenance-mcp sandbox (simulated data, not a real upstream)

  main API     ${sb.baseUrl}
  token        ${sb.authUrl}/oauth/token
  hub (DAGs)   ${sb.hubUrl}/hub/api/v1/dags

Point a client at it:
${exports}
# Hawk instead of OAuth on the main API:
export MMS_AUTH=hawk MMS_HAWK_ID=${c.hawk.id} MMS_HAWK_KEY=${c.hawk.key}

Demo credentials:
  OAuth ${c.oauth.demo.clientId} / ${c.oauth.demo.clientSecret}          company 1, every permission
  OAuth ${c.oauth.readonly.clientId} / ${c.oauth.readonly.clientSecret}  company 1, read only (403 on writes and hub)
  OAuth ${c.oauth.noaddon.clientId} / ${c.oauth.noaddon.clientSecret}    company 2, no advanced-APIs add-on
  Hawk  id ${c.hawk.id}, key ${c.hawk.key} (sha256)   company 1
  Hawk  id ${c.hawkOther.id}, key ${c.hawkOther.key} (sha256) company 2

Press Ctrl+C to stop.
`;
}

/** The one line for an address the simulator cannot listen on, with the fix; undefined for other failures. */
function listenProblem(error: unknown, host: string, port: number): string | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE")
    return `port ${port} on ${host} is already in use (another sandbox?); stop it, or choose another port with --port N (0 picks a free one)`;
  if (code === "EACCES")
    return `not allowed to listen on port ${port} (ports below 1024 need privileges); choose another with --port N`;
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
    return `cannot listen on ${host}: not an address of this machine; use --host 127.0.0.1 (the default) or one of its addresses`;
  return undefined;
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/** `--rate-limit N`: N, undefined when absent, null when not a whole number from 1 to 1,000,000. */
export function parseRateLimit(raw: string | undefined): number | undefined | null {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw.trim())) return null;
  const n = Number(raw.trim());
  return n >= 1 && n <= 1_000_000 ? n : null;
}

/** Run the `sandbox` command; `argv` are the arguments after the word `sandbox`. Returns the exit code. */
export async function runSandboxCommand(argv: string[], io: SandboxCommandIo = {}): Promise<number> {
  // The standalone simulator is not an MCP server: its URLs and credentials belong on stdout.
  const out = io.stdout ?? ((t: string) => void process.stdout.write(t)); // stdout-ok: standalone sandbox command
  const err = io.stderr ?? ((t: string) => void process.stderr.write(t));
  let values: {
    host?: string;
    port?: string;
    state?: string;
    faults?: boolean;
    "rate-limit"?: string;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        host: { type: "string", default: "127.0.0.1" },
        port: { type: "string", default: "4010" },
        state: { type: "string" },
        faults: { type: "boolean", default: false },
        "rate-limit": { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    }));
  } catch (e) {
    err(`maintenance-mcp sandbox: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    out(USAGE);
    return 0;
  }
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port ?? "") || port > 65_535) {
    err(
      `maintenance-mcp sandbox: --port must be an integer from 0 to 65535, got ${JSON.stringify(values.port)}\n`,
    );
    return 2;
  }
  const perMinute = parseRateLimit(values["rate-limit"]);
  if (perMinute === null) {
    err(
      `maintenance-mcp sandbox: --rate-limit must be a whole number of requests per minute from 1 to 1000000 (the platform's is 200), got ${JSON.stringify(values["rate-limit"])}\n`,
    );
    return 2;
  }
  let sb: SandboxHandle;
  try {
    sb = await startSandbox({
      host: values.host,
      port,
      stateFile: values.state,
      faults: values.faults,
      rateLimit: perMinute === undefined ? undefined : { perMinute },
      logger: createLogger({ level: "warn" }),
    });
  } catch (e) {
    const listen = listenProblem(e, values.host ?? "127.0.0.1", port);
    err(`maintenance-mcp sandbox: ${listen ?? (e as Error).message}\n`);
    // A state file or an address that cannot be used is a usage error (2), like a bad flag; anything else is 1.
    return e instanceof StateFileError || listen !== undefined ? 2 : 1;
  }
  out(banner(sb));
  if (perMinute !== undefined)
    out(`Rate limit: ${perMinute} requests per minute per company (406 past it).\n`);
  await (io.until ?? waitForSignal)(sb);
  await sb.close();
  out("sandbox stopped\n");
  return 0;
}
