/**
 * The in-process idempotency backend: records in a Map, bounded in count and in bytes, each kept
 * for the TTL after its outcome. IMPORTANT: it never evicts a live record to make room; when a
 * new key would break a bound it refuses the claim (fail closed), so a key can only be
 * forgotten by its TTL or by a release (a call provably never sent).
 */
import type {
  ClaimResult,
  IdempotencyBackend,
  IdempotencyRecord,
  Readiness,
  StoredOutcome,
  StoreHealth,
  StoreLimits,
  StoreStats,
} from "./types.js";

export interface MemoryBackendOptions {
  /** How long an outcome is kept after it is known (MCP_IDEMPOTENCY_TTL_SECONDS). Default 24 h. */
  ttlMs?: number;
  /** Most records kept at once (in progress included). Default 50,000. */
  maxKeys?: number;
  /** Most bytes kept at once, counted as in `recordBytes`. Default 64 MiB. */
  maxBytes?: number;
  /** Largest stored outcome, counted as in `recordBytes`; a larger one is kept as its summary. Default 256 KiB. */
  maxResultBytes?: number;
  /** Wall clock in ms (tests inject one). */
  now?: () => number;
}

/** The default bounds of one in-memory store (hosting divides them among the tenants). */
export const MEMORY_BOUNDS = Object.freeze({
  maxKeys: 50_000,
  maxBytes: 64 * 1024 * 1024,
  maxResultBytes: 256 * 1024,
});

/**
 * Heap cost of a record besides 2 bytes per character of its strings: Map slot, row, outcome,
 * expiry slot, boxed numbers. Measured (--expose-gc, 100,000 keys): 935 B of heap per key with a
 * 67-character id and an empty result, which this counts as 1,100 B (docs/robustness.md).
 */
export const RECORD_OVERHEAD_BYTES = 800;

/** Bytes a record is counted for: fixed overhead plus 2 bytes per UTF-16 unit of each string (an upper bound). */
export function recordBytes(id: string, requestHash: string, outcome: StoredOutcome | undefined): number {
  const text = outcome === undefined ? 0 : outcome.json.length + (outcome.summary?.length ?? 0);
  return RECORD_OVERHEAD_BYTES + 2 * (id.length + requestHash.length + text);
}

/** A record, what it is counted for, and when its call started, in one object. */
interface Row extends IdempotencyRecord {
  bytes: number;
  startedAt: number;
}

export class MemoryIdempotencyBackend implements IdempotencyBackend {
  readonly limits: StoreLimits;
  /** Records live and die with this process. */
  readonly shared = false;
  readonly #now: () => number;
  readonly #rows = new Map<string, Row>();
  /** Ids in the order their expiry was set; with one TTL that is expiry order. */
  #queue: { id: string; expiresAt: number }[] = [];
  #head = 0;
  #bytes = 0;
  #inProgress = 0;

  constructor(options: MemoryBackendOptions = {}) {
    this.limits = {
      ttlMs: options.ttlMs ?? 24 * 60 * 60 * 1000,
      maxKeys: options.maxKeys ?? MEMORY_BOUNDS.maxKeys,
      maxBytes: options.maxBytes ?? MEMORY_BOUNDS.maxBytes,
      maxResultBytes: options.maxResultBytes ?? MEMORY_BOUNDS.maxResultBytes,
      // A call and its record live in one process: its outcome arrives within its budget.
      settleMs: 0,
    };
    this.#now = options.now ?? Date.now;
  }

  async claim(id: string, requestHash: string): Promise<ClaimResult> {
    this.#purge();
    const row = this.#rows.get(id);
    if (row !== undefined) {
      if (row.requestHash !== requestHash) return { status: "mismatch" };
      if (row.outcome === undefined) return { status: "in_progress", ageMs: this.#now() - row.startedAt };
      return { status: "done", outcome: row.outcome, expiresAt: row.expiresAt };
    }
    const bytes = recordBytes(id, requestHash, undefined);
    if (!this.#fits(bytes)) return { status: "full", retryAt: this.#nextExpiry() };
    // In memory a claim always ends in complete() or release() (the runner's finally), so a
    // record in progress needs no expiry; a shared backend would give it a lease instead.
    this.#rows.set(id, {
      requestHash,
      outcome: undefined,
      expiresAt: Number.POSITIVE_INFINITY,
      bytes,
      startedAt: this.#now(),
    });
    this.#bytes += bytes;
    this.#inProgress += 1;
    return { status: "claimed" };
  }

  async complete(id: string, outcome: StoredOutcome): Promise<void> {
    const row = this.#rows.get(id);
    if (row === undefined || row.outcome !== undefined) return;
    this.#inProgress -= 1;
    const expiresAt = this.#now() + this.limits.ttlMs;
    const bytes = recordBytes(id, row.requestHash, outcome);
    this.#bytes += bytes - row.bytes;
    this.#rows.set(id, { ...row, outcome, expiresAt, bytes });
    this.#queue.push({ id, expiresAt });
  }

  async release(id: string): Promise<void> {
    const row = this.#rows.get(id);
    if (row === undefined || row.outcome !== undefined) return;
    this.#inProgress -= 1;
    this.#delete(id, row);
  }

  /** Exactly the claim's own bound check, without claiming: in memory the room is known. */
  async readiness(id: string, requestHash: string): Promise<Readiness> {
    this.#purge();
    if (this.#fits(recordBytes(id, requestHash, undefined))) return { status: "ready", room: "checked" };
    return { status: "full", retryAt: this.#nextExpiry() };
  }

  /**
   * Whether one more record of `bytes` fits. IMPORTANT: every record in progress may still grow to
   * maxResultBytes: reserve that much, so that the records already admitted can always be completed.
   */
  #fits(bytes: number): boolean {
    const reserved = (this.#inProgress + 1) * this.limits.maxResultBytes;
    return this.#rows.size < this.limits.maxKeys && this.#bytes + bytes + reserved <= this.limits.maxBytes;
  }

  async lookup(id: string): Promise<IdempotencyRecord | undefined> {
    this.#purge();
    const row = this.#rows.get(id);
    return row === undefined
      ? undefined
      : { requestHash: row.requestHash, outcome: row.outcome, expiresAt: row.expiresAt };
  }

  stats(): StoreStats {
    this.#purge();
    return { keys: this.#rows.size, bytes: this.#bytes, inProgress: this.#inProgress, ...this.limits };
  }

  health(): StoreHealth {
    return { store: "memory", status: "ok" };
  }

  #delete(id: string, row: Row): void {
    this.#rows.delete(id);
    this.#bytes -= row.bytes;
  }

  /** Drop every record whose TTL has passed; O(1) amortised (the queue is in expiry order). */
  #purge(): void {
    const now = this.#now();
    while (this.#head < this.#queue.length && this.#queue[this.#head]!.expiresAt <= now) {
      const { id, expiresAt } = this.#queue[this.#head]!;
      this.#head += 1;
      const row = this.#rows.get(id);
      // A stale slot (the key expired, was claimed again and completed later) is skipped.
      if (row !== undefined && row.expiresAt === expiresAt) {
        this.#delete(id, row);
      }
    }
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
  }

  /** When the oldest completed record expires (the earliest moment room can appear). */
  #nextExpiry(): number | undefined {
    for (let i = this.#head; i < this.#queue.length; i++) {
      const { id, expiresAt } = this.#queue[i]!;
      const row = this.#rows.get(id);
      if (row !== undefined && row.expiresAt === expiresAt) return expiresAt;
    }
    return undefined;
  }
}
