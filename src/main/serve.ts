/**
 * serve(): the server a `maintenance-mcp [--http]` start runs, in four steps a reader can follow:
 * settings from argv and the environment (settings.ts), clients and servers (build.ts), one
 * transport until a signal or the end of stdin, then drain (run.ts). A step that refuses the start
 * throws StartRefused (or ConfigError); what was started is closed and the one line is printed:
 * with --http the start ends there (exit 2); over stdio the server goes on unconfigured
 * (unconfigured.ts) so that the host can show the problem.
 */
import {
  type Config,
  checkEnvironment,
  type Env,
  LOG_LEVELS,
  type LogLevel,
  secretValues,
} from "../config/config.js";
import { ConfigError } from "../errors/api-error.js";
import { Secret } from "../errors/secret.js";
import type { Tenant } from "../hosting/tenants.js";
import { createLogger } from "../telemetry/logger.js";
import { buildServers } from "./build.js";
import type { ServePlan } from "./cli.js";
import { fail, OpenResources, StartRefused } from "./exit.js";
import { runHttp, runStdio } from "./run.js";
import {
  type HostingSettings,
  hostingSettings,
  loadServeConfig,
  requireTokenOffLoopback,
  toolsToServe,
  upstreamEnv,
} from "./settings.js";
import { serveUnconfigured } from "./unconfigured.js";

export async function serve(plan: ServePlan, env: Env): Promise<number> {
  const logger = createLogger({ level: logLevel(env) });
  // Registered before anything can fail, so every text is scrubbed of them, a refusal's included.
  for (const value of secretValues(env)) new Secret(value);
  const open = new OpenResources();
  try {
    const check = checkEnvironment(env, { caseInsensitive: process.platform === "win32" });
    for (const warning of check.warnings) logger.warn(warning);
    if (check.problems.length > 0) throw new ConfigError(check.problems);
    const effectiveEnv = await upstreamEnv(plan, env, logger, open);
    // The HTTP transport (node:http, node:crypto) loads only when used: stdio start-up stays lean.
    const http = plan.http ? await import("../mcp/transports/http.js") : undefined;
    const hosting = hostingSettings(env, plan, logger);
    const { config, tenants } = await upstreamConfig(plan, env, effectiveEnv, hosting, http);
    const tools = toolsToServe(plan, config, tenants, logger);
    const served = await buildServers(plan, env, { config, tenants, tools, hosting }, logger, open);
    if (http === undefined) return await runStdio(served, logger, open);
    return await runHttp(
      http,
      plan,
      {
        httpToken: config.httpToken,
        tenants,
        tenantMaxInFlight: config.tenantMaxInFlight,
        bodyTimeoutMs: config.httpBodyTimeoutMs,
        oauth: hosting.oauth,
        writerTools: new Set(tools.filter((t) => !t.annotations.readOnlyHint).map((t) => t.name)),
      },
      served,
      logger,
      open,
    );
  } catch (error) {
    await open.closeAll();
    const problem = startProblem(error);
    if (problem === undefined) throw error;
    // Over stdio the host must hear why (interface.md §1); HTTP has an operator reading stderr.
    if (plan.http) return fail(problem);
    return serveUnconfigured(problem, plan, logger);
  }
}

/** The one message of a start that cannot go on, or undefined for an unexpected failure. */
function startProblem(error: unknown): string | undefined {
  if (error instanceof StartRefused) return error.message;
  if (error instanceof ConfigError) return `${error.message}\n${whereDescribed(error)}`;
  return undefined;
}

/** The doc that describes what the problems name: the tenants file's format is in docs/hosting.md, not the README. */
function whereDescribed(error: ConfigError): string {
  return error.problems.length > 0 && error.problems.every((p) => p.variable.startsWith("MCP_TENANTS_FILE"))
    ? 'See docs/hosting.md, "Tenants file".'
    : 'See README, "Configuration".';
}

/** LOG_LEVEL when valid, else info (loadConfig reports a bad value; the logger is needed before it runs). */
function logLevel(env: Env): LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(env.LOG_LEVEL ?? "")
    ? (env.LOG_LEVEL as LogLevel)
    : "info";
}

/** The upstream configuration; throws ConfigError naming every problem (startProblem says where to fix it). */
async function upstreamConfig(
  plan: ServePlan,
  env: Env,
  effectiveEnv: Env,
  hosting: HostingSettings,
  http: { isLoopbackHost(host: string): boolean } | undefined,
): Promise<{ config: Config; tenants: Tenant[] | undefined }> {
  const { config, tenants } = await loadServeConfig(env, effectiveEnv, hosting.tenantsFile);
  if (http) requireTokenOffLoopback(plan, config, tenants, http.isLoopbackHost, hosting.oauth);
  return { config, tenants };
}
