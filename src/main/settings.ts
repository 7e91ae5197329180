/**
 * The first step of serve(): what to serve, from the CLI plan and the environment. The upstream's
 * configuration (from MMS_* variables, the sandbox, or a tenants file), the hosting settings of
 * interface.md §7, and the tools to register. Throws StartRefused or ConfigError naming each problem;
 * starts nothing but the sandbox (which the caller closes when a later step refuses).
 */

import type { AnyTool } from "../../tools/define.js";
import {
  type Config,
  type Env,
  loadConfig,
  loadResourceServerConfig,
  type ResourceServerConfig,
  UPSTREAM_VARIABLES,
} from "../config/config.js";
import { PROCESS_WIDE_VARIABLES } from "../config/variables.js";
import { ConfigError } from "../errors/api-error.js";
import { sandboxSeededAt } from "../hosting/history-store.js";
import type { Tenant } from "../hosting/tenants.js";
import { selectTools } from "../mcp/server.js";
import type { Logger } from "../telemetry/logger.js";
import type { ServePlan } from "./cli.js";
import { type OpenResources, StartRefused } from "./exit.js";

/** MMS_* values a user may keep in sandbox mode; URLs and credentials always come from the sandbox. */
const SANDBOX_KEEPS = [
  "MMS_AUTH",
  "MMS_TIMEOUT_MS",
  "MMS_MAX_RETRIES",
  "MMS_HAWK_PAYLOAD_HASH",
  "MMS_BUDGET_DISCOUNT",
  "MMS_BUDGET_LOOKBACK_DAYS",
  "MMS_RATE_LIMIT",
  "MMS_RATE_SHARE",
  "MMS_RATE_WINDOW_MS",
  "MMS_REVIEW_HISTORY_DAYS",
  "MMS_REVIEW_HISTORY_MB",
  "MMS_STATE_DIR",
];

export interface HostingSettings {
  tenantsFile?: string;
  redisUrl?: string;
  tracing: boolean;
  /** MCP_OAUTH_ISSUER and its companions (interface.md §7c): OAuth access tokens beside the static ones. */
  oauth?: ResourceServerConfig;
}

/**
 * With --sandbox: start the embedded simulator and give the environment pointing at it (its URLs and
 * demo credentials replace every MMS_* variable but SANDBOX_KEEPS). Otherwise the environment as is.
 */
export async function upstreamEnv(
  plan: ServePlan,
  env: Env,
  logger: Logger,
  open: OpenResources,
): Promise<Env> {
  if (!plan.sandbox) return env;
  const { startSandbox } = await import("../sandbox/index.js");
  const seededAt = await sandboxSeededAt(env);
  const sandbox = await startSandbox({
    logger: logger.child({ component: "sandbox" }),
    ...(seededAt === undefined ? {} : { seededAt }),
    ...(plan.sandboxRateLimit === undefined ? {} : { rateLimit: { perMinute: plan.sandboxRateLimit } }),
  });
  open.add(() => sandbox.close());
  const kept = Object.fromEntries(
    Object.entries(env).filter(([k]) => !k.startsWith("MMS_") || SANDBOX_KEEPS.includes(k)),
  );
  logger.warn("SANDBOX MODE: the upstream is the embedded simulator; all data is simulated", {
    url: sandbox.url,
  });
  return { ...kept, ...sandbox.env({ auth: env.MMS_AUTH === "hawk" ? "hawk" : "oauth" }) };
}

/**
 * The hosting variables of interface.md §7. MCP_TENANTS_FILE and REDIS_URL apply only with --http
 * (ignored with a warning otherwise); tracing works with either transport.
 */
export function hostingSettings(env: Env, plan: ServePlan, logger: Logger): HostingSettings {
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
      ["MCP_OAUTH_ISSUER", value("MCP_OAUTH_ISSUER")],
    ] as const)
      if (v !== undefined) logger.warn(`${name} is ignored without --http (one stdio client, one process)`);
    return { tracing };
  }
  if (tenantsFile !== undefined && plan.sandbox)
    throw new StartRefused(
      "MCP_TENANTS_FILE cannot be combined with --sandbox: each tenant names its own upstream (start a sandbox with `maintenance-mcp sandbox` and point a tenant at it)",
    );
  if (tenantsFile !== undefined && value("MCP_HTTP_TOKEN") !== undefined)
    logger.warn(
      "MCP_HTTP_TOKEN opens only /healthz's details of every tenant (the operator's view): MCP_TENANTS_FILE gives each tenant its own bearer token for /mcp",
    );
  const ignoredUpstream = UPSTREAM_VARIABLES.filter((name) => value(name) !== undefined);
  if (tenantsFile !== undefined && ignoredUpstream.length > 0)
    logger.warn(
      `${ignoredUpstream.join(", ")} ${ignoredUpstream.length === 1 ? "is" : "are"} ignored: MCP_TENANTS_FILE gives each tenant its own upstream; set ${ignoredUpstream.length === 1 ? "it" : "them"} in the tenant's "upstream" instead`,
    );
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl))
    throw new StartRefused("REDIS_URL: expected a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379/0");
  const oauth = loadResourceServerConfig(env);
  if (oauth !== undefined && tenantsFile !== undefined && oauth.tenantClaim === undefined)
    throw new StartRefused(
      "MCP_OAUTH_TENANT_CLAIM: required with MCP_OAUTH_ISSUER and MCP_TENANTS_FILE: the token claim whose value names the tenant (e.g. org_id)",
    );
  if (oauth?.tenantClaim !== undefined && tenantsFile === undefined)
    logger.warn(
      "MCP_OAUTH_TENANT_CLAIM is ignored without MCP_TENANTS_FILE: every valid token uses the one upstream",
    );
  return {
    tracing,
    ...(tenantsFile === undefined ? {} : { tenantsFile }),
    ...(redisUrl === undefined ? {} : { redisUrl }),
    ...(oauth === undefined ? {} : { oauth }),
  };
}

/**
 * MMS_* settings of the process, not of an upstream (the review settings, the task TTL...): kept from
 * the environment with a tenants file. A new one is marked `processWide` in src/config/variables.ts.
 */
const PROCESS_WIDE_MMS = new Set(PROCESS_WIDE_VARIABLES);

/**
 * The configuration to serve with: from the environment, or, with a tenants file, each tenant's
 * upstream plus the process-wide settings (LOG_LEVEL, MCP_*, and the MMS_* marked processWide: the
 * review settings, MMS_TASK_TTL_SECONDS...), which keep their one parser. Throws ConfigError naming each problem.
 */
export async function loadServeConfig(
  env: Env,
  effectiveEnv: Env,
  tenantsFile: string | undefined,
): Promise<{ config: Config; tenants: Tenant[] | undefined }> {
  if (tenantsFile === undefined) return { config: loadConfig(effectiveEnv), tenants: undefined };
  const { loadTenants } = await import("../hosting/tenants.js");
  const tenants = loadTenants(tenantsFile, env);
  // The MMS_* of the environment are replaced by the tenants file, except the process-wide MMS_*
  // settings (one task store policy for every tenant). MCP_HTTP_TOKEN stays: the operator's /healthz.
  const shared = Object.fromEntries(
    Object.entries(env).filter(([k]) => !k.startsWith("MMS_") || PROCESS_WIDE_MMS.has(k)),
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

/** A non-loopback bind needs a bearer token, a tenants file or OAuth: clients must authenticate. */
export function requireTokenOffLoopback(
  plan: ServePlan,
  config: Config,
  tenants: Tenant[] | undefined,
  isLoopbackHost: (host: string) => boolean,
  oauth?: ResourceServerConfig,
): void {
  if (!plan.http || isLoopbackHost(plan.host) || config.httpToken || tenants !== undefined || oauth) return;
  throw new ConfigError([
    {
      variable: "MCP_HTTP_TOKEN",
      expected: `required to bind the non-loopback host ${plan.host}: clients must authenticate (or sign in with OAuth: MCP_OAUTH_ISSUER)`,
    },
  ]);
}

/** The tools to register (--read-only, --tools, the hub's availability), warning for each one left out. */
export function toolsToServe(
  plan: ServePlan,
  config: Config,
  tenants: Tenant[] | undefined,
  logger: Logger,
): AnyTool[] {
  const selection = selectTools({
    readOnly: plan.readOnly,
    only: plan.tools,
    // With tenants, the hub is checked per tenant (src/hosting/servers.ts).
    hubAvailable: tenants !== undefined || (config.oauth !== undefined && config.hubUrl !== undefined),
  });
  if (selection.problems.length > 0) throw new StartRefused(selection.problems.join("\n"));
  for (const name of selection.skipped) {
    logger.warn(
      `${name} not registered: the ETL hub needs OAuth (MMS_CLIENT_ID, MMS_CLIENT_SECRET, MMS_AUTH_URL)`,
    );
  }
  return selection.tools;
}
