/**
 * One write under an idempotency key, on any `IdempotencyBackend` (Redis today): claim, write once,
 * keep the outcome; the same semantics as the in-memory store's `run`, across replicas and restarts.
 * IMPORTANT: a key is released only when `wroteNothing(error)` proves the call wrote nothing; any other
 * failure is kept as the key's outcome, so a retry can never write a second time.
 */
import { ApiError, ERROR_CODES, UserInputError } from "../errors/api-error.js";
import type { Logger } from "../logger.js";
import type { IdempotencyBackend } from "./redis-idempotency.js";

/** What is kept under a key: the value of a write, or a summary of its ambiguous failure. */
type StoredOutcome =
  | { ok: true; value: unknown }
  | { ok: false; error: { code: string; status?: number | undefined; message: string } };

export interface IdempotentRunOptions {
  /** True when `error` proves nothing was written upstream (the API refused, the user declined). */
  wroteNothing(error: unknown): boolean;
  logger?: Logger | undefined;
  now?: () => number;
}

function summary(error: unknown): StoredOutcome {
  if (error instanceof ApiError)
    return { ok: false, error: { code: error.code, status: error.status, message: error.message } };
  return { ok: false, error: { code: "UNKNOWN", message: "the call failed without an upstream answer" } };
}

function replay(key: string, stored: StoredOutcome | undefined, omitted: string | undefined): unknown {
  if (stored?.ok === true) return stored.value;
  if (stored?.ok === false)
    throw new ApiError({
      status: stored.error.status,
      code: (Object.values(ERROR_CODES) as string[]).includes(stored.error.code)
        ? (stored.error.code as ApiError["code"])
        : ERROR_CODES.UPSTREAM,
      message: `the first call with idempotency_key "${key}" ended without a confirmed outcome (${stored.error.message}); check whether the entry exists before retrying with a new key`,
      details: { idempotency_key: key },
    });
  throw new ApiError({
    code: ERROR_CODES.CONFLICT,
    message: `the first call with idempotency_key "${key}" already succeeded, but its result was not kept (${omitted ?? "no outcome stored"}); look the entry up instead of retrying`,
    details: { idempotency_key: key },
  });
}

/**
 * Run `write` at most once per (scope, key) across every replica sharing `backend`. Returns the first
 * outcome and whether this call replayed it. Throws UserInputError when the key was used for another
 * request, ApiError (retryable) while the first call still runs or when the store is unreachable
 * (then `write` is not called).
 */
export async function runIdempotent<T>(
  backend: IdempotencyBackend,
  scope: string,
  key: string,
  requestHash: string,
  write: () => Promise<T>,
  options: IdempotentRunOptions,
): Promise<{ value: T; replayed: boolean }> {
  const claim = await backend.claim(scope, key, requestHash);
  switch (claim.kind) {
    case "conflict":
      throw new UserInputError(
        `idempotency_key "${key}" was already used for a different request; use a new key for a new entry`,
        { idempotency_key: key },
      );
    case "in_progress": {
      const seconds = Math.max(0, Math.round(((options.now ?? Date.now)() - claim.startedAt) / 1000));
      throw new ApiError({
        code: ERROR_CODES.CONFLICT,
        retryable: true,
        message: `the first call with idempotency_key "${key}" is still in progress (started ${seconds} s ago); retry later with the same key: nothing new was written`,
        details: { idempotency_key: key, state: "in_progress" },
      });
    }
    case "replay":
      return {
        value: replay(key, claim.outcome as StoredOutcome | undefined, claim.omitted) as T,
        replayed: true,
      };
  }
  let value: T;
  try {
    value = await write();
  } catch (error) {
    if (options.wroteNothing(error)) await backend.release(scope, key, claim.claim);
    else await record(backend, scope, key, claim.claim, summary(error), options.logger);
    throw error;
  }
  await record(backend, scope, key, claim.claim, { ok: true, value }, options.logger);
  return { value, replayed: false };
}

async function record(
  backend: IdempotencyBackend,
  scope: string,
  key: string,
  claim: string,
  outcome: StoredOutcome,
  logger: Logger | undefined,
): Promise<void> {
  if (await backend.complete(scope, key, claim, outcome)) return;
  // The write is done; only its record is missing: retries see "in progress" until the key expires.
  logger?.warn("idempotency outcome not recorded; retries with this key are refused until it expires", {
    scope,
  });
}
