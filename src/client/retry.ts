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

/**
 * The longest wait an upstream can name (interface.md §9b): five of the platform's one-minute windows.
 * A longer, negative or unreadable value is absurd: it is replaced by this cap (and the client logs it
 * once), so no single answer can close a company's gate for long.
 */
export const MAX_UPSTREAM_WAIT_MS = 5 * 60_000;

/** Numbers from here on are epoch seconds rather than a delay (some gateways send those)... */
const EPOCH_SECONDS = 1_000_000_000;
/** ...and from here on epoch milliseconds (read as seconds they would name the year 58000). */
const EPOCH_MILLISECONDS = 1_000_000_000_000;

/** A wait an upstream header named, within the cap; `absurd` holds the header's text when the cap replaced it. */
export interface UpstreamWait {
  ms: number;
  absurd?: string;
}

/** `ms` within [0, cap]: a value beyond the cap, or not a number, is replaced by the cap and marked absurd. */
function bounded(ms: number, raw: string): UpstreamWait {
  if (!Number.isFinite(ms) || ms > MAX_UPSTREAM_WAIT_MS) return { ms: MAX_UPSTREAM_WAIT_MS, absurd: raw };
  return { ms: Math.max(0, Math.ceil(ms)) };
}

/**
 * A number of a wait header: seconds (a fraction allowed), epoch seconds or epoch milliseconds. A
 * moment in the past is no wait, unless it is further back than the cap (then it is no clock's).
 */
function numericWait(n: number, nowMs: number, raw: string): UpstreamWait {
  if (n < EPOCH_SECONDS) return bounded(n * 1000, raw);
  const at = n >= EPOCH_MILLISECONDS ? n : n * 1000;
  if (at < nowMs - MAX_UPSTREAM_WAIT_MS) return { ms: MAX_UPSTREAM_WAIT_MS, absurd: raw };
  return bounded(at - nowMs, raw);
}

/**
 * `ratelimit-reset` / `Request-Call-Limit-Reset` / `Retry-After` text as a bounded wait: a number
 * (see numericWait) or, where `httpDate`, an HTTP-date; undefined when blank. Anything else (negative,
 * "soon") is absurd: the cap.
 */
function readWait(raw: string | undefined, nowMs: number, httpDate: boolean): UpstreamWait | undefined {
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (text === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return numericWait(Number(text), nowMs, text);
  if (httpDate && HTTP_DATE.test(text)) {
    // asctime has no zone: it is GMT (RFC 9110 §5.6.7).
    const date = Date.parse(/GMT$/.test(text) ? text : `${text} GMT`);
    if (!Number.isNaN(date)) return bounded(date - nowMs, text);
  }
  return { ms: MAX_UPSTREAM_WAIT_MS, absurd: text };
}

/** `ratelimit-reset` / `Request-Call-Limit-Reset` in ms from `nowMs`, within the cap (undefined when absent). */
export function parseResetSeconds(raw: string | undefined, nowMs: number): number | undefined {
  return readWait(raw, nowMs, false)?.ms;
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
 * `Retry-After` per RFC 9110 §10.2.3 (delay-seconds or an HTTP-date; epoch seconds or milliseconds
 * too), in ms from `nowMs`, within the cap (interface.md §9b); undefined when blank.
 */
export function parseRetryAfterHeader(raw: string, nowMs: number): number | undefined {
  return readWait(raw, nowMs, true)?.ms;
}

/**
 * How long the server asked to wait, with the header's text when it was absurd: the first readable
 * of `Retry-After` (RFC 9110), `ratelimit-reset`, `Request-Call-Limit-Reset` (any case); when only
 * absurd ones were sent, the cap.
 */
export function upstreamWait(
  headers: Readonly<Record<string, string | undefined>>,
  nowMs: number,
): UpstreamWait | undefined {
  const waits = [
    readWait(header(headers, "retry-after"), nowMs, true),
    readWait(header(headers, "ratelimit-reset"), nowMs, false),
    readWait(header(headers, "request-call-limit-reset"), nowMs, false),
  ];
  return waits.find((w) => w !== undefined && w.absurd === undefined) ?? waits.find((w) => w !== undefined);
}

/** How long the server asked to wait, in ms within the cap (see upstreamWait). */
export function parseRetryAfter(
  headers: Readonly<Record<string, string | undefined>>,
  nowMs: number,
): number | undefined {
  return upstreamWait(headers, nowMs)?.ms;
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
