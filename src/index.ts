/**
 * The `maintenance-mcp` binary: argv and environment → a running server, loaded by src/bin.ts
 * once the Node.js version is checked. Past that check, the only place that prints usage or
 * configuration errors and picks exit codes (2: bad usage or configuration). Heavy modules (HTTP
 * client, sandbox, HTTP transport) load on demand.
 */
import { z } from "zod";
import { type CliPlan, parseCli, USAGE } from "./cli.js";
import { type Config, configWarnings, type Env, loadConfig } from "./config.js";
import { ConfigError } from "./errors/api-error.js";
import { scrubText } from "./errors/redact.js";
import { createServerSet, idempotencyBackend } from "./hosting/servers.js";
import type { Tenant } from "./hosting/tenants.js";
import { createLogger, LOG_LEVELS, type Logger, type LogLevel } from "./logger.js";
import { createStateSigner, type StateSigner } from "./mcp.js";
import { selectTools } from "./server.js";
import type { TracingHandle } from "./telemetry/start.js";
import { VERSION } from "./version.js";

// zod compiles a parser (new Function) for each object schema on its first parse: ~2-4 ms of the
// first tool call (the SDK's request and result schemas, our inputs), with no gain per call on
// these small shapes (measured side by side, docs/quality.md). The SDK's zod is this one (bundled).
z.config({ jitless: true });

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

/**
 * The hosting variables of interface.md §7, or the one line that stops the start. MCP_TENANTS_FILE and
 * REDIS_URL apply only with --http (ignored with a warning otherwise); tracing works with either transport.
 */
function hostingSettings(
  env: Env,
  plan: ServePlan,
  logger: Logger,
): { tenantsFile?: string; redisUrl?: string; tracing: boolean } | string {
  const value = (name: string) => {
    const v = env[name]?.trim();
    return v === undefined || v === "" ? undefined : v;
  };
  const tenantsFile = value("MCP_TENANTS_FILE");
  const redisUrl = value("REDIS_URL");
  const tracing =
    value("OTEL_EXPORTER_OTLP_ENDPOINT") !== undefined ||
    value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") !== undefined;
  if (!plan.http) {
    for (const [name, v] of [
      ["MCP_TENANTS_FILE", tenantsFile],
      ["REDIS_URL", redisUrl],
    ] as const)
      if (v !== undefined) logger.warn(`${name} is ignored without --http (one stdio client, one process)`);
    return { tracing };
  }
  if (tenantsFile !== undefined && plan.sandbox)
    return "MCP_TENANTS_FILE cannot be combined with --sandbox: each tenant names its own upstream (start a sandbox with `maintenance-mcp sandbox` and point a tenant at it)";
  if (tenantsFile !== undefined && value("MCP_HTTP_TOKEN") !== undefined)
    logger.warn("MCP_HTTP_TOKEN is ignored: MCP_TENANTS_FILE gives each tenant its own bearer token");
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl))
    return "REDIS_URL: expected a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379/0";
  return {
    tracing,
    ...(tenantsFile === undefined ? {} : { tenantsFile }),
    ...(redisUrl === undefined ? {} : { redisUrl }),
  };
}

/**
 * The configuration to serve with: from the environment, or, with a tenants file, each tenant's
 * upstream plus the process-wide settings (LOG_LEVEL, MCP_IDEMPOTENCY_TTL_SECONDS), which keep
 * their one parser. Throws ConfigError naming each problem.
 */
async function loadServeConfig(
  env: Env,
  effectiveEnv: Env,
  tenantsFile: string | undefined,
): Promise<{ config: Config; tenants: Tenant[] | undefined }> {
  if (tenantsFile === undefined) return { config: loadConfig(effectiveEnv), tenants: undefined };
  const { loadTenants } = await import("./hosting/tenants.js");
  const tenants = loadTenants(tenantsFile, env);
  // The MMS_* and MCP_HTTP_TOKEN of the environment are replaced by the tenants file.
  const shared = Object.fromEntries(
    Object.entries(env).filter(([k]) => !k.startsWith("MMS_") && k !== "MCP_HTTP_TOKEN"),
  );
  // Validated with the first tenant's upstream (already valid), so only the shared settings can fail.
  const first = tenants[0]!.config;
  const config = loadConfig({
    ...shared,
    MMS_BASE_URL: first.baseUrl,
    ...(first.oauth
      ? {
          MMS_CLIENT_ID: first.oauth.clientId,
          MMS_CLIENT_SECRET: first.oauth.clientSecret.reveal(),
          MMS_AUTH_URL: first.oauth.authUrl,
        }
      : { MMS_HAWK_ID: first.hawk?.id, MMS_HAWK_KEY: first.hawk?.key.reveal() }),
  });
  return { config, tenants };
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
  const hosting = hostingSettings(env, plan, logger);
  if (typeof hosting === "string") {
    await sandbox?.close();
    return fail(hosting);
  }
  let config: Config;
  let tenants: Tenant[] | undefined;
  try {
    ({ config, tenants } = await loadServeConfig(env, effectiveEnv, hosting.tenantsFile));
    if (http && !http.isLoopbackHost(plan.host) && !config.httpToken && tenants === undefined) {
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
    // With tenants, the hub is checked per tenant below.
    hubAvailable: tenants !== undefined || (config.oauth !== undefined && config.hubUrl !== undefined),
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

  let tracing: TracingHandle | undefined;
  try {
    // The SDK loads only when an endpoint is set: start-up without tracing imports none of it.
    if (hosting.tracing) {
      tracing = await (await import("./telemetry/start.js")).startTracing(env, logger);
      if (tracing)
        (await import("./telemetry/hooks.js")).installTracing(await import("./telemetry/spans.js"));
    }
  } catch (error) {
    await sandbox?.close();
    if (error instanceof ConfigError) return fail(error.message);
    throw error;
  }

  const backend = await idempotencyBackend(
    hosting.redisUrl,
    (config.idempotencyTtlSeconds ?? 86_400) * 1000,
    logger,
  );
  const stopping = new AbortController();
  const { makeServer, clients } = createServerSet({
    config,
    tenants,
    tools: selection.tools,
    sandbox: plan.sandbox,
    confirmWrites: plan.confirmWrites,
    logger,
    backend,
    signer,
    stopping: stopping.signal,
  });
  const shutdown = async () => {
    await clients.close();
    await backend.close?.();
    await tracing?.shutdown();
    await sandbox?.close();
  };

  if (http) {
    let handle: Awaited<ReturnType<typeof http.startHttp>>;
    try {
      handle = await http.startHttp(makeServer, {
        host: plan.host,
        port: plan.port,
        token: config.httpToken,
        ...(tenants === undefined
          ? {}
          : {
              tenantOf: await (async () => {
                const { resolveTenant } = await import("./hosting/tenants.js");
                const list = tenants;
                return (token: string | undefined) => resolveTenant(list, token)?.name;
              })(),
            }),
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
      process.stdout.write(`${USAGE}\n`); // stdout-ok: --help, no transport runs
      return 0;
    case "version":
      process.stdout.write(`${VERSION}\n`); // stdout-ok: --version, no transport runs
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
