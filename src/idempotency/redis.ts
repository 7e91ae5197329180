/**
 * Idempotency records in Redis, shared by every replica and kept across restarts (interface.md §7,
 * §7b). An `IdempotencyBackend` (types.ts): `IdempotencyStore.run` holds the rules, this module keeps
 * records (layout and Lua scripts in redis-records.ts). Loaded by dynamic import only with REDIS_URL.
 * IMPORTANT: every command has one deadline (MCP_REDIS_TIMEOUT_MS) over its whole round trip, not just
 * its time in the queue; past it the connection is dropped and rebuilt in the background, and until a
 * new one answers, claims fail at once, so a Redis that stops answering never holds a request for
 * long. A claim that reaches Redis after its deadline changes nothing (CLAIM reads Redis's clock), and
 * a claim, completion or release whose answer was lost is settled again once Redis answers.
 */
import { randomUUID } from "node:crypto";
import { createClient, ErrorReply } from "@redis/client";
import type { Logger } from "../telemetry/logger.js";
import {
  CLAIM,
  COMPLETE,
  LOOKUP,
  legacyRedisKey,
  parseRecord,
  RELEASE,
  recordValue,
  redisKey,
} from "./redis-records.js";
import {
  type ClaimResult,
  type IdempotencyBackend,
  type IdempotencyRecord,
  type Readiness,
  type StoredOutcome,
  StoreError,
  type StoreHealth,
  type StoreLimits,
  type StoreStats,
} from "./types.js";

export interface RedisIdempotencyOptions {
  /** `REDIS_URL`, e.g. `redis://127.0.0.1:6379/0`. Never logged: it may hold a password. */
  url: string;
  /** How long a key's record is kept, running or completed (MCP_IDEMPOTENCY_TTL_SECONDS). Default 24 h. */
  ttlMs?: number;
  /** MCP_REDIS_TIMEOUT_MS: the deadline of every command and of a connection, round trip included. Default 1000. */
  timeoutMs?: number;
  /** Largest kept result, counted as `IdempotencyStore.run` counts it (2 bytes a character); default 128 KiB. */
  maxResultBytes?: number;
  /** How often the connection is checked between commands (the eviction policy, or a PING). Default 2000 ms. */
  heartbeatMs?: number;
  /** Claims waiting for Redis at once; more are refused at once (nothing sent). Default 32. */
  maxWaiting?: number;
  logger?: Logger;
}

/** What a connection found out about Redis's eviction policy (interface.md §7b "Eviction"). */
export type PolicyCheck =
  | { status: "noeviction" }
  | { status: "evicting"; policy: string }
  /** CONFIG GET refused (managed services often rename or forbid CONFIG). */
  | { status: "refused"; reason: string }
  | { status: "unreachable"; reason: string };

/** A client that never queues offline and never reconnects by itself: this module rebuilds connections. */
function newClient(url: string, timeoutMs: number) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: timeoutMs, reconnectStrategy: false },
  });
}
type Client = ReturnType<typeof newClient>;

/** The rejection of a command past its deadline (a sentinel, never shown). */
const DEADLINE = Symbol("deadline");

/** Bounds of what is kept to settle once Redis answers again (beyond them: logged and dropped). */
const MAX_UNSETTLED = 1024;
const MAX_UNSETTLED_CHARS = 4 * 1024 * 1024;

export class RedisIdempotencyBackend implements IdempotencyBackend {
  readonly limits: StoreLimits;
  readonly shared = true;
  readonly #url: string;
  readonly #timeoutMs: number;
  readonly #heartbeatMs: number;
  readonly #maxWaiting: number;
  readonly #logger: Logger | undefined;
  /** Claim id and request hash of each record this process claimed and has not settled. */
  readonly #held = new Map<string, { claim: string; hash: string }>();
  /** Completions (value) and releases (no value) Redis did not confirm, by record id and claim id. */
  readonly #unsettled = new Map<string, { id: string; claim: string; value: string | undefined }>();
  #unsettledChars = 0;
  #flushing = false;
  /** Start (performance.now()) of each command waiting for Redis, oldest first. */
  readonly #pending = new Map<number, number>();
  #seq = 0;
  #claimsWaiting = 0;
  /** The connection in use; undefined while there is none that answers. */
  #client: Client | undefined;
  #connecting: Client | undefined;
  #started: Promise<PolicyCheck> | undefined;
  #startDone = false;
  #rebuilding = false;
  #heartbeat: NodeJS.Timeout | undefined;
  /** Why there is no usable connection, since when. */
  #down: { kind: "timeout" | "unavailable"; reason: string; since: number } | undefined;
  #upSince = Date.now();
  /** An evicting maxmemory-policy seen on the connection: claims are refused until it is noeviction. */
  #evicting: { policy: string; since: number } | undefined;
  /** Redis answered OOM to a claim; cleared by the next claim it takes. */
  #oomSince: number | undefined;
  #configRefused = false;
  /** Redis's clock minus ours, in ms, measured on each connection. */
  #offsetMs = 0;
  #closed = false;
  #lastErrorLog = 0;

  constructor(options: RedisIdempotencyOptions) {
    this.#url = options.url;
    this.#timeoutMs = options.timeoutMs ?? 1000;
    this.#heartbeatMs = options.heartbeatMs ?? 2000;
    this.#maxWaiting = options.maxWaiting ?? 32;
    this.#logger = options.logger;
    this.limits = {
      ttlMs: options.ttlMs ?? 86_400_000,
      // Redis holds the records: its own maxmemory bounds them, not this process.
      maxKeys: Number.POSITIVE_INFINITY,
      maxBytes: Number.POSITIVE_INFINITY,
      maxResultBytes: options.maxResultBytes ?? 128 * 1024,
      // The claim's and the completion's round trips, and the replicas' estimates of Redis's clock.
      settleMs: 2 * this.#timeoutMs + 1000,
    };
    this.#down = { kind: "unavailable", reason: "not connected yet", since: Date.now() };
  }

  /**
   * Connect (once; later calls return the same answer) and report the eviction policy. When Redis
   * cannot be reached it keeps trying in the background; claims are refused until it answers.
   */
  start(): Promise<PolicyCheck> {
    this.#started ??= (async () => {
      const check = await this.#connectOnce();
      this.#startDone = true;
      if (check.status === "unreachable") this.#rebuild();
      if (!this.#closed) {
        this.#heartbeat = setInterval(() => void this.#beat(), this.#heartbeatMs);
        this.#heartbeat.unref();
      }
      return check;
    })();
    return this.#started;
  }

  /** Rejects with a StoreError when Redis cannot take the claim: the caller must then send nothing. */
  async claim(id: string, requestHash: string): Promise<ClaimResult> {
    this.#admit();
    const claim = randomUUID();
    const started = Date.now() + this.#offsetMs;
    const value = recordValue(claim, { s: "running", h: requestHash, t: started });
    const deadline = String(started + this.#timeoutMs);
    let sent = false;
    let reply: unknown;
    this.#claimsWaiting++;
    try {
      reply = await this.#command((c) => {
        sent = true;
        return c.eval(CLAIM, {
          keys: this.#keys(id),
          arguments: [value, String(this.limits.ttlMs), deadline],
        });
      });
    } catch (error) {
      // Applied before its deadline with the answer lost: free it once Redis answers again.
      const kind = (error as StoreError).kind;
      if (sent && (kind === "timeout" || kind === "unavailable")) this.#unsettle(id, claim, undefined);
      throw error;
    } finally {
      this.#claimsWaiting--;
    }
    const [status, now, found, pttl] = reply as [string, number, string | undefined, number | undefined];
    if (status === "late") throw new StoreError("timeout", "the claim reached Redis after its deadline");
    if (status === "claimed") {
      this.#held.set(id, { claim, hash: requestHash });
      this.#oomSince = undefined;
      return { status: "claimed" };
    }
    const { record } = parseRecord(found ?? "");
    if (record.h !== requestHash) return { status: "mismatch" };
    if (record.s === "running") return { status: "in_progress", ageMs: Math.max(0, now - record.t) };
    return { status: "done", outcome: record.o, expiresAt: Date.now() + Math.max(0, pttl ?? 0) };
  }

  /** Never throws: the write is done. When Redis cannot take the outcome now, it is kept and sent once it can. */
  async complete(id: string, outcome: StoredOutcome): Promise<void> {
    const held = this.#held.get(id);
    if (held === undefined) return;
    this.#held.delete(id);
    await this.#settle(id, held.claim, recordValue(held.claim, { s: "done", h: held.hash, o: outcome }));
  }

  async release(id: string): Promise<void> {
    const held = this.#held.get(id);
    if (held === undefined) return;
    this.#held.delete(id);
    await this.#settle(id, held.claim, undefined);
  }

  async lookup(id: string): Promise<IdempotencyRecord | undefined> {
    const reply = (await this.#command((c) => c.eval(LOOKUP, { keys: this.#keys(id), arguments: [] }))) as [
      number,
      string?,
      number?,
    ];
    if (reply[1] === undefined) return undefined;
    const { record } = parseRecord(reply[1]);
    return {
      requestHash: record.h,
      outcome: record.s === "done" ? record.o : undefined,
      expiresAt: Date.now() + Math.max(0, reply[2] ?? 0),
    };
  }

  /**
   * What a claim would meet now, read only: the refusals #admit gives at once, Redis out of memory
   * (INFO memory: used_memory at maxmemory, or an OOM answer already met), else taken. Room is
   * "checked" from INFO; "not_checked" when Redis refuses INFO (managed services may).
   */
  async readiness(): Promise<Readiness> {
    try {
      this.#admit();
    } catch (error) {
      return { status: "failed", error: error as StoreError };
    }
    const oom = { status: "failed", error: new StoreError("full", "Redis is out of memory") } as const;
    let info: string;
    try {
      info = String(await this.#command((c) => c.info("memory")));
    } catch {
      return this.#oomSince === undefined ? { status: "ready", room: "not_checked" } : oom;
    }
    const number = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, "m").exec(info)?.[1] ?? Number.NaN);
    const [used, max] = [number("used_memory"), number("maxmemory")];
    if (Number.isNaN(used) || Number.isNaN(max)) return { status: "ready", room: "not_checked" };
    return max > 0 && used >= max ? oom : { status: "ready", room: "checked" };
  }

  /** Counts of this process only (claims it holds); Redis holds the records themselves. */
  stats(): StoreStats {
    return { keys: this.#held.size, bytes: 0, inProgress: this.#held.size, ...this.limits };
  }

  health(): StoreHealth {
    const degraded = (reason: string, since: number): StoreHealth => ({
      store: "redis",
      status: "degraded",
      reason,
      since: new Date(since).toISOString(),
    });
    if (this.#down)
      return degraded(`Redis: ${this.#down.reason}; keyed writes are refused`, this.#down.since);
    if (this.#evicting)
      return degraded(
        `Redis's maxmemory-policy is ${this.#evicting.policy}, not noeviction; keyed writes are refused`,
        this.#evicting.since,
      );
    if (this.#oomSince !== undefined)
      return degraded("Redis is out of memory (maxmemory reached); keyed writes are refused", this.#oomSince);
    return { store: "redis", status: "ok", since: new Date(this.#upSince).toISOString() };
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#heartbeat);
    this.#client?.destroy();
    this.#connecting?.destroy();
    this.#client = undefined;
  }

  /** Refuse a claim at once, before it can wait: no usable connection, an evicting policy, a Redis already slow. */
  #admit(): void {
    if (this.#evicting)
      throw new StoreError("misconfigured", `Redis's maxmemory-policy is ${this.#evicting.policy}`);
    if (this.#startDone && this.#client === undefined)
      throw new StoreError(this.#down?.kind ?? "unavailable", this.#down?.reason ?? "not connected");
    // Commands answer in order: when the oldest has waited a quarter of the deadline, Redis is stalling.
    const oldest = this.#pending.values().next().value;
    const slowMs = this.#timeoutMs / 4;
    if (oldest !== undefined && performance.now() - oldest > slowMs)
      throw new StoreError("timeout", `a command has waited over ${Math.round(slowMs)} ms`);
    if (this.#claimsWaiting >= this.#maxWaiting)
      throw new StoreError("timeout", `${this.#claimsWaiting} keyed writes already wait for Redis`);
  }

  /** Run one command within the deadline, round trip included; a miss drops the connection. */
  async #command<T>(run: (client: Client) => Promise<T>): Promise<T> {
    const seq = ++this.#seq;
    this.#pending.set(seq, performance.now());
    let client: Client | undefined;
    let expired = false;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        reject(DEADLINE);
      }, this.#timeoutMs);
    });
    const work = (async () => {
      client = await this.#usable();
      if (expired) throw DEADLINE;
      return run(client);
    })();
    try {
      return await Promise.race([work, deadline]);
    } catch (error) {
      throw this.#failure(client, error);
    } finally {
      clearTimeout(timer);
      this.#pending.delete(seq);
    }
  }

  async #usable(): Promise<Client> {
    if (this.#closed) throw new StoreError("unavailable", "the store is closed");
    // Before the first connection is settled, wait for it (within the caller's deadline).
    if (!this.#startDone) await this.start();
    if (this.#client === undefined)
      throw new StoreError(this.#down?.kind ?? "unavailable", this.#down?.reason ?? "not connected");
    return this.#client;
  }

  /** What a failed command means, as a StoreError; drops the connection when it no longer answers. */
  #failure(client: Client | undefined, error: unknown): StoreError {
    if (error instanceof StoreError) return error;
    if (error === DEADLINE) {
      const reason = `did not answer within ${this.#timeoutMs} ms (MCP_REDIS_TIMEOUT_MS)`;
      if (client !== undefined) this.#drop(client, "timeout", reason);
      return new StoreError("timeout", reason);
    }
    if (error instanceof ErrorReply) return this.#replyFailure(error);
    if (client !== undefined) this.#drop(client, "unavailable", `connection lost (${nameOf(error)})`);
    // Dropped after another command's deadline: the same outage, the same answer.
    return new StoreError(this.#down?.kind ?? "unavailable", this.#down?.reason ?? "connection lost");
  }

  /** Redis answered with an error: its own words decide, never "cannot be reached". */
  #replyFailure(error: ErrorReply): StoreError {
    const text = error.message;
    if (/\bOOM\b/.test(text)) {
      if (this.#oomSince === undefined) {
        this.#oomSince = Date.now();
        this.#logger?.error(
          "Redis is out of memory (maxmemory reached): keyed writes are refused; raise maxmemory or lower MCP_IDEMPOTENCY_TTL_SECONDS",
        );
      }
      return new StoreError("full", "Redis is out of memory");
    }
    if (/\bWRONGTYPE\b/.test(text)) return new StoreError("corrupt", "the key holds another Redis type");
    // LOADING, READONLY (a replica after a failover), BUSY, NOPERM: Redis answered but cannot serve now.
    const word = text.split(/\s/, 1)[0] ?? "ERR";
    this.#logger?.warn("Redis refused an idempotency command", { reply: word });
    return new StoreError("unavailable", `Redis answered ${word}`);
  }

  #drop(client: Client, kind: "timeout" | "unavailable", reason: string): void {
    if (client !== this.#client) return;
    this.#client = undefined;
    client.destroy();
    this.#markDown(kind, reason);
    this.#rebuild();
  }

  #markDown(kind: "timeout" | "unavailable", reason: string): void {
    if (this.#down !== undefined) {
      this.#down = { ...this.#down, kind, reason };
      return;
    }
    this.#down = { kind, reason, since: Date.now() };
    this.#logger?.warn("Redis idempotency store degraded: keyed writes are refused until it answers again", {
      reason,
    });
  }

  /** Open connections in the background (capped backoff) until one answers. */
  #rebuild(): void {
    if (this.#rebuilding || this.#closed) return;
    this.#rebuilding = true;
    void (async () => {
      for (let attempt = 0; !this.#closed && this.#client === undefined; attempt++) {
        await sleep(Math.min(50 * 2 ** attempt, 2000));
        if (!this.#closed) await this.#connectOnce();
      }
    })().finally(() => {
      this.#rebuilding = false;
    });
  }

  /** One connection, checked within one deadline: it answers, its clock is read, its policy too. */
  async #connectOnce(): Promise<PolicyCheck> {
    const client = newClient(this.#url, this.#timeoutMs);
    client.on("error", (error: Error) => this.#onError(client, error));
    this.#connecting = client;
    try {
      const policy = await within(this.#timeoutMs, async () => {
        await client.connect();
        await this.#readClock(client);
        return this.#readPolicy(client);
      });
      if (this.#closed) throw new StoreError("unavailable", "the store is closed");
      this.#client = client;
      this.#up();
      this.#applyPolicy(policy);
      void this.#settleBacklog();
      return policy;
    } catch (error) {
      client.destroy();
      const reason =
        error === DEADLINE
          ? `did not answer within ${this.#timeoutMs} ms (MCP_REDIS_TIMEOUT_MS)`
          : `cannot be reached (${nameOf(error)})`;
      this.#markDown(error === DEADLINE ? "timeout" : "unavailable", reason);
      return { status: "unreachable", reason };
    } finally {
      if (this.#connecting === client) this.#connecting = undefined;
    }
  }

  #up(): void {
    const was = this.#down;
    this.#down = undefined;
    this.#upSince = Date.now();
    if (was !== undefined && this.#startDone)
      this.#logger?.info("Redis idempotency store answers again", { down_ms: Date.now() - was.since });
  }

  async #readClock(client: Client): Promise<void> {
    const before = Date.now();
    const [seconds, micros] = (await client.sendCommand(["TIME"])) as [string, string];
    const after = Date.now();
    this.#offsetMs = Math.round(Number(seconds) * 1000 + Number(micros) / 1000 - (before + after) / 2);
  }

  async #readPolicy(client: Client): Promise<PolicyCheck> {
    let reply: unknown;
    try {
      reply = await client.configGet("maxmemory-policy");
    } catch (error) {
      if (!(error instanceof ErrorReply)) throw error;
      this.#configRefused = true;
      return { status: "refused", reason: error.message.split("\n", 1)[0]!.slice(0, 160) };
    }
    this.#configRefused = false;
    const policy = (reply as Record<string, unknown> | null)?.["maxmemory-policy"];
    if (typeof policy !== "string") {
      this.#configRefused = true;
      return { status: "refused", reason: "CONFIG GET maxmemory-policy returned nothing" };
    }
    return policy === "noeviction" ? { status: "noeviction" } : { status: "evicting", policy };
  }

  #applyPolicy(policy: PolicyCheck): void {
    if (policy.status === "evicting") {
      if (this.#evicting?.policy === policy.policy) return;
      this.#evicting = { policy: policy.policy, since: Date.now() };
      this.#logger?.error(
        `Redis's maxmemory-policy is ${policy.policy}: it may evict idempotency records, so keyed writes are refused until it is noeviction (CONFIG SET maxmemory-policy noeviction)`,
      );
    } else if (this.#evicting !== undefined) {
      this.#evicting = undefined;
      this.#logger?.info("Redis's maxmemory-policy is noeviction again: keyed writes are accepted");
    }
  }

  /** Between commands: the connection still answers, and its policy still holds. */
  async #beat(): Promise<void> {
    if (this.#closed || this.#client === undefined) return;
    try {
      if (this.#configRefused) await this.#command((c) => c.ping());
      else this.#applyPolicy(await this.#command((c) => this.#readPolicy(c)));
    } catch {
      // #command has marked the store down and started a new connection.
    }
  }

  /** Complete (value) or release (no value) a claim; kept for later when Redis cannot take it now. Never throws. */
  async #settle(id: string, claim: string, value: string | undefined): Promise<void> {
    try {
      await this.#command((c) =>
        value === undefined
          ? c.eval(RELEASE, { keys: [redisKey(id)], arguments: [claim] })
          : c.eval(COMPLETE, { keys: [redisKey(id)], arguments: [claim, value, String(this.limits.ttlMs)] }),
      );
    } catch (error) {
      const kind = (error as StoreError).kind;
      if (kind === "timeout" || kind === "unavailable") this.#unsettle(id, claim, value);
      else
        this.#logger?.warn(
          "idempotency outcome not recorded in Redis: once the call's time budget has passed, retries with its key are answered 'outcome unknown'",
          { kind },
        );
    }
  }

  #unsettle(id: string, claim: string, value: string | undefined): void {
    const chars = value?.length ?? 0;
    if (this.#unsettled.size >= MAX_UNSETTLED || this.#unsettledChars + chars > MAX_UNSETTLED_CHARS) {
      this.#logger?.warn(
        "too many idempotency records wait for Redis: one is dropped; once the call's time budget has passed, retries with its key are answered 'outcome unknown'",
      );
      return;
    }
    this.#unsettled.set(`${id}\n${claim}`, { id, claim, value });
    this.#unsettledChars += chars;
  }

  /** Once Redis answers again: the completions and releases it missed, in order (each compare-and-set). */
  async #settleBacklog(): Promise<void> {
    if (this.#flushing) return;
    this.#flushing = true;
    try {
      for (const [k, entry] of [...this.#unsettled]) {
        if (this.#client === undefined || this.#closed) break;
        this.#unsettled.delete(k);
        this.#unsettledChars -= entry.value?.length ?? 0;
        await this.#settle(entry.id, entry.claim, entry.value);
      }
    } finally {
      this.#flushing = false;
    }
  }

  /** The record's key, and the first layout's when it names this id alone (read, never written). */
  #keys(id: string): string[] {
    const legacy = legacyRedisKey(id);
    return legacy === undefined ? [redisKey(id)] : [redisKey(id), legacy];
  }

  #onError(client: Client, error: Error): void {
    const now = Date.now();
    if (now - this.#lastErrorLog >= 10_000) {
      this.#lastErrorLog = now;
      this.#logger?.warn("Redis idempotency store connection error", {
        error: error.name,
        code: codeOf(error),
      });
    }
    if (client === this.#client) this.#drop(client, "unavailable", `connection lost (${nameOf(error)})`);
  }
}

/** `fn()`, or a DEADLINE rejection after `ms`. */
async function within<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(DEADLINE), ms);
  });
  try {
    return await Promise.race([fn(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** A short name for a failure (its code, or its class), never its message (it may carry a host or more). */
function nameOf(error: unknown): string {
  return codeOf(error) ?? (error instanceof Error ? error.name : typeof error);
}
