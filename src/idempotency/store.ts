/**
 * Idempotent writes with Stripe's semantics: the first outcome under a key is kept for the TTL
 * and returned to every retry; the same key with other arguments is refused; a key whose first
 * call is still running is answered "in progress, retry later" and never causes a second write,
 * until the call's time budget has passed since it started: then its outcome is unknown (its
 * server stopped mid-call) and the answer says to check the upstream.
 * Keys live in a namespace (one per tenant) and a scope (the tool).
 * `IdempotencyStore.run` holds the semantics; `peek` reads what `run` would meet, touching nothing
 * (a dry run); an `IdempotencyBackend` only keeps records (the in-memory one in memory.ts, the
 * shared one in redis.ts; both implement types.ts).
 * IMPORTANT: a key is released only when the call provably wrote nothing (refused before sending,
 * refused by the API, or never sent); any other failure is kept as "outcome unknown" so that a
 * retry cannot create a second entry. A backend that cannot answer refuses the write (fail closed).
 */
import { createHash } from "node:crypto";
import {
  ApiError,
  BeforeSendSignal,
  ERROR_CODES,
  NotConfirmedError,
  UserInputError,
} from "../errors/api-error.js";
import { scrubText } from "../errors/redact.js";
import type { SecretScope } from "../errors/secret.js";
import { type Logger, silentLogger } from "../telemetry/logger.js";
import { type MemoryBackendOptions, MemoryIdempotencyBackend } from "./memory.js";
import {
  type ClaimResult,
  type IdempotencyBackend,
  type Readiness,
  recordId,
  type StoredOutcome,
  StoreError,
  type StoreFailure,
  type StoreStats,
} from "./types.js";

/** The longest a write runs by default: the client's 50 s budget plus one 30 s token request. */
export const DEFAULT_CALL_BUDGET_MS = 80_000;

export interface IdempotencyOptions extends MemoryBackendOptions {
  /** Default: a MemoryIdempotencyBackend built from the other options. */
  backend?: IdempotencyBackend;
  /** Tenant namespace; keys of two namespaces never meet. Default "default". */
  namespace?: string;
  /**
   * The longest the write may run (the upstream client's whole budget, src/client/retry.ts
   * `longestCallMs`). A record still in progress this long after its call started (plus the
   * backend's `settleMs`) has lost its call: its outcome is unknown. Default DEFAULT_CALL_BUDGET_MS.
   */
  callBudgetMs?: number;
  /**
   * The backend holds this tenant's share only (memory with MCP_TENANTS_FILE): a refusal names the
   * tenant's own use and nothing that depends on the other tenants (not even the share's size).
   */
  tenantShare?: boolean;
  logger?: Logger;
  /** The tenant's secrets, that a kept failure is scrubbed with (default: every secret of the process). */
  secrets?: SecretScope;
}

/** Failures that are the API's answer refusing the request: nothing was written. */
const REFUSED = new Set<string>([
  ERROR_CODES.VALIDATION,
  ERROR_CODES.NOT_FOUND,
  ERROR_CODES.FORBIDDEN,
  ERROR_CODES.AUTH,
  ERROR_CODES.CONFLICT,
  ERROR_CODES.RATE_LIMITED,
]);
/** Failures without an answer; the client marks each one that may have reached the API `outcome: "unknown"`. */
const UNANSWERED = new Set<string>([ERROR_CODES.NETWORK, ERROR_CODES.TIMEOUT, ERROR_CODES.CANCELLED]);

/**
 * True when `error` proves the write was not applied. The client's contract (src/client/http.ts):
 * a POST failure after any byte may have left carries `details.outcome: "unknown"`; a failure at
 * the token endpoint (`details.endpoint: "token"`) happened before the write was sent.
 */
export function provablyNotWritten(error: unknown): boolean {
  // A BeforeSendSignal (a confirmation round under --confirm-writes) is thrown before anything is sent.
  if (
    error instanceof UserInputError ||
    error instanceof NotConfirmedError ||
    error instanceof BeforeSendSignal
  )
    return true;
  if (!(error instanceof ApiError)) return false;
  const details = (error.details ?? {}) as { outcome?: unknown; endpoint?: unknown };
  if (details.outcome === "unknown") return false;
  if (details.endpoint === "token") return true;
  return REFUSED.has(error.code) || UNANSWERED.has(error.code);
}

/** JSON with object keys sorted and undefined members dropped: equal requests, equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** SHA-256 hex of the canonical request. */
export function requestHash(scope: string, request: unknown): string {
  return createHash("sha256").update(canonicalJson({ scope, request })).digest("hex");
}

/** The answer to a key reused with other arguments: by a keyed write, and by its dry run. */
export const keyReusedError = (key: string) =>
  new UserInputError(
    `idempotency_key "${key}" was already used for a different request; use a new key for a new write`,
    { idempotency_key: key },
  );

/**
 * What a keyed write would meet now (`IdempotencyStore.peek`): no record, a record of another
 * request, a first call that has not reported an outcome (still running, or, past its budget,
 * unknown: `run` tells them apart by age, which a lookup does not return), a kept result (`value`
 * absent when only its `summary` was kept), a kept ambiguous failure, or a store that did not answer.
 */
export type KeyState =
  /** `room`: whether the store could tell it has room for the claim (memory can; Redis via INFO). */
  | { state: "unused"; room: "checked" | "not_checked" }
  | { state: "mismatch" }
  | { state: "in_progress" }
  | { state: "done"; value: unknown; summary: string | undefined; expiresAt: number }
  | { state: "failed"; message: string; expiresAt: number }
  /** `reason`: the refusal a keyed write would get now (store unreachable, too slow, full, corrupt record). */
  | { state: "unavailable"; reason: string };

const refusal = (message: string, retryable: boolean, details: Record<string, unknown>) =>
  new ApiError({ code: ERROR_CODES.IDEMPOTENCY, message, retryable, details });

const MIB = 1024 * 1024;

/** The agent's line for each way a backend can fail, and whether a retry may succeed. */
const FAILURES: Record<Exclude<StoreFailure, "corrupt">, { text: string; retryable: boolean }> = {
  timeout: {
    text: "the idempotency store did not answer in time, so this keyed write was refused and nothing was sent; retry in a few seconds with the same idempotency_key, or send it without idempotency_key (no duplicate protection)",
    retryable: true,
  },
  unavailable: {
    text: "the idempotency store cannot be reached, so this keyed write was refused and nothing was sent; retry later, or send it without idempotency_key (no duplicate protection)",
    retryable: true,
  },
  full: {
    text: "the idempotency store is out of memory (Redis reached its maxmemory), so this keyed write was refused and nothing was sent; retrying will not help until an operator frees room: ask them, or send it without idempotency_key (no duplicate protection)",
    retryable: false,
  },
  misconfigured: {
    text: "the idempotency store could evict records (Redis's maxmemory-policy is not noeviction), so keyed writes are refused and nothing was sent; retrying will not help until an operator sets it to noeviction: ask them, or send it without idempotency_key (no duplicate protection)",
    retryable: false,
  },
};

export class IdempotencyStore {
  readonly backend: IdempotencyBackend;
  readonly #namespace: string;
  readonly #logger: Logger;
  readonly #secrets: SecretScope | undefined;
  readonly #unknownAfterMs: number;
  readonly #tenantShare: boolean;
  #warnedFull = false;

  constructor(options: IdempotencyOptions = {}) {
    this.backend = options.backend ?? new MemoryIdempotencyBackend(options);
    this.#namespace = options.namespace ?? "default";
    this.#logger = options.logger ?? silentLogger;
    this.#secrets = options.secrets;
    this.#unknownAfterMs = (options.callBudgetMs ?? DEFAULT_CALL_BUDGET_MS) + this.backend.limits.settleMs;
    this.#tenantShare = options.tenantShare ?? false;
  }

  /** Whether a retry after this process dies is still protected (records shared in Redis). */
  get shared(): boolean {
    return this.backend.shared;
  }

  /**
   * Run `write` at most once per (scope, key) within the TTL. `request` is what would be sent
   * (hashed, never kept). `summarize` names the written record in one line, kept in place of a
   * result too large to keep. Returns the outcome and whether it is a replay.
   */
  async run<T>(
    scope: string,
    key: string,
    request: unknown,
    write: () => Promise<T>,
    summarize: (value: T) => string = () => "the write succeeded",
  ): Promise<{ value: T; replayed: boolean }> {
    const id = recordId(this.#namespace, scope, key);
    const hash = requestHash(scope, request);
    let claim: ClaimResult;
    try {
      claim = await this.backend.claim(id, hash);
    } catch (error) {
      throw this.#failed(key, error);
    }
    switch (claim.status) {
      case "mismatch":
        throw keyReusedError(key);
      case "in_progress":
        if (claim.ageMs > this.#unknownAfterMs) throw unknownOutcome(key, claim.ageMs);
        throw refusal(
          `the first call with idempotency_key "${key}" is still running, so nothing was sent; retry in a few seconds with the same key to get its result`,
          true,
          { idempotency_key: key, state: "in_progress" },
        );
      case "full":
        throw this.#full(key, claim.retryAt);
      case "done":
        return { value: replay<T>(key, claim.outcome), replayed: true };
      case "claimed":
        return { value: await this.#first(id, write, summarize), replayed: false };
    }
  }

  /**
   * What `run` would meet for this key and request, read only: it never claims, completes or
   * releases a key, so a dry run cannot consume one. A store that does not answer is a state too.
   */
  async peek(scope: string, key: string, request: unknown): Promise<KeyState> {
    const id = recordId(this.#namespace, scope, key);
    let record: Awaited<ReturnType<IdempotencyBackend["lookup"]>>;
    try {
      record = await this.backend.lookup(id);
    } catch (error) {
      return { state: "unavailable", reason: this.#failed(key, error).message };
    }
    if (record === undefined) return this.#readiness(key, id, requestHash(scope, request));
    if (record.requestHash !== requestHash(scope, request)) return { state: "mismatch" };
    const { outcome, expiresAt } = record;
    if (outcome === undefined) return { state: "in_progress" };
    if (!outcome.ok) {
      const { message } = JSON.parse(outcome.json) as { message: string };
      return { state: "failed", message, expiresAt };
    }
    const value = outcome.json === "" ? undefined : (JSON.parse(outcome.json) as unknown);
    return { state: "done", value, summary: outcome.summary, expiresAt };
  }

  /** An unused key: whether a claim would be taken now (room and health), as `run` would be answered. */
  async #readiness(key: string, id: string, hash: string): Promise<KeyState> {
    let ready: Readiness;
    try {
      ready = await this.backend.readiness(id, hash);
    } catch (error) {
      return { state: "unavailable", reason: this.#failed(key, error).message };
    }
    if (ready.status === "ready") return { state: "unused", room: ready.room };
    const refused = ready.status === "full" ? this.#full(key, ready.retryAt) : this.#failed(key, ready.error);
    return { state: "unavailable", reason: refused.message };
  }

  /** Counts and bytes of the backend (docs/robustness.md). */
  stats(): StoreStats {
    return this.backend.stats();
  }

  async #first<T>(id: string, write: () => Promise<T>, summarize: (value: T) => string): Promise<T> {
    let value: T;
    try {
      value = await write();
    } catch (error) {
      if (provablyNotWritten(error)) await this.backend.release(id);
      else await this.backend.complete(id, { ok: false, json: failureJson(error, this.#secrets) });
      throw error;
    }
    const json = JSON.stringify(value) ?? "null";
    const fits = 2 * json.length <= this.backend.limits.maxResultBytes;
    await this.backend.complete(
      id,
      fits ? { ok: true, json } : { ok: true, json: "", summary: summarize(value) },
    );
    return value;
  }

  /** The refusal for a backend that could not answer: its own message per failure, never a guess. */
  #failed(key: string, error: unknown): ApiError {
    const kind: StoreFailure = error instanceof StoreError ? error.kind : "unavailable";
    if (kind === "corrupt") {
      this.#logger.error("idempotency record is corrupt: keyed writes with this key are refused", {
        reason: (error as Error).message,
      });
      return refusal(
        `the idempotency record of idempotency_key "${key}" cannot be read (it is corrupt), so nothing was sent and whether the first call wrote is unknown: check the upstream before writing again, and use a new idempotency_key`,
        false,
        { idempotency_key: key, state: "corrupt" },
      );
    }
    // The backend logs its own state changes (once each); an unexpected error is logged here.
    if (!(error instanceof StoreError)) this.#logger.error("idempotency store unavailable", { error });
    const { text, retryable } = FAILURES[kind];
    return refusal(text, retryable, { idempotency_key: key, state: kind });
  }

  #full(key: string, retryAt: number | undefined): ApiError {
    const s = this.backend.stats();
    const mib = (bytes: number) => (bytes / MIB).toFixed(1);
    const kept = `each kept ${Math.round(s.ttlMs / 3_600_000)} h`;
    // A tenant's share: its own use only (the share's size would tell how many tenants there are).
    const holding = this.#tenantShare
      ? `your share is used up: ${s.keys} keys, ${mib(s.bytes)} MiB, ${kept}`
      : `${s.keys} keys, ${mib(s.bytes)} of ${(s.maxBytes / MIB).toFixed(0)} MiB, ${kept}`;
    if (!this.#warnedFull) {
      this.#warnedFull = true;
      this.#logger.warn("idempotency store full: keyed writes are refused until keys expire", { ...s });
    }
    const when =
      retryAt === undefined ? "once calls in progress finish" : `after ${new Date(retryAt).toISOString()}`;
    const counts = this.#tenantShare
      ? { keys: s.keys, bytes: s.bytes }
      : { keys: s.keys, maxKeys: s.maxKeys, bytes: s.bytes, maxBytes: s.maxBytes };
    return refusal(
      `the idempotency store is full (${holding}), so this keyed write was refused and nothing was sent; retry ${when}, or send it without idempotency_key (no duplicate protection)`,
      false,
      { idempotency_key: key, state: "full", ...counts },
    );
  }
}

/** The kept part of an ambiguous failure, scrubbed now (a token may be forgotten before the replay). */
function failureJson(error: unknown, secrets: SecretScope | undefined): string {
  if (!(error instanceof ApiError)) {
    const name = error instanceof Error ? error.name : typeof error;
    return JSON.stringify({ code: ERROR_CODES.UPSTREAM, message: `unexpected ${scrubText(name, secrets)}` });
  }
  const kept = {
    code: error.code,
    status: error.status,
    message: scrubText(error.message, secrets),
    request: error.request,
  };
  const details = scrubText(JSON.stringify(error.details ?? null), secrets);
  return JSON.stringify(details.length <= 4096 ? { ...kept, details: JSON.parse(details) as unknown } : kept);
}

/** A first call that never reported an outcome within its budget: its server died mid-call. */
function unknownOutcome(key: string, ageMs: number): ApiError {
  return refusal(
    `outcome unknown: check the upstream before writing again. The first call with idempotency_key "${key}" started ${Math.round(ageMs / 1000)} s ago and never reported an outcome (the server running it likely stopped mid-call); nothing was sent now. If the record is missing upstream, write it with a new idempotency_key`,
    false,
    { idempotency_key: key, state: "unknown" },
  );
}

function replay<T>(key: string, outcome: StoredOutcome): T {
  if (outcome.ok && outcome.json !== "") return JSON.parse(outcome.json) as T;
  if (outcome.ok) {
    throw refusal(
      `the first call with idempotency_key "${key}" succeeded (${outcome.summary ?? "written"}); its full result was too large to keep, and nothing new was written: look the record up instead of repeating the call`,
      false,
      { idempotency_key: key, state: "done" },
    );
  }
  const first = JSON.parse(outcome.json) as {
    code: ApiError["code"];
    status?: number;
    message: string;
    details?: unknown;
    request?: ApiError["request"];
  };
  const d = first.details;
  const details =
    d !== null && typeof d === "object" && !Array.isArray(d)
      ? { ...d, outcome: "unknown" }
      : { first: d, outcome: "unknown" };
  throw new ApiError({
    status: first.status,
    code: first.code,
    retryable: false,
    request: first.request,
    details,
    message: `the first call with idempotency_key "${key}" ended without a confirmed outcome (${first.message}); nothing new was sent: check whether the record exists before retrying with a new key`,
  });
}
