/**
 * Idempotency records in Redis, shared by every replica and kept across restarts (interface.md §7),
 * with Stripe's semantics: the first outcome of a key is kept for the TTL; the same key with another
 * request hash is refused; a key whose first call is still running is answered "in progress".
 * Record: `mcp:idem:<scope>:<key>` → `<claim id> <JSON>`, claimed with an atomic SET NX PX.
 * IMPORTANT: every command fails fast when Redis is away (no offline queue, short timeouts), and a
 * failed claim means nothing may be sent upstream: the caller must not write.
 */
import { createHash, randomUUID } from "node:crypto";
import { createClient } from "@redis/client";
import type { Env } from "../config.js";
import { ApiError, ConfigError, ERROR_CODES } from "../errors/api-error.js";
import type { Logger } from "../logger.js";

/** What a claim found. `new` carries the claim id that `complete` and `release` need. */
export type ClaimResult =
  | { kind: "new"; claim: string }
  /** `outcome` as completed; `omitted` instead when it was larger than the cap. */
  | { kind: "replay"; outcome: unknown; omitted?: string }
  /** The first call under this key has not completed; `startedAt` is its claim time (epoch ms). */
  | { kind: "in_progress"; startedAt: number }
  /** The key was first used with another request hash. */
  | { kind: "conflict" };

/**
 * The minimal async store a write needs; the in-memory store and this one can both implement it.
 * `scope` namespaces keys (the tenant name; letters, digits, `.`, `_`, `-`); `requestHash` identifies
 * the canonical request (see `requestHash()`); outcomes must be JSON-serialisable.
 */
export interface IdempotencyBackend {
  /** Rejects with an `ApiError` (code NETWORK) when the store is unreachable: then send nothing. */
  claim(scope: string, key: string, requestHash: string): Promise<ClaimResult>;
  /** Keep `outcome` for the TTL. False when the record is no longer held by `claim` or Redis is away. */
  complete(scope: string, key: string, claim: string, outcome: unknown): Promise<boolean>;
  /** Forget a claim whose call provably wrote nothing; deletes only a running record held by `claim`. */
  release(scope: string, key: string, claim: string): Promise<boolean>;
  close(): Promise<void>;
}

export interface RedisIdempotencyOptions {
  /** `REDIS_URL`, e.g. `redis://127.0.0.1:6379/0`. Never logged: it may hold a password. */
  url: string;
  /** How long a key's record is kept, running or completed (MCP_IDEMPOTENCY_TTL_SECONDS). */
  ttlMs?: number;
  /** Connect and per-command timeout; default 1000 ms. */
  timeoutMs?: number;
  /** Cap on a stored outcome's JSON, default 64 KiB. */
  maxOutcomeBytes?: number;
  logger?: Logger;
}

export const DEFAULT_TTL_SECONDS = 86_400;
const MAX_TTL_SECONDS = 30 * 86_400;

/** MCP_IDEMPOTENCY_TTL_SECONDS → milliseconds (default 24 h); ConfigError when invalid. */
export function idempotencyTtlMs(env: Env): number {
  const raw = env.MCP_IDEMPOTENCY_TTL_SECONDS?.trim();
  if (raw === undefined || raw === "") return DEFAULT_TTL_SECONDS * 1000;
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= MAX_TTL_SECONDS))
    throw new ConfigError([
      {
        variable: "MCP_IDEMPOTENCY_TTL_SECONDS",
        expected: `a whole number of seconds from 1 to ${MAX_TTL_SECONDS} (default ${DEFAULT_TTL_SECONDS}, 24 h)`,
      },
    ]);
  return n * 1000;
}

/** JSON with object keys sorted, so equal requests hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Hex SHA-256 of the canonical JSON of a request (tool name, method, path, body). */
export function requestHash(request: unknown): string {
  return createHash("sha256").update(canonicalJson(request)).digest("hex");
}

export const STORE_UNREACHABLE = "idempotency store unreachable: nothing was sent; retry when Redis is back";

function unreachable(cause: unknown): ApiError {
  return new ApiError({
    code: ERROR_CODES.NETWORK,
    retryable: true,
    message: STORE_UNREACHABLE,
    details: { store: "redis" },
    cause,
  });
}

interface RunningRecord {
  s: "running";
  h: string;
  t: number;
}
interface DoneRecord {
  s: "done";
  h: string;
  o?: unknown;
  omitted?: string;
}
type StoredRecord = RunningRecord | DoneRecord;

// SET NX PX, and on a taken key its record, in one atomic step.
const CLAIM = `if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
return redis.call('GET', KEYS[1])`;
// Replace or delete the record only while it is still the one this claim wrote (compare-and-set).
const HELD = `local cur = redis.call('GET', KEYS[1])
if not cur or string.sub(cur, 1, string.len(ARGV[1]) + 1) ~= ARGV[1] .. ' ' then return 0 end`;
const COMPLETE = `${HELD}
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`;
const RELEASE = `${HELD}
if string.find(cur, '"s":"running"', 1, true) == nil then return 0 end
redis.call('DEL', KEYS[1])
return 1`;

const SCOPE = /^[A-Za-z0-9._-]{1,64}$/;

export class RedisIdempotencyStore implements IdempotencyBackend {
  readonly #client;
  readonly #ttlMs: number;
  readonly #maxOutcomeBytes: number;
  readonly #logger: Logger | undefined;
  readonly #timeoutMs: number;
  #connecting: Promise<unknown> | undefined;
  #lastErrorLog = 0;

  constructor(options: RedisIdempotencyOptions) {
    const timeout = options.timeoutMs ?? 1000;
    this.#timeoutMs = timeout;
    this.#ttlMs = options.ttlMs ?? DEFAULT_TTL_SECONDS * 1000;
    this.#maxOutcomeBytes = options.maxOutcomeBytes ?? 64 * 1024;
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
      this.#logger?.warn("redis idempotency store unreachable", {
        error: error.name,
        code: errorCode(error),
      });
    });
  }

  /** Start connecting (idempotent). Commands sent before the connection is ready fail fast. */
  connect(): void {
    this.#connecting ??= this.#client.connect().catch(() => undefined);
  }

  async claim(scope: string, key: string, requestHash: string): Promise<ClaimResult> {
    const id = this.#key(scope, key);
    const claim = randomUUID();
    const record: RunningRecord = { s: "running", h: requestHash, t: Date.now() };
    let existing: unknown;
    try {
      existing = await this.#eval(CLAIM, id, [`${claim} ${JSON.stringify(record)}`, String(this.#ttlMs)]);
    } catch (error) {
      // A claim that timed out on a live connection may still have been applied: free it (best effort).
      if (this.#client.isReady) void this.release(scope, key, claim);
      throw unreachable(error);
    }
    if (existing === null || existing === undefined) return { kind: "new", claim };
    const found = parseRecord(String(existing));
    if (found.h !== requestHash) return { kind: "conflict" };
    if (found.s === "running") return { kind: "in_progress", startedAt: found.t };
    return found.omitted === undefined
      ? { kind: "replay", outcome: found.o }
      : { kind: "replay", outcome: undefined, omitted: found.omitted };
  }

  async complete(scope: string, key: string, claim: string, outcome: unknown): Promise<boolean> {
    const id = this.#key(scope, key);
    const hash = await this.#heldHash(id, claim);
    if (hash === undefined) return false;
    const json = JSON.stringify(outcome) ?? "null";
    const bytes = Buffer.byteLength(json);
    const record: DoneRecord =
      bytes <= this.#maxOutcomeBytes
        ? { s: "done", h: hash, o: outcome }
        : {
            s: "done",
            h: hash,
            omitted: `the first outcome (${bytes} bytes) was larger than the ${this.#maxOutcomeBytes}-byte cap and was not kept; the write happened once`,
          };
    return this.#try(
      async () =>
        (await this.#eval(COMPLETE, id, [
          claim,
          `${claim} ${JSON.stringify(record)}`,
          String(this.#ttlMs),
        ])) === 1,
      false,
    );
  }

  async release(scope: string, key: string, claim: string): Promise<boolean> {
    const id = this.#key(scope, key);
    return this.#try(async () => (await this.#eval(RELEASE, id, [claim])) === 1, false);
  }

  async close(): Promise<void> {
    if (this.#connecting === undefined) return;
    this.#connecting = undefined;
    this.#client.destroy();
  }

  #key(scope: string, key: string): string {
    if (!SCOPE.test(scope)) throw new TypeError(`idempotency scope must match ${SCOPE}, got a bad scope`);
    return `mcp:idem:${scope}:${key}`;
  }

  async #heldHash(id: string, claim: string): Promise<string | undefined> {
    return this.#try(async () => {
      const cur = await this.#eval("return redis.call('GET', KEYS[1])", id, []);
      if (typeof cur !== "string" || !cur.startsWith(`${claim} `)) return undefined;
      return parseRecord(cur).h;
    }, undefined);
  }

  async #eval(script: string, id: string, args: string[]): Promise<unknown> {
    this.connect();
    if (!this.#client.isReady && !(await this.#ready())) throw new Error("redis is not connected");
    return this.#client.eval(script, { keys: [id], arguments: args });
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
