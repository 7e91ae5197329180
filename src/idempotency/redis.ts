/**
 * Idempotency records in Redis, shared by every replica and kept across restarts (interface.md §7).
 * It is an `IdempotencyBackend` (src/idempotency/store.ts): `IdempotencyStore.run` holds Stripe's rules, this
 * module only keeps records. Loaded by dynamic import only when REDIS_URL is set.
 * Record: `mcp:idem:<tenant>:<tool>:<key>` → `<claim id> <JSON>`, claimed with an atomic SET NX PX.
 * IMPORTANT: every command fails fast when Redis is away (no offline queue, short timeouts); a claim
 * that fails rejects, and `run` then refuses the write with nothing sent (fail closed).
 */
import { randomUUID } from "node:crypto";
import { createClient } from "@redis/client";
import type { Logger } from "../telemetry/logger.js";
import type {
  ClaimResult,
  IdempotencyBackend,
  IdempotencyRecord,
  StoredOutcome,
  StoreLimits,
  StoreStats,
} from "./types.js";

export interface RedisIdempotencyOptions {
  /** `REDIS_URL`, e.g. `redis://127.0.0.1:6379/0`. Never logged: it may hold a password. */
  url: string;
  /** How long a key's record is kept, running or completed (MCP_IDEMPOTENCY_TTL_SECONDS). Default 24 h. */
  ttlMs?: number;
  /** Connect and per-command timeout; default 1000 ms. */
  timeoutMs?: number;
  /** Largest kept result, counted as `IdempotencyStore.run` counts it (2 bytes a character); default 128 KiB. */
  maxResultBytes?: number;
  logger?: Logger;
}

interface RunningRecord {
  s: "running";
  h: string;
  t: number;
}
interface DoneRecord {
  s: "done";
  h: string;
  o: StoredOutcome;
}
type StoredRecord = RunningRecord | DoneRecord;

// SET NX PX, and on a taken key its record and remaining TTL, in one atomic step.
const CLAIM = `if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
return {redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}`;
// Replace or delete the record only while it is still the one this claim wrote (compare-and-set).
const HELD = `local cur = redis.call('GET', KEYS[1])
if not cur or string.sub(cur, 1, string.len(ARGV[1]) + 1) ~= ARGV[1] .. ' ' then return 0 end`;
const COMPLETE = `${HELD}
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. ARGV[2], 'PX', ARGV[3])
return 1`;
const RELEASE = `${HELD}
if string.find(cur, '"s":"running"', 1, true) == nil then return 0 end
redis.call('DEL', KEYS[1])
return 1`;
const LOOKUP = `return {redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}`;

/** The Redis key of a record id (`namespace\0scope\0key`, see IdempotencyStore.run). */
export function redisKey(id: string): string {
  return `mcp:idem:${id.replaceAll("\u0000", ":")}`;
}

export class RedisIdempotencyBackend implements IdempotencyBackend {
  readonly limits: StoreLimits;
  readonly #client;
  readonly #logger: Logger | undefined;
  readonly #timeoutMs: number;
  /** Claim ids held by this process, by record id: only the claimant may complete or release. */
  readonly #held = new Map<string, string>();
  #connecting: Promise<unknown> | undefined;
  #lastErrorLog = 0;

  constructor(options: RedisIdempotencyOptions) {
    const timeout = options.timeoutMs ?? 1000;
    this.#timeoutMs = timeout;
    this.limits = {
      ttlMs: options.ttlMs ?? 86_400_000,
      // Redis holds the records: its own maxmemory bounds them, not this process.
      maxKeys: Number.POSITIVE_INFINITY,
      maxBytes: Number.POSITIVE_INFINITY,
      maxResultBytes: options.maxResultBytes ?? 128 * 1024,
    };
    this.#logger = options.logger;
    this.#client = createClient({
      url: options.url,
      // IMPORTANT: no offline queue: while Redis is away a command fails at once, it never waits.
      disableOfflineQueue: true,
      commandOptions: { timeout },
      socket: {
        connectTimeout: timeout,
        // Keep reconnecting in the background (capped backoff) so the store heals when Redis is back.
        reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000),
      },
    });
    // The client throws on an unhandled 'error' event; log at most one line per 10 s instead.
    this.#client.on("error", (error: Error) => {
      const now = Date.now();
      if (now - this.#lastErrorLog < 10_000) return;
      this.#lastErrorLog = now;
      this.#logger?.warn("redis idempotency store unreachable: keyed writes are refused until it is back", {
        error: error.name,
        code: errorCode(error),
      });
    });
  }

  /** Start connecting (idempotent). Commands sent before the connection is ready wait at most one timeout. */
  connect(): void {
    this.#connecting ??= this.#client.connect().catch(() => undefined);
  }

  /** Rejects when Redis cannot be reached: the caller must then send nothing. */
  async claim(id: string, requestHash: string): Promise<ClaimResult> {
    const claim = randomUUID();
    const record: RunningRecord = { s: "running", h: requestHash, t: Date.now() };
    let existing: unknown;
    try {
      existing = await this.#eval(CLAIM, id, [
        `${claim} ${JSON.stringify(record)}`,
        String(this.limits.ttlMs),
      ]);
    } catch (error) {
      // A claim that timed out on a live connection may still have been applied: free it (best effort).
      if (this.#client.isReady) void this.#try(() => this.#eval(RELEASE, id, [claim]), undefined);
      throw error;
    }
    if (existing === null || existing === undefined) {
      this.#held.set(id, claim);
      return { status: "claimed" };
    }
    const [value, pttl] = existing as [string | null, number];
    // The key expired between SET NX and GET: rare; the caller retries and gets a fresh claim.
    if (value === null) return { status: "in_progress" };
    const found = parseRecord(value);
    if (found.h !== requestHash) return { status: "mismatch" };
    if (found.s === "running") return { status: "in_progress" };
    return { status: "done", outcome: found.o, expiresAt: Date.now() + Math.max(0, pttl) };
  }

  /** Never throws: the write is done; when Redis is away only its record is lost (retries get "in progress"). */
  async complete(id: string, outcome: StoredOutcome): Promise<void> {
    const claim = this.#held.get(id);
    if (claim === undefined) return;
    this.#held.delete(id);
    const ok = await this.#try(async () => {
      const cur = await this.#eval(LOOKUP, id, []);
      const value = (cur as [string | null, number])[0];
      if (typeof value !== "string" || !value.startsWith(`${claim} `)) return false;
      const record: DoneRecord = { s: "done", h: parseRecord(value).h, o: outcome };
      return (
        (await this.#eval(COMPLETE, id, [claim, JSON.stringify(record), String(this.limits.ttlMs)])) === 1
      );
    }, false);
    if (!ok)
      this.#logger?.warn(
        "idempotency outcome not recorded in Redis; retries with this key are answered 'in progress' until it expires",
      );
  }

  async release(id: string): Promise<void> {
    const claim = this.#held.get(id);
    if (claim === undefined) return;
    this.#held.delete(id);
    await this.#try(() => this.#eval(RELEASE, id, [claim]), undefined);
  }

  async lookup(id: string): Promise<IdempotencyRecord | undefined> {
    const [value, pttl] = (await this.#eval(LOOKUP, id, [])) as [string | null, number];
    if (value === null) return undefined;
    const found = parseRecord(value);
    return {
      requestHash: found.h,
      outcome: found.s === "done" ? found.o : undefined,
      expiresAt: Date.now() + Math.max(0, pttl),
    };
  }

  /** Counts of this process only (claims it holds); Redis holds the records themselves. */
  stats(): StoreStats {
    return { keys: this.#held.size, bytes: 0, inProgress: this.#held.size, ...this.limits };
  }

  async close(): Promise<void> {
    if (this.#connecting === undefined) return;
    this.#connecting = undefined;
    this.#client.destroy();
  }

  async #eval(script: string, id: string, args: string[]): Promise<unknown> {
    this.connect();
    if (!this.#client.isReady && !(await this.#ready())) throw new Error("redis is not connected");
    return this.#client.eval(script, { keys: [redisKey(id)], arguments: args });
  }

  /** Wait at most one timeout for the connection; never queue behind an outage. */
  #ready(): Promise<boolean> {
    return new Promise((resolve) => {
      const onReady = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.#client.off("ready", onReady);
        resolve(this.#client.isReady);
      }, this.#timeoutMs);
      this.#client.once("ready", onReady);
    });
  }

  async #try<T>(fn: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      this.#logger?.warn("redis idempotency store: could not update a record", { code: errorCode(error) });
      return fallback;
    }
  }
}

function parseRecord(value: string): StoredRecord {
  return JSON.parse(value.slice(value.indexOf(" ") + 1)) as StoredRecord;
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
