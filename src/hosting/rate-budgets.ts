/**
 * Where each company's request budget is counted (interface.md §6c): with REDIS_URL, in Redis, shared
 * by every replica and every tenant of the same credentials; otherwise in each server's own process
 * (createClients' default). Also what /healthz shows of it: each company's use of its share.
 * The Redis limiter loads only when configured.
 */

import type { BudgetUse } from "../client/rate-budget.js";
import type { RedisBudgetStores } from "../client/rate-budget-redis.js";
import { companyKey, type RateBudgetStore } from "../client/rate-budget-store.js";
import type { Config } from "../config/config.js";
import type { Logger } from "../telemetry/logger.js";

export interface RateBudgets {
  /** The store of `config`'s company; undefined: this process counts (createClients' default). */
  storeFor(config: Config): RateBudgetStore | undefined;
  /** "redis" (ok or degraded) or "process". */
  health(): { store: "redis" | "process"; status: "ok" | "degraded"; since?: string };
  /** A key every replica shares through Redis (undefined without it, or while it does not answer). */
  sharedKey(name: string): Promise<string | undefined>;
  close(): Promise<void>;
}

export interface RateBudgetSettings {
  redisUrl: string | undefined;
  /** MCP_REDIS_TIMEOUT_MS. */
  redisTimeoutMs: number;
  logger: Logger;
  /** Tests: a key prefix of their own. */
  prefix?: string;
}

const IN_PROCESS: RateBudgets = {
  storeFor: () => undefined,
  health: () => ({ store: "process", status: "ok" }),
  sharedKey: async () => undefined,
  close: async () => {},
};

export async function rateBudgets(settings: RateBudgetSettings): Promise<RateBudgets> {
  if (settings.redisUrl === undefined) return IN_PROCESS;
  const { RedisBudgetStores } = await import("../client/rate-budget-redis.js");
  const stores: RedisBudgetStores = new RedisBudgetStores({
    url: settings.redisUrl,
    timeoutMs: settings.redisTimeoutMs,
    logger: settings.logger.child({ component: "rate-budget" }),
    ...(settings.prefix === undefined ? {} : { prefix: settings.prefix }),
  });
  return {
    storeFor: (config) =>
      stores.forCompany(
        companyKey({ baseUrl: config.baseUrl, clientId: config.oauth?.clientId, hawkId: config.hawk?.id }),
      ),
    health: () => ({ store: "redis", ...stores.health() }),
    sharedKey: (name) => stores.sharedKey(name),
    close: () => stores.close(),
  };
}

/**
 * `config` with the resume tokens' key shared by every replica (interface.md §9b): MMS_RESUME_KEY when
 * set, else, with REDIS_URL, a random key the first replica keeps in Redis; else unchanged (a key per
 * process, and a token from another replica reads as not this server's).
 */
export async function withSharedResumeKey(config: Config, budgets: RateBudgets): Promise<Config> {
  if (config.reviews === undefined || config.reviews.resumeKey !== undefined) return config;
  const resumeKey = await budgets.sharedKey("resume-key");
  return resumeKey === undefined ? config : { ...config, reviews: { ...config.reviews, resumeKey } };
}

/**
 * The `request_budget` block of /healthz: each company's (tenant's) use of its share, as of this
 * process's last request to it. `uses`: the server set's budgets by tenant ("default" without tenants).
 */
export function budgetHealth(
  budgets: RateBudgets,
  uses: Record<string, BudgetUse | undefined>,
  /** One tenant's /healthz (interface.md §9b): its own company only; undefined: every one. */
  only?: string,
): { request_budget: Record<string, unknown> } {
  const companies: Record<string, BudgetUse> = {};
  for (const [name, use] of Object.entries(uses))
    if (use !== undefined && (only === undefined || name === only)) companies[name] = use;
  return { request_budget: { ...budgets.health(), companies } };
}
