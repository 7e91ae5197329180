#!/usr/bin/env node
/**
 * The `maintenance-mcp` binary: argv and environment → a running server. The only place
 * that prints usage or configuration errors and picks exit codes (2: bad usage or
 * configuration). Heavy modules (HTTP client, sandbox, HTTP transport) load on demand.
 */
// IMPORTANT: first import: exits with one clear line on an unsupported Node.js before anything else loads.
import "./check-node.js";
import { type CliPlan, parseCli, USAGE } from "./cli.js";
import { createClients } from "./client/index.js";
import { type Config, configWarnings, type Env, loadConfig } from "./config.js";
import { ConfigError } from "./errors/api-error.js";
import { scrubText } from "./errors/redact.js";
import { IdempotencyStore } from "./idempotency.js";
import { createLogger, LOG_LEVELS, type Logger, type LogLevel } from "./logger.js";
import { createStateSigner, type StateSigner } from "./mcp.js";
import { createServer, selectTools } from "./server.js";
import { VERSION } from "./version.js";

type ServePlan = Extract<CliPlan, { command: "serve" }>;

/** MMS_* values a user may keep in sandbox mode; URLs and credentials always come from the sandbox. */
const SANDBOX_KEEPS = ["MMS_AUTH", "MMS_TIMEOUT_MS", "MMS_MAX_RETRIES", "MMS_HAWK_PAYLOAD_HASH"];

function fail(message: string): number {
  process.stderr.write(`maintenance-mcp: ${scrubText(message)}\n`);
  return 2;
}

function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve(signal));
  });
}

async function serve(plan: ServePlan, env: Env): Promise<number> {
  const level = (LOG_LEVELS as readonly string[]).includes(env.LOG_LEVEL ?? "")
    ? (env.LOG_LEVEL as LogLevel)
    : "info";
  const logger = createLogger({ level });
  for (const warning of configWarnings(env)) logger.warn(warning);

  let sandbox: { close(): Promise<void> } | undefined;
  let effectiveEnv = env;
  if (plan.sandbox) {
    const { startSandbox } = await import("./sandbox/index.js");
    const sb = await startSandbox({ logger: logger.child({ component: "sandbox" }) });
    sandbox = sb;
    const kept = Object.fromEntries(
      Object.entries(env).filter(([k]) => !k.startsWith("MMS_") || SANDBOX_KEEPS.includes(k)),
    );
    effectiveEnv = { ...kept, ...sb.env({ auth: env.MMS_AUTH === "hawk" ? "hawk" : "oauth" }) };
    logger.warn("SANDBOX MODE: the upstream is the embedded simulator; all data is simulated", {
      url: sb.url,
    });
  }

  // The HTTP transport (node:http, node:crypto) loads only when used: stdio start-up stays lean.
  const http = plan.http ? await import("./transports/http.js") : undefined;
  let config: Config;
  try {
    config = loadConfig(effectiveEnv);
    if (http && !http.isLoopbackHost(plan.host) && !config.httpToken) {
      throw new ConfigError([
        {
          variable: "MCP_HTTP_TOKEN",
          expected: `required to bind the non-loopback host ${plan.host}: clients must authenticate`,
        },
      ]);
    }
  } catch (error) {
    await sandbox?.close();
    if (error instanceof ConfigError) return fail(`${error.message}\nSee README, "Configuration".`);
    throw error;
  }

  const selection = selectTools({
    readOnly: plan.readOnly,
    only: plan.tools,
    hubAvailable: config.oauth !== undefined && config.hubUrl !== undefined,
  });
  if (selection.problems.length > 0) {
    await sandbox?.close();
    return fail(selection.problems.join("\n"));
  }
  for (const name of selection.skipped) {
    logger.warn(
      `${name} not registered: the ETL hub needs OAuth (MMS_CLIENT_ID, MMS_CLIENT_SECRET, MMS_AUTH_URL)`,
    );
  }

  let signer: StateSigner;
  try {
    // MCP_STATE_SECRET: replicas behind one load balancer must verify each other's confirmation state.
    signer = createStateSigner(env.MCP_STATE_SECRET || undefined);
  } catch (error) {
    await sandbox?.close();
    return fail(`MCP_STATE_SECRET: ${(error as Error).message} (e.g. openssl rand -base64 48)`);
  }

  const clients = createClients(config, { logger: logger.child({ component: "client" }) });
  // Aborted when shutdown outlives the drain: running calls answer "outcome unknown" at once.
  const stopping = new AbortController();
  const deps = {
    clients,
    logger,
    idempotency: new IdempotencyStore({ ttlMs: (config.idempotencyTtlSeconds ?? 86_400) * 1000, logger }),
    sandbox: plan.sandbox,
    version: VERSION,
    signer,
    stopping: stopping.signal,
    warmOnList: true,
  };
  const makeServer = () => createServer(deps, { tools: selection.tools, confirmWrites: plan.confirmWrites });
  const shutdown = async () => {
    await clients.close();
    await sandbox?.close();
  };

  if (http) {
    let handle: Awaited<ReturnType<typeof http.startHttp>>;
    try {
      handle = await http.startHttp(makeServer, {
        host: plan.host,
        port: plan.port,
        token: config.httpToken,
        logger,
        version: VERSION,
        abandon: () => stopping.abort(),
      });
    } catch (error) {
      await shutdown();
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EADDRINUSE") {
        return fail(`--port: ${plan.port} is already in use; choose another port (0 picks a free one)`);
      }
      if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EACCES") {
        return fail(`--host/--port: cannot listen on ${plan.host}:${plan.port} (${code})`);
      }
      throw error;
    }
    process.stderr.write(
      `maintenance-mcp ${VERSION} listening on ${handle.url}${plan.sandbox ? " (sandbox)" : ""}\n`,
    );
    clients.warm();
    const signal = await waitForSignal();
    logger.info("shutting down", { signal });
    await handle.close();
    await shutdown();
    return 0;
  }
  const { serveStdio } = await import("./transports/stdio.js");
  const stopped = Promise.race([serveStdio(makeServer, logger), waitForSignal()]);
  clients.warm();
  const end = await stopped;
  await shutdown();
  if (typeof end === "object" && end.reason === "error") {
    logger.error("stdio transport cannot go on; exiting", { error: end.error.message });
    return 1;
  }
  return 0;
}

export async function main(argv: string[], env: Env): Promise<number> {
  let plan: CliPlan;
  try {
    plan = parseCli(argv, env);
  } catch (error) {
    if (error instanceof ConfigError) return fail(error.message);
    throw error;
  }
  switch (plan.command) {
    // IMPORTANT: stdout is free for --help and --version only: no MCP transport runs for them.
    case "help":
      process.stdout.write(`${USAGE}\n`);
      return 0;
    case "version":
      process.stdout.write(`${VERSION}\n`);
      return 0;
    case "sandbox": {
      const { runSandboxCommand } = await import("./sandbox/cli.js");
      return runSandboxCommand(plan.argv);
    }
    case "serve":
      return serve(plan, env);
  }
}

main(process.argv.slice(2), process.env).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const logger: Logger = createLogger({ level: "error" });
    logger.error("fatal error", { error });
    process.exit(1);
  },
);
