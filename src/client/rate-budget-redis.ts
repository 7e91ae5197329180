/**
 * The request budget shared by every replica (interface.md §6c, with REDIS_URL): per company, a sorted
 * set of slot ids scored by the time they were taken (a sliding-window log) and a hash of the learnt
 * facts (limit, gate), changed only by the Lua scripts below, so one `take` is atomic across replicas
 * and no slot is ever spent twice. Time is Redis's own (TIME), so replicas' clocks need not agree;
 * tests may inject a clock instead. Loaded by dynamic import only with REDIS_URL (src/hosting/rate-budgets.ts).
 * IMPORTANT: every command has one deadline (MCP_REDIS_TIMEOUT_MS). While Redis does not answer, a
 * company's budget falls back to this process's own count (logged once a minute): requests go on at
 * this process's share rather than stop, and /healthz says "degraded".
 */
import { randomBytes } from "node:crypto";
import { createClient } from "@redis/client";
import type { Logger } from "../telemetry/logger.js";
import {
  type LearnRequest,
  MemoryBudgetStore,
  type RateBudgetStore,
  type TakeRequest,
  type TakeResult,
} from "./rate-budget-store.js";
import { MAX_UPSTREAM_WAIT_MS } from "./retry.js";

/**
 * KEYS: slots (sorted set), facts (hash). ARGV: id, now (ms, or -1 for Redis TIME), windowMs, limit
 * (-1: the learnt one), share, kind ("read"/"write"), the longest gate (ms). Returns {granted 0/1, used,
 * retryInMs, limit (-1)}. A gate further off than the longest (set before it was bounded) is cut to it.
 * IMPORTANT: mirrors MemoryBudgetStore.take and allowance() in rate-budget-store.ts.
 */
export const TAKE = `
local now = tonumber(ARGV[2])
if now < 0 then local t = redis.call('TIME'); now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) end
local window = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local used = redis.call('ZCARD', KEYS[1])
local limit = tonumber(ARGV[4])
if limit < 0 then limit = tonumber(redis.call('HGET', KEYS[2], 'limit') or '-1') end
local gateUntil = tonumber(redis.call('HGET', KEYS[2], 'gate_until') or '0')
local gateLeft = tonumber(redis.call('HGET', KEYS[2], 'gate_left') or '0')
local longest = tonumber(ARGV[7])
if gateUntil > now + longest then gateUntil = now + longest; redis.call('HSET', KEYS[2], 'gate_until', gateUntil) end
if now < gateUntil and gateLeft <= 0 then return {0, used, gateUntil - now, limit} end
if limit >= 0 then
  local total = math.max(1, math.floor(limit * tonumber(ARGV[5])))
  local allowed = total
  if ARGV[6] == 'read' and total >= 2 then allowed = total - math.max(1, math.floor(total / 10)) end
  if used >= allowed then
    local oldest = redis.call('ZRANGE', KEYS[1], used - allowed, used - allowed, 'WITHSCORES')
    return {0, used, math.max(1, tonumber(oldest[2]) + window - now), limit}
  end
end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], window * 2)
if now < gateUntil then redis.call('HINCRBY', KEYS[2], 'gate_left', -1) end
return {1, used + 1, 0, limit}
`;

/**
 * KEYS: facts. ARGV: limit (-1: none), defaultLimit (-1: none), gate remaining (-1: none), gate resetMs,
 * now (-1: Redis TIME), ttlMs of the facts, the longest gate (ms: a gate is kept no longer, interface.md §9b).
 */
export const LEARN = `
local now = tonumber(ARGV[5])
if now < 0 then local t = redis.call('TIME'); now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) end
if tonumber(ARGV[1]) > 0 then redis.call('HSET', KEYS[1], 'limit', ARGV[1])
elseif tonumber(ARGV[2]) > 0 and redis.call('HEXISTS', KEYS[1], 'limit') == 0 then redis.call('HSET', KEYS[1], 'limit', ARGV[2]) end
if tonumber(ARGV[3]) >= 0 then
  redis.call('HSET', KEYS[1], 'gate_left', ARGV[3], 'gate_until', now + math.min(tonumber(ARGV[4]), tonumber(ARGV[7])))
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[6]))
return 1
`;

/**
 * KEYS: slots. ARGV: id, now (-1: Redis TIME), windowMs. A slot's time moves to its answer's, never
 * back; one in flight longer than a window (already dropped) counts again from its answer.
 */
export const SETTLE = `
local now = tonumber(ARGV[2])
if now < 0 then local t = redis.call('TIME'); now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) end
redis.call('ZADD', KEYS[1], 'GT', now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2)
return 1
`;

/** How long learnt facts (the limit) are kept without an answer refreshing them. */
const FACTS_TTL_MS = 24 * 3600 * 1000;
const FALLBACK_LOG_EVERY_MS = 60_000;

export interface RedisBudgetOptions {
  /** REDIS_URL. Never logged: it may hold a password. */
  url: string;
  /** MCP_REDIS_TIMEOUT_MS: the deadline of every command. Default 1000. */
  timeoutMs?: number;
  /** Key prefix (tests use their own). Default "mms:rate:". */
  prefix?: string;
  /** Tests: a clock instead of Redis's TIME (epoch ms). */
  now?: () => number;
  logger?: Logger;
}

type Client = ReturnType<typeof createClient>;

/** One connection, one store per company; each falls back to a process-local store while Redis is away. */
export class RedisBudgetStores {
  readonly #client: Client;
  readonly #timeoutMs: number;
  readonly #prefix: string;
  readonly #now: (() => number) | undefined;
  readonly #logger: Logger | undefined;
  #connected: Promise<unknown> | undefined;
  #lastFallbackLog = 0;
  /** Since when Redis has not answered (undefined: it answers). */
  #downSince: number | undefined;

  constructor(options: RedisBudgetOptions) {
    this.#timeoutMs = options.timeoutMs ?? 1000;
    this.#prefix = options.prefix ?? "mms:rate:";
    this.#now = options.now;
    this.#logger = options.logger;
    this.#client = createClient({
      url: options.url,
      disableOfflineQueue: true,
      socket: {
        connectTimeout: this.#timeoutMs,
        reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5_000),
      },
    });
    // Without a listener an error event would crash the process; the fallback reports it.
    this.#client.on("error", () => {});
  }

  /** The store of the company named by `company` (companyKey()). */
  forCompany(company: string): RateBudgetStore {
    return new RedisBudgetStore(this, `${this.#prefix}${company}`, this.#now);
  }

  /**
   * A secret every replica on this Redis shares (the resume tokens' key, interface.md §9b): the first
   * replica's random value, set once and read by the others; undefined while Redis does not answer.
   */
  async sharedKey(name: string): Promise<string | undefined> {
    const candidate = randomBytes(32).toString("base64url");
    const reply = await this.run((c) =>
      c.eval("redis.call('SET', KEYS[1], ARGV[1], 'NX'); return redis.call('GET', KEYS[1])", {
        keys: [`${this.#prefix}${name}`],
        arguments: [candidate],
      }),
    );
    return typeof reply === "string" && reply.length >= 32 ? reply : undefined;
  }

  /** "ok", or "degraded" while Redis does not answer (budgets count per process meanwhile). */
  health(): { status: "ok" | "degraded"; since?: string } {
    return this.#downSince === undefined
      ? { status: "ok" }
      : { status: "degraded", since: new Date(this.#downSince).toISOString() };
  }

  async close(): Promise<void> {
    if (this.#client.isOpen) await this.#client.close().catch(() => this.#client.destroy());
  }

  /** Run `command` within the deadline; undefined (and the fallback is used) when Redis does not answer. */
  async run<T>(command: (client: Client) => Promise<T>): Promise<T | undefined> {
    let timer: NodeJS.Timeout | undefined;
    try {
      this.#connected ??= this.#client.connect().catch((error: unknown) => {
        this.#connected = undefined;
        throw error;
      });
      const result = await Promise.race([
        this.#connected.then(() => command(this.#client)),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${this.#timeoutMs} ms`)),
            this.#timeoutMs,
          );
        }),
      ]);
      this.#downSince = undefined;
      return result;
    } catch (error) {
      this.#fellBack(error);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  #fellBack(error: unknown): void {
    const now = Date.now();
    this.#downSince ??= now;
    if (now - this.#lastFallbackLog < FALLBACK_LOG_EVERY_MS) return;
    this.#lastFallbackLog = now;
    this.#logger?.warn(
      "Redis (REDIS_URL) did not answer the request budget: each process counts its own requests until it does, so replicas together may exceed the share meanwhile",
      { reason: error instanceof Error ? error.message : String(error) },
    );
  }
}

class RedisBudgetStore implements RateBudgetStore {
  readonly kind = "redis" as const;
  readonly #stores: RedisBudgetStores;
  readonly #slots: string;
  readonly #facts: string;
  readonly #now: (() => number) | undefined;
  /** This process's own count, used while Redis does not answer. */
  readonly #fallback: MemoryBudgetStore;

  constructor(stores: RedisBudgetStores, key: string, now: (() => number) | undefined) {
    this.#stores = stores;
    this.#slots = `${key}:slots`;
    this.#facts = `${key}:facts`;
    this.#now = now;
    this.#fallback = new MemoryBudgetStore(now);
  }

  #time(): string {
    return String(this.#now?.() ?? -1);
  }

  async take(request: TakeRequest): Promise<TakeResult> {
    const reply = await this.#stores.run(
      (c) =>
        c.eval(TAKE, {
          keys: [this.#slots, this.#facts],
          arguments: [
            request.id,
            this.#time(),
            String(request.windowMs),
            String(request.limit ?? -1),
            String(request.share),
            request.kind,
            String(MAX_UPSTREAM_WAIT_MS),
          ],
        }) as Promise<[number, number, number, number]>,
    );
    if (reply === undefined) return this.#fallback.take(request);
    const [granted, used, retryInMs, limit] = reply.map(Number) as [number, number, number, number];
    const known = limit < 0 ? undefined : limit;
    return granted === 1
      ? { granted: true, used, limit: known }
      : { granted: false, used, limit: known, retryInMs };
  }

  async settle(id: string, windowMs: number): Promise<void> {
    await this.#fallback.settle(id, windowMs);
    await this.#stores.run((c) =>
      c.eval(SETTLE, { keys: [this.#slots], arguments: [id, this.#time(), String(windowMs)] }),
    );
  }

  async learn(request: LearnRequest): Promise<void> {
    await this.#fallback.learn(request);
    await this.#stores.run((c) =>
      c.eval(LEARN, {
        keys: [this.#facts],
        arguments: [
          String(request.limit ?? -1),
          String(request.defaultLimit ?? -1),
          String(request.gate?.remaining ?? -1),
          String(request.gate?.resetMs ?? 0),
          this.#time(),
          String(FACTS_TTL_MS),
          String(MAX_UPSTREAM_WAIT_MS),
        ],
      }),
    );
  }
}
