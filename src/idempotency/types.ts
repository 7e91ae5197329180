/**
 * What an idempotency backend keeps and answers: plain facts about a keyed write (its request's
 * hash and the upstream's outcome as JSON), no protocol or tool types. The rules that use them
 * live in store.ts; memory.ts and redis.ts keep them.
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
  | { status: "in_progress" }
  /** The key is held for another request. */
  | { status: "mismatch" }
  /** A bound would be exceeded: nothing may be written under this key now. */
  | { status: "full"; retryAt: number | undefined };

export interface StoreLimits {
  ttlMs: number;
  maxKeys: number;
  maxBytes: number;
  maxResultBytes: number;
}

export interface StoreStats extends StoreLimits {
  keys: number;
  bytes: number;
  inProgress: number;
}

/** Where records live. `id` already carries namespace, scope and key. */
export interface IdempotencyBackend {
  readonly limits: StoreLimits;
  claim(id: string, requestHash: string): Promise<ClaimResult>;
  complete(id: string, outcome: StoredOutcome): Promise<void>;
  /** Forget a claimed key whose call provably wrote nothing. */
  release(id: string): Promise<void>;
  lookup(id: string): Promise<IdempotencyRecord | undefined>;
  stats(): StoreStats;
}
