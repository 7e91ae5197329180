/**
 * The `maintenance-mcp` binary: argv and environment → what to run, loaded by src/bin.ts once the
 * Node.js version is checked. Past that check, src/main/ is the only place that prints usage or
 * configuration errors and picks exit codes (2: bad usage or configuration). Heavy modules (HTTP
 * client, sandbox, HTTP transport) load on demand.
 */
import { z } from "zod";
import type { Env } from "../config/config.js";
import { VERSION } from "../config/version.js";
import { ConfigError } from "../errors/api-error.js";
import { createLogger } from "../telemetry/logger.js";
import { type CliPlan, parseCli, USAGE } from "./cli.js";
import { fail } from "./exit.js";
import { serve } from "./serve.js";
import { serveUnconfigured } from "./unconfigured.js";

// zod compiles a parser (new Function) for each object schema on its first parse: ~2-4 ms of the
// first tool call (the SDK's request and result schemas, our inputs), with no gain per call on
// these small shapes (measured side by side, docs/quality.md). The SDK's zod is this one (bundled).
z.config({ jitless: true });

export async function main(argv: string[], env: Env): Promise<number> {
  let plan: CliPlan;
  try {
    plan = parseCli(argv, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // Flags come from the client's "args": over stdio the host must hear about a bad one too.
    if (argv.some((a) => a === "--http" || a === "--check" || a === "--help" || a === "-h"))
      return fail(error.message);
    const logger = createLogger({ level: "info" });
    return serveUnconfigured(
      `${error.message}\nSee --help.`,
      { readOnly: argv.includes("--read-only"), tools: undefined },
      logger,
    );
  }
  switch (plan.command) {
    // IMPORTANT: stdout is free for --help, --version and --check only: no MCP transport runs for them.
    case "help":
      process.stdout.write(`${USAGE}\n`); // stdout-ok: --help, no transport runs
      return 0;
    case "version":
      process.stdout.write(`${VERSION}\n`); // stdout-ok: --version, no transport runs
      return 0;
    case "sandbox": {
      const { runSandboxCommand } = await import("../sandbox/cli.js");
      return runSandboxCommand(plan.argv);
    }
    case "check": {
      const { runCheck } = await import("./check.js");
      return runCheck(plan.plan, env, (line) => process.stdout.write(`${line}\n`)); // stdout-ok: --check, no transport runs
    }
    case "serve":
      return serve(plan, env);
  }
}

main(process.argv.slice(2), process.env).then(
  (code) => process.exit(code),
  (error: unknown) => {
    createLogger({ level: "error" }).error("fatal error", { error });
    process.exit(1);
  },
);
