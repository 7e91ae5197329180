/**
 * What an idempotency backend keeps and answers: plain facts about a keyed write (its request's
 * hash, when it started, and the upstream's outcome as JSON), no protocol or tool types. The rules
 * that use them live in store.ts; memory.ts and redis.ts keep them.
 * IMPORTANT: a record id encodes (namespace, scope, key) one-to-one (`recordId`): two different keys
 * never share a record, whatever characters they hold.
 */
/** What is kept of a finished call: its result (ok) or its ambiguous failure, as JSON. */
export interface StoredOutcome {
  ok: boolean;
  /** The result or the failure as JSON; "" when it exceeded maxResultBytes and only `summary` was kept. */
  json: string;
  /** One line naming what was written, kept in place of an oversized result. */
  summary?: string | undefined;
}

export interface IdempotencyRecord {
  /** SHA-256 (hex) of the canonical request: the only trace of the request that is kept. */
  requestHash: string;
  /** Undefined while the first call runs. */
  outcome: StoredOutcome | undefined;
  /** Wall-clock ms when the record is forgotten (TTL after the outcome). */
  expiresAt: number;
}

export type ClaimResult =
  /** The caller owns the key: write, then complete() or release(). */
  | { status: "claimed" }
  | { status: "done"; outcome: StoredOutcome; expiresAt: number }
  /** The first call has not reported an outcome; it started `ageMs` ago (by the backend's clock). */
  | { status: "in_progress"; ageMs: number }
  /** The key is held for another request. */
  | { status: "mismatch" }
  /** A bound would be exceeded: nothing may be written under this key now. */
  | { status: "full"; retryAt: number | undefined };

export interface StoreLimits {
  ttlMs: number;
  maxKeys: number;
  maxBytes: number;
  maxResultBytes: number;
  /**
   * How long after a call's time budget its outcome may still arrive through this backend (the
   * claim's and the completion's round trips, clock skew between replicas); 0 in memory.
   */
  settleMs: number;
}

export interface StoreStats extends StoreLimits {
  keys: number;
  bytes: number;
  inProgress: number;
}

/** What /healthz says about the store. `degraded`: keyed writes are refused; everything else goes on. */
export interface StoreHealth {
  store: "memory" | "redis";
  status: "ok" | "degraded";
  /** Why it is degraded, for an operator (never a URL or a password). */
  reason?: string;
  /** ISO 8601 instant the current status began. */
  since?: string;
}

/**
 * Why a backend could not answer, each with its own message in store.ts. Retryable: `timeout`
 * (no answer within the deadline), `unavailable` (no connection). Not retryable until an operator
 * acts: `full` (Redis OOM), `misconfigured` (an evicting maxmemory-policy), `corrupt` (a record that
 * does not parse).
 */
export type StoreFailure = "timeout" | "unavailable" | "full" | "misconfigured" | "corrupt";

export class StoreError extends Error {
  override readonly name = "StoreError";
  constructor(
    readonly kind: StoreFailure,
    message: string,
  ) {
    super(message);
  }
}

/**
 * What a claim would meet now: taken (`room` "checked" when the backend knows it has room for it,
 * "not_checked" when it cannot tell), refused for want of room, or refused because the backend
 * is unhealthy (unreachable, slow, evicting, out of memory).
 */
export type Readiness =
  | { status: "ready"; room: "checked" | "not_checked" }
  | { status: "full"; retryAt: number | undefined }
  | { status: "failed"; error: StoreError };

/** Where records live. `id` comes from `recordId` and already carries namespace, scope and key. */
export interface IdempotencyBackend {
  readonly limits: StoreLimits;
  /**
   * Whether every replica (and a restarted process) sees these records (Redis), or only this
   * process (memory): a retry after this process dies is protected only by a shared store.
   */
  readonly shared: boolean;
  /** Rejects with a StoreError when the backend cannot answer; the caller must then send nothing. */
  claim(id: string, requestHash: string): Promise<ClaimResult>;
  complete(id: string, outcome: StoredOutcome): Promise<void>;
  /** Forget a claimed key whose call provably wrote nothing. */
  release(id: string): Promise<void>;
  lookup(id: string): Promise<IdempotencyRecord | undefined>;
  /**
   * Whether a claim of `id` would be taken now, read only (a dry run, interface.md §9): the room
   * and health a claim would meet, as far as the backend can tell without claiming.
   */
  readiness(id: string, requestHash: string): Promise<Readiness>;
  stats(): StoreStats;
  health(): StoreHealth;
}

/**
 * The record id of a key: a JSON array of its three parts. JSON quotes and escapes each part
 * (lone surrogates included), so the encoding is one-to-one: `c:d` and `c\0d` are two ids.
 */
export function recordId(namespace: string, scope: string, key: string): string {
  return JSON.stringify([namespace, scope, key]);
}

/** The parts of a record id (the inverse of `recordId`). */
export function recordParts(id: string): [namespace: string, scope: string, key: string] {
  return JSON.parse(id) as [string, string, string];
}
