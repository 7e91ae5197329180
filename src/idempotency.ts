/**
 * In-memory idempotency for writes: a retried call with the same key and the same request
 * returns the first outcome instead of writing twice. Shared by every session of the process.
 *
 * IMPORTANT: a key is released only after a failure that proves nothing was written (the API
 * refused the request, or the user declined); an ambiguous failure (timeout, reset, 5xx)
 * keeps the key so that a retry cannot create a second entry.
 */
import { ApiError, ERROR_CODES, UserInputError } from "./errors/api-error.js";

interface Entry {
  fingerprint: string;
  outcome: Promise<unknown>;
  expiresAt: number;
}

export interface IdempotencyOptions {
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

/** Failures after which the request certainly wrote nothing upstream. */
const DEFINITE_FAILURES = new Set<string>([
  ERROR_CODES.VALIDATION,
  ERROR_CODES.NOT_FOUND,
  ERROR_CODES.FORBIDDEN,
  ERROR_CODES.AUTH,
  ERROR_CODES.CONFLICT,
  ERROR_CODES.RATE_LIMITED,
  ERROR_CODES.SECURITY,
]);

function wroteNothing(error: unknown): boolean {
  // Local refusals (input, confirmation) happen before anything is sent.
  return error instanceof ApiError ? DEFINITE_FAILURES.has(error.code) : true;
}

/** The first attempt under this key failed without proof either way: say so, never write again. */
function ambiguousReplay(key: string, error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  return new ApiError({
    status: error.status,
    code: error.code,
    retryable: false,
    request: error.request,
    details: error.details,
    message: `the first call with idempotency_key "${key}" ended without a confirmed outcome (${error.message}); check whether the entry exists before retrying with a new key`,
  });
}

export class IdempotencyStore {
  readonly #entries = new Map<string, Entry>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: IdempotencyOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 24 * 60 * 60 * 1000;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Run `write` once per (scope, key). `fingerprint` identifies the request; the same key with
   * another fingerprint is refused. Returns the outcome and whether it is a replay.
   */
  async run<T>(
    scope: string,
    key: string,
    fingerprint: string,
    write: () => Promise<T>,
  ): Promise<{ value: T; replayed: boolean }> {
    this.#evict();
    const id = `${scope}\u0000${key}`;
    const existing = this.#entries.get(id);
    if (existing) {
      if (existing.fingerprint !== fingerprint) {
        throw new UserInputError(
          `idempotency_key "${key}" was already used for a different request; use a new key for a new entry`,
          { idempotency_key: key },
        );
      }
      try {
        return { value: (await existing.outcome) as T, replayed: true };
      } catch (error) {
        throw ambiguousReplay(key, error);
      }
    }
    const outcome = write();
    this.#entries.set(id, { fingerprint, outcome, expiresAt: this.#now() + this.#ttlMs });
    try {
      return { value: await outcome, replayed: false };
    } catch (error) {
      if (wroteNothing(error)) this.#entries.delete(id);
      throw error;
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  #evict(): void {
    const now = this.#now();
    for (const [id, entry] of this.#entries) {
      if (entry.expiresAt <= now) this.#entries.delete(id);
    }
    // Map keeps insertion order: drop the oldest beyond the cap.
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }
}
