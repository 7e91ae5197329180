/**
 * The retry policy as data and pure functions: which failures are repeated, after how long,
 * and when to give up. No I/O and no clock of its own (the caller passes `nowMs`/`remainingMs`
 * and `random`), so every rule is table-tested in test/unit/retry.test.ts.
 * IMPORTANT: a non-idempotent request (POST) is repeated only when it provably never reached
 * the server (connection refused / connect failure); 408 means "already exists" here, never retried.
 */

export interface RetryOptions {
  /** Retries after the first attempt (MMS_MAX_RETRIES). */
  maxRetries: number;
  /** Wall time one call may take, attempts and waits included. */
  totalBudgetMs: number;
  /** First backoff ceiling; doubles per retry (full jitter draws in [0, ceiling)). */
  baseDelayMs: number;
  /** Upper bound of the backoff ceiling. */
  maxDelayMs: number;
  /** A retry is only started when at least this much budget remains after the wait. */
  minAttemptMs: number;
}

/** Default total budget: below the ~60 s after which many MCP hosts give up on a tool call. */
export const DEFAULT_TOTAL_BUDGET_MS = 50_000;

export const DEFAULT_RETRY: Omit<RetryOptions, "maxRetries"> = Object.freeze({
  totalBudgetMs: DEFAULT_TOTAL_BUDGET_MS,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  minAttemptMs: 500,
});

/** Statuses worth repeating for an idempotent request. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/** 429, and 406 which this API family uses for "requests per minute exceeded" (upstream-notes). */
export const RATE_LIMIT_STATUSES: ReadonlySet<number> = new Set([406, 429]);

/** Transport failures after which the request may or may not have been processed. */
export const RETRYABLE_TRANSPORT_CODES: ReadonlySet<string> = new Set([
  "ECONNRESET",
  "EPIPE",
  "ECONNABORTED",
  "ETIMEDOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "TIMEOUT",
]);

/** Transport failures that happen before any byte of the request is sent. */
export const NEVER_SENT_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
]);

export type Failure =
  | { kind: "status"; status: number; headers: Readonly<Record<string, string | undefined>> }
  | { kind: "transport"; code: string };

export interface RetryInput {
  method: string;
  /** Defaults to `method === "GET" || method === "HEAD"`. */
  idempotent?: boolean;
  /** Retries already made for this call. */
  retriesDone: number;
  failure: Failure;
  /** Budget left, in ms. */
  remainingMs: number;
  /** Wall clock, for HTTP-date `Retry-After`. */
  nowMs: number;
  random: () => number;
}

export type RetryDecision =
  | { retry: true; delayMs: number; reason: string }
  | {
      retry: false;
      reason: "not-retryable" | "not-idempotent" | "retries-exhausted" | "budget";
      /** Set for rate limits: how long the server asked to wait. */
      retryAfterMs?: number | undefined;
    };

/** Full-jitter exponential backoff (AWS architecture blog): uniform in [0, min(max, base·2^n)). */
export function backoffDelay(retriesDone: number, options: RetryOptions, random: () => number): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retriesDone);
  return Math.floor(random() * ceiling);
}

function header(headers: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === wanted && v !== undefined) return v;
  return undefined;
}

/** Values above this are absolute epoch seconds rather than a delta (some gateways send those). */
const EPOCH_THRESHOLD_S = 1_000_000_000;

function parseSeconds(raw: string | undefined, nowMs: number): number | undefined {
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  const n = Number(text);
  if (n >= EPOCH_THRESHOLD_S) return Math.max(0, n * 1000 - nowMs);
  return Math.ceil(n * 1000);
}

/**
 * How long the server asked to wait, in ms: `Retry-After` (seconds or HTTP date), then
 * `ratelimit-reset`, then `Request-Call-Limit-Reset` (all read case-insensitively).
 */
export function parseRetryAfter(
  headers: Readonly<Record<string, string | undefined>>,
  nowMs: number,
): number | undefined {
  const retryAfter = header(headers, "retry-after");
  if (retryAfter !== undefined) {
    const secs = parseSeconds(retryAfter, nowMs);
    if (secs !== undefined) return secs;
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - nowMs);
  }
  return (
    parseSeconds(header(headers, "ratelimit-reset"), nowMs) ??
    parseSeconds(header(headers, "request-call-limit-reset"), nowMs)
  );
}

function describe(failure: Failure): string {
  return failure.kind === "status" ? `HTTP ${failure.status}` : failure.code;
}

/** Decide whether to repeat a failed attempt, and after how long. */
export function decideRetry(input: RetryInput, options: RetryOptions): RetryDecision {
  const { failure } = input;
  const idempotent = input.idempotent ?? (input.method === "GET" || input.method === "HEAD");
  const reason = describe(failure);

  if (failure.kind === "status" && RATE_LIMIT_STATUSES.has(failure.status)) {
    const told = parseRetryAfter(failure.headers, input.nowMs);
    const wait = told ?? backoffDelay(input.retriesDone, options, input.random);
    // A rate-limited POST was refused, but we still do not repeat writes on our own (STYLE.md).
    if (!idempotent) return { retry: false, reason: "not-idempotent", retryAfterMs: wait };
    if (input.retriesDone >= options.maxRetries)
      return { retry: false, reason: "retries-exhausted", retryAfterMs: wait };
    if (wait + options.minAttemptMs > input.remainingMs)
      return { retry: false, reason: "budget", retryAfterMs: wait };
    return { retry: true, delayMs: wait, reason: `rate limited (${reason})` };
  }

  let retryable: boolean;
  if (failure.kind === "status") {
    retryable = idempotent && RETRYABLE_STATUSES.has(failure.status);
  } else if (NEVER_SENT_CODES.has(failure.code)) {
    retryable = true;
  } else {
    retryable = idempotent && RETRYABLE_TRANSPORT_CODES.has(failure.code);
  }
  if (!retryable) {
    const maybe =
      failure.kind === "status"
        ? RETRYABLE_STATUSES.has(failure.status)
        : RETRYABLE_TRANSPORT_CODES.has(failure.code);
    return { retry: false, reason: !idempotent && maybe ? "not-idempotent" : "not-retryable" };
  }
  if (input.retriesDone >= options.maxRetries) return { retry: false, reason: "retries-exhausted" };
  const delayMs = backoffDelay(input.retriesDone, options, input.random);
  if (delayMs + options.minAttemptMs > input.remainingMs) return { retry: false, reason: "budget" };
  return { retry: true, delayMs, reason };
}
