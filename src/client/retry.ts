/**
 * The retry policy as data and pure functions: which failures are repeated, after how long,
 * and when to give up. No I/O and no clock of its own (the caller passes `nowMs`/`remainingMs`
 * and `random`), so every rule is table-tested in test/unit/retry.test.ts.
 * IMPORTANT: a non-idempotent request (POST) is repeated only when it provably never reached
 * the server (connection refused / connect failure); 408 means "already exists" here, never retried.
 * Transport codes come from the one table in src/errors/failure-codes.ts.
 */
import { failureCode } from "../errors/failure-codes.js";

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

/**
 * The longest one write (POST) can run, from its start to its last byte (src/client/http.ts): its
 * total budget, plus one token request (its own `timeoutMs`) started just before the budget ran out,
 * as every exchange is cut to what is left of the budget. With few attempts it ends sooner: each
 * attempt (the retries of a POST that never left, and one repeat after an auth challenge) is at most
 * a token request and an exchange, with at most one backoff wait (never a Retry-After) before it.
 */
export function longestWriteMs(timeoutMs: number, options: RetryOptions): number {
  const attempts = options.maxRetries + 2;
  const byAttempts = attempts * 2 * timeoutMs + (attempts - 1) * options.maxDelayMs;
  return Math.min(options.totalBudgetMs + timeoutMs, byAttempts);
}

/** Statuses worth repeating for an idempotent request. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/** 429, and 406 which this API family uses for "requests per minute exceeded" (upstream-notes). */
export const RATE_LIMIT_STATUSES: ReadonlySet<number> = new Set([406, 429]);

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

/** A header by name, case-insensitively (undefined when absent). */
export function header(
  headers: Readonly<Record<string, string | undefined>>,
  name: string,
): string | undefined {
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === wanted && v !== undefined) return v;
  return undefined;
}

/** Values above this are absolute epoch seconds rather than a delta (some gateways send those). */
const EPOCH_THRESHOLD_S = 1_000_000_000;

/** `ratelimit-reset` / `Request-Call-Limit-Reset`: seconds (a fraction allowed) or epoch seconds. */
export function parseResetSeconds(raw: string | undefined, nowMs: number): number | undefined {
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  const n = Number(text);
  if (n >= EPOCH_THRESHOLD_S) return Math.max(0, n * 1000 - nowMs);
  return Math.ceil(n * 1000);
}

/** The three HTTP-date forms of RFC 9110 §5.6.7: IMF-fixdate, obsolete RFC 850, asctime. */
const HTTP_DATE = new RegExp(
  [
    /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
    /^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
    /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/,
  ]
    .map((r) => `(?:${r.source})`)
    .join("|"),
);

/**
 * `Retry-After` per RFC 9110 §10.2.3: delay-seconds (digits only) or an HTTP-date, in ms from
 * `nowMs`. Anything else (negative, fractional, "soon", a bare year) is treated as absent.
 * A huge delay stays huge: the caller gives up at once and reports the real wait.
 */
export function parseRetryAfterHeader(raw: string, nowMs: number): number | undefined {
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, Number.MAX_SAFE_INTEGER);
  if (!HTTP_DATE.test(text)) return undefined;
  // asctime has no zone: it is GMT (RFC 9110 §5.6.7).
  const date = Date.parse(/GMT$/.test(text) ? text : `${text} GMT`);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/**
 * How long the server asked to wait, in ms: `Retry-After` (RFC 9110), then `ratelimit-reset`,
 * then `Request-Call-Limit-Reset` (all read case-insensitively; a malformed one counts as absent).
 */
export function parseRetryAfter(
  headers: Readonly<Record<string, string | undefined>>,
  nowMs: number,
): number | undefined {
  const retryAfter = header(headers, "retry-after");
  const told = retryAfter === undefined ? undefined : parseRetryAfterHeader(retryAfter, nowMs);
  return (
    told ??
    parseResetSeconds(header(headers, "ratelimit-reset"), nowMs) ??
    parseResetSeconds(header(headers, "request-call-limit-reset"), nowMs)
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

  // Whether repeating could help at all, and whether it is safe for this method.
  let transient: boolean;
  let safe = idempotent;
  if (failure.kind === "status") {
    transient = RETRYABLE_STATUSES.has(failure.status);
  } else {
    const known = failureCode(failure.code);
    transient = known?.transient === true;
    safe ||= known?.neverSent === true;
  }
  if (!transient) return { retry: false, reason: "not-retryable" };
  if (!safe) return { retry: false, reason: "not-idempotent" };
  if (input.retriesDone >= options.maxRetries) return { retry: false, reason: "retries-exhausted" };
  const delayMs = backoffDelay(input.retriesDone, options, input.random);
  if (delayMs + options.minAttemptMs > input.remainingMs) return { retry: false, reason: "budget" };
  return { retry: true, delayMs, reason };
}
