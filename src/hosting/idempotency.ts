/**
 * The idempotency backends of a server set (interface.md §7, §7b). With REDIS_URL: one backend shared
 * by every tenant and replica, checked at start (an evicting maxmemory-policy refuses the start). In
 * memory: one backend per tenant, each holding its share of the bounds, so a tenant that fills its
 * share cannot refuse another tenant's keyed writes, and a refusal can only speak of its own use.
 * The Redis backend loads only when configured.
 */
import { ConfigError } from "../errors/api-error.js";
import { MEMORY_BOUNDS, type MemoryBackendOptions, MemoryIdempotencyBackend } from "../idempotency/memory.js";
import type { RedisIdempotencyOptions } from "../idempotency/redis.js";
import type { IdempotencyBackend, StoreHealth } from "../idempotency/types.js";
import type { Logger } from "../telemetry/logger.js";

export interface IdempotencyBackends {
  /** The backend of a tenant's server (undefined: the one server without a tenants file). */
  forTenant(tenant: string | undefined): IdempotencyBackend;
  /** Each tenant's backend holds only its share of the bounds (memory with a tenants file). */
  readonly tenantShares: boolean;
  /** For /healthz: the store's state (Redis: shared by all tenants; memory: always ok). */
  health(): StoreHealth;
  close(): Promise<void>;
}

export interface BackendSettings {
  redisUrl: string | undefined;
  ttlMs: number;
  /** MCP_REDIS_TIMEOUT_MS. */
  redisTimeoutMs: number;
  /** The tenants of MCP_TENANTS_FILE by name; undefined without one. */
  tenants: readonly string[] | undefined;
  logger: Logger;
  /** The whole memory store's bounds (default MEMORY_BOUNDS), divided among the tenants. */
  memory?: Pick<MemoryBackendOptions, "maxKeys" | "maxBytes" | "maxResultBytes">;
  /** Tuning of the Redis backend (tests). */
  redis?: Pick<RedisIdempotencyOptions, "heartbeatMs" | "maxWaiting">;
}

/** Calls in progress each share keeps room for: each reserves its largest result (memory.ts). */
const CALLS_PER_SHARE = 16;

export async function idempotencyBackends(settings: BackendSettings): Promise<IdempotencyBackends> {
  return settings.redisUrl === undefined
    ? memoryBackends(settings)
    : await redisBackend(settings, settings.redisUrl);
}

function memoryBackends(settings: BackendSettings): IdempotencyBackends {
  const total = { ...MEMORY_BOUNDS, ...settings.memory };
  const names = settings.tenants ?? [undefined];
  const count = Math.max(1, names.length);
  const maxKeys = Math.max(1, Math.floor(total.maxKeys / count));
  const maxBytes = Math.floor(total.maxBytes / count);
  const share = {
    ttlMs: settings.ttlMs,
    maxKeys,
    maxBytes,
    // A small share keeps its results smaller (kept as a summary beyond) rather than admit fewer calls.
    maxResultBytes: Math.min(total.maxResultBytes, Math.floor(maxBytes / CALLS_PER_SHARE)),
  };
  const backends = new Map(names.map((name) => [name, new MemoryIdempotencyBackend(share)]));
  return {
    forTenant(tenant) {
      const backend = backends.get(tenant);
      // The server set asks only for its own tenants; anything else is a bug, never another tenant's share.
      if (backend === undefined) throw new Error("no idempotency backend for this tenant");
      return backend;
    },
    tenantShares: settings.tenants !== undefined,
    health: () => ({ store: "memory", status: "ok" }),
    close: async () => {},
  };
}

async function redisBackend(settings: BackendSettings, url: string): Promise<IdempotencyBackends> {
  const { RedisIdempotencyBackend } = await import("../idempotency/redis.js");
  const redis = new RedisIdempotencyBackend({
    url,
    ttlMs: settings.ttlMs,
    timeoutMs: settings.redisTimeoutMs,
    logger: settings.logger.child({ component: "idempotency" }),
    ...settings.redis,
  });
  const check = await redis.start();
  const { logger } = settings;
  switch (check.status) {
    case "evicting":
      await redis.close();
      throw new ConfigError([
        {
          variable: "REDIS_URL",
          expected: `Redis's maxmemory-policy is ${check.policy}, so Redis may evict idempotency records and a retried write would then be sent twice; set it to noeviction: run CONFIG SET maxmemory-policy noeviction and put maxmemory-policy noeviction in redis.conf (on a managed service, set its maxmemory-policy or eviction-policy parameter to noeviction), then start again`,
        },
      ]);
    case "refused":
      logger.warn(
        `Redis refused CONFIG GET maxmemory-policy (${check.reason}), so the server cannot check it: idempotency records must never be evicted, so make sure the policy is noeviction (on a managed service, its maxmemory-policy or eviction-policy parameter); with any other policy a retried write may be sent twice`,
      );
      break;
    case "unreachable":
      logger.warn(
        `Redis (REDIS_URL) ${check.reason} at start: keyed writes are refused until it answers; its maxmemory-policy is checked when it does (it must be noeviction)`,
      );
      break;
    case "noeviction":
      break;
  }
  return {
    forTenant: () => redis,
    tenantShares: false,
    health: () => redis.health(),
    close: () => redis.close(),
  };
}
