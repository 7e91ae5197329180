/**
 * The second step of serve(): from the settings, everything a transport needs. The confirmation
 * signer, tracing (when an OTLP endpoint is set), the idempotency backends (memory, or Redis), and
 * the server set (one server per tenant, each with its own upstream clients). Each thing it starts
 * is added to `open`, so the caller closes it at shutdown or when a later step refuses the start.
 */

import type { AnyTool } from "../../tools/define.js";
import type { Config, Env } from "../config/config.js";
import { ConfigError } from "../errors/api-error.js";
import { openHistory } from "../hosting/history-store.js";
import { type IdempotencyBackends, idempotencyBackends } from "../hosting/idempotency.js";
import { type RateBudgets, rateBudgets, withSharedResumeKey } from "../hosting/rate-budgets.js";
import { createServerSet, type ServerSet } from "../hosting/servers.js";
import type { Tenant } from "../hosting/tenants.js";
import { createStateSigner, type StateSigner } from "../mcp/sdk.js";
import type { Logger } from "../telemetry/logger.js";
import type { ServePlan } from "./cli.js";
import { type OpenResources, StartRefused } from "./exit.js";
import type { HostingSettings } from "./settings.js";

export interface Served {
  serverSet: ServerSet;
  /** The idempotency store's state, for /healthz. */
  backends: IdempotencyBackends;
  /** Where each company's request budget is counted, for /healthz. */
  budgets: RateBudgets;
  /** Aborted when shutdown outlives the drain: running calls answer "outcome unknown" at once. */
  stopping: AbortController;
}

export async function buildServers(
  plan: ServePlan,
  env: Env,
  settings: { config: Config; tenants: Tenant[] | undefined; tools: AnyTool[]; hosting: HostingSettings },
  logger: Logger,
  open: OpenResources,
): Promise<Served> {
  const signer = stateSigner(env);
  await startTracing(env, settings.hosting, logger, open);
  await startMetrics(env, logger, open);
  const backends = await storeBackends(settings, logger);
  open.add(() => backends.close());
  const budgets = await rateBudgets({
    redisUrl: settings.hosting.redisUrl,
    redisTimeoutMs: settings.config.redisTimeoutMs ?? 1000,
    logger,
  });
  open.add(() => budgets.close());
  const history = await openHistory({
    ...(settings.config.history ?? { days: 35, mb: 64, stateDir: undefined }),
    // The embedded simulator's demo data is kept apart from the user's own history, found again at each start.
    sandbox: plan.sandbox,
    redisUrl: settings.hosting.redisUrl,
    redisTimeoutMs: settings.config.redisTimeoutMs ?? 1000,
    logger,
  });
  if (history.on) open.add(async () => history.backend.close?.());
  const stopping = new AbortController();
  const serverSet = createServerSet({
    history,
    config: await withSharedResumeKey(settings.config, budgets),
    tenants: settings.tenants,
    tools: settings.tools,
    sandbox: plan.sandbox,
    confirmWrites: plan.confirmWrites,
    logger,
    backends,
    rateBudgets: budgets,
    signer,
    stopping: stopping.signal,
    // OAuth or the demo's: tools/list depends on the token's scopes.
    callerDependentLists: settings.hosting.oauth !== undefined || plan.oauthDemo,
  });
  open.add(() => serverSet.clients.close());
  return { serverSet, backends, budgets, stopping };
}

/** Redis (checked: an evicting policy refuses the start) or memory shares; loads Redis only when set. */
async function storeBackends(
  settings: { config: Config; tenants: Tenant[] | undefined; hosting: HostingSettings },
  logger: Logger,
): Promise<IdempotencyBackends> {
  try {
    return await idempotencyBackends({
      redisUrl: settings.hosting.redisUrl,
      ttlMs: (settings.config.idempotencyTtlSeconds ?? 86_400) * 1000,
      redisTimeoutMs: settings.config.redisTimeoutMs ?? 1000,
      tenants: settings.tenants?.map((t) => t.name),
      logger,
    });
  } catch (error) {
    if (error instanceof ConfigError) throw new StartRefused(error.message);
    throw error;
  }
}

/** MCP_STATE_SECRET: replicas behind one load balancer must verify each other's confirmation state. */
function stateSigner(env: Env): StateSigner {
  try {
    return createStateSigner(env.MCP_STATE_SECRET || undefined);
  } catch (error) {
    throw new StartRefused(`MCP_STATE_SECRET: ${(error as Error).message} (e.g. openssl rand -base64 48)`);
  }
}

/** The OpenTelemetry SDK loads only when an endpoint is set: a start without tracing imports none of it. */
async function startTracing(
  env: Env,
  hosting: HostingSettings,
  logger: Logger,
  open: OpenResources,
): Promise<void> {
  if (!hosting.tracing) return;
  try {
    const tracing = await (await import("../telemetry/start.js")).startTracing(env, logger);
    if (tracing === undefined) return;
    open.add(() => tracing.shutdown());
    (await import("../telemetry/hooks.js")).installTracing(await import("../telemetry/spans.js"));
  } catch (error) {
    if (error instanceof ConfigError) throw new StartRefused(error.message);
    throw error;
  }
}

/** Metrics load only when an OTLP endpoint is set and OTEL_METRICS_EXPORTER is not "none". */
async function startMetrics(env: Env, logger: Logger, open: OpenResources): Promise<void> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() && !env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?.trim()) return;
  try {
    const metrics = (await import("../telemetry/metrics-otel.js")).startMetrics(env, logger);
    if (metrics !== undefined) open.add(() => metrics.shutdown());
  } catch (error) {
    if (error instanceof ConfigError) throw new StartRefused(error.message);
    throw error;
  }
}
