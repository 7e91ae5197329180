import { describe, expect, it } from "vitest";
import {
  backoffDelay,
  DEFAULT_RETRY,
  decideRetry,
  type Failure,
  longestWriteMs,
  MAX_UPSTREAM_WAIT_MS,
  parseRetryAfter,
  type RetryOptions,
} from "../../src/client/retry.js";
import { FAILURE_CODES, failureCode } from "../../src/errors/failure-codes.js";
import { transportError } from "../../src/errors/normalize.js";

const options: RetryOptions = {
  maxRetries: 3,
  totalBudgetMs: 50_000,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  minAttemptMs: 500,
};
const status = (s: number, headers: Record<string, string> = {}): Failure => ({
  kind: "status",
  status: s,
  headers,
});
const transport = (code: string): Failure => ({ kind: "transport", code });
const decide = (
  method: string,
  failure: Failure,
  extra: { retriesDone?: number; remainingMs?: number } = {},
) =>
  decideRetry(
    {
      method,
      failure,
      retriesDone: extra.retriesDone ?? 0,
      remainingMs: extra.remainingMs ?? 40_000,
      nowMs: 0,
      random: () => 0.5,
    },
    options,
  );

describe("decideRetry", () => {
  it.each([
    ["GET", status(502), true],
    ["GET", status(503), true],
    ["GET", status(504), true],
    ["GET", status(500), false],
    ["GET", status(404), false],
    ["GET", status(422), false],
    ["GET", status(408), false],
    ["GET", status(401), false],
    ["GET", transport("ECONNRESET"), true],
    ["GET", transport("UND_ERR_SOCKET"), true],
    ["GET", transport("TIMEOUT"), true],
    ["GET", transport("ECONNREFUSED"), true],
    ["GET", transport("ENOTFOUND"), false],
    ["GET", transport("CERT_HAS_EXPIRED"), false],
    ["POST", status(502), false],
    ["POST", status(503), false],
    ["POST", status(408), false],
    ["POST", transport("ECONNRESET"), false],
    ["POST", transport("UND_ERR_SOCKET"), false],
    ["POST", transport("TIMEOUT"), false],
    ["POST", transport("ECONNREFUSED"), true],
    ["POST", transport("UND_ERR_CONNECT_TIMEOUT"), true],
  ] as const)("%s %j → retry %s", (method, failure, retry) => {
    expect(decide(method, failure).retry).toBe(retry);
  });

  it("says why a POST is not repeated", () => {
    expect(decide("POST", status(503))).toEqual({ retry: false, reason: "not-idempotent" });
    expect(decide("POST", status(408))).toEqual({ retry: false, reason: "not-retryable" });
  });

  it("stops after maxRetries", () => {
    expect(decide("GET", status(503), { retriesDone: 3 })).toEqual({
      retry: false,
      reason: "retries-exhausted",
    });
  });

  it("stops when the wait does not fit in the budget", () => {
    expect(decide("GET", status(503), { retriesDone: 3 - 1, remainingMs: 100 })).toEqual({
      retry: false,
      reason: "budget",
    });
  });

  it("honours Retry-After on 429 and 406 for GET, within the budget", () => {
    expect(decide("GET", status(429, { "Retry-After": "3" }))).toEqual({
      retry: true,
      delayMs: 3000,
      reason: "rate limited (HTTP 429)",
    });
    expect(decide("GET", status(406, { "ratelimit-reset": "2" }))).toMatchObject({
      retry: true,
      delayMs: 2000,
    });
    expect(decide("GET", status(429, { "retry-after": "60" }), { remainingMs: 10_000 })).toEqual({
      retry: false,
      reason: "budget",
      retryAfterMs: 60_000,
    });
  });

  it("gives up at once on a huge Retry-After and reports the capped wait (interface.md §9b)", () => {
    expect(decide("GET", status(429, { "retry-after": "1000000000" }))).toEqual({
      retry: false,
      reason: "budget",
      retryAfterMs: MAX_UPSTREAM_WAIT_MS,
    });
  });

  it("a negative or malformed Retry-After is absurd: the cap stands in, never 'retry now'", () => {
    for (const bad of ["-1", "-86400", "soon"])
      expect(decide("GET", status(429, { "retry-after": bad }))).toEqual({
        retry: false,
        reason: "budget",
        retryAfterMs: MAX_UPSTREAM_WAIT_MS,
      });
  });

  it("never repeats a rate-limited POST but reports the wait", () => {
    expect(decide("POST", status(429, { "retry-after": "5" }))).toEqual({
      retry: false,
      reason: "not-idempotent",
      retryAfterMs: 5000,
    });
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");
  it.each([
    [{ "retry-after": "7" }, 7000],
    // A fraction of a second is read; anything else unreadable, negative or beyond 5 minutes is
    // absurd and replaced by the cap (interface.md §9b), never "retry now".
    [{ "Retry-After": "1.5" }, 1500],
    [{ "retry-after": "-1" }, MAX_UPSTREAM_WAIT_MS],
    [{ "retry-after": "-5", "ratelimit-reset": "3" }, 3000],
    [{ "retry-after": "2025" }, MAX_UPSTREAM_WAIT_MS],
    [{ "retry-after": "Jan 1 2026" }, MAX_UPSTREAM_WAIT_MS],
    [{ "retry-after": "1e3" }, MAX_UPSTREAM_WAIT_MS],
    // Epoch seconds and milliseconds are moments; a moment further back than the cap is no clock's.
    [{ "retry-after": "1000000000" }, MAX_UPSTREAM_WAIT_MS],
    [{ "retry-after": String(now / 1000 + 20) }, 20_000],
    [{ "ratelimit-reset": String(now + 40_000) }, 40_000],
    [{ "retry-after": "9".repeat(400) }, MAX_UPSTREAM_WAIT_MS],
    // The other two HTTP-date forms (RFC 850, asctime), both GMT.
    [{ "retry-after": "Wednesday, 01-Jan-25 00:00:20 GMT" }, 20_000],
    [{ "retry-after": "Wed Jan  1 00:00:30 2025" }, 30_000],
    [{ "retry-after": "Wed, 01 Jan 2025 00:00:10 GMT" }, 10_000],
    [{ "retry-after": "Tue, 31 Dec 2024 00:00:10 GMT" }, 0],
    [{ "RateLimit-Reset": "4" }, 4000],
    [{ "Request-Call-Limit-Reset": "9" }, 9000],
    [{ "request-call-limit-reset": String(now / 1000 + 12) }, 12_000],
    [{ "retry-after": "soon", "ratelimit-reset": "2" }, 2000],
    [{}, undefined],
  ])("%j → %s", (headers, expected) => {
    expect(parseRetryAfter(headers, now)).toBe(expected);
  });
});

describe("the defaults leave room for the attempt after a wait", () => {
  // The shipped defaults, not a copy: a change to them must keep these properties.
  const defaults: RetryOptions = { ...DEFAULT_RETRY, maxRetries: 3 };
  const decideDefault = (failure: Failure, remainingMs: number, random = () => 0.5) =>
    decideRetry({ method: "GET", failure, retriesDone: 0, remainingMs, nowMs: 0, random }, defaults);

  it("has a minimum attempt time and a total budget below an MCP host's ~60 s", () => {
    expect(defaults.minAttemptMs).toBeGreaterThanOrEqual(250);
    expect(defaults.totalBudgetMs).toBeLessThan(60_000);
  });

  it("does not start a retry whose wait fits but whose attempt would not", () => {
    const wait = backoffDelay(0, defaults, () => 0.5);
    expect(decideDefault(status(503), wait + defaults.minAttemptMs)).toMatchObject({ retry: true });
    expect(decideDefault(status(503), wait + defaults.minAttemptMs - 1)).toEqual({
      retry: false,
      reason: "budget",
    });
    // Same for a server-told wait.
    const told = status(429, { "retry-after": "2" });
    expect(decideDefault(told, 2_000 + defaults.minAttemptMs)).toMatchObject({ retry: true, delayMs: 2_000 });
    expect(decideDefault(told, 2_000 + defaults.minAttemptMs - 1)).toMatchObject({
      retry: false,
      reason: "budget",
    });
  });

  it("reads an HTTP-date Retry-After against the injected wall clock, not the machine's", () => {
    const nowMs = Date.parse("2030-06-01T12:00:00Z");
    const told = status(429, { "retry-after": "Sat, 01 Jun 2030 12:00:03 GMT" });
    expect(
      decideRetry(
        { method: "GET", failure: told, retriesDone: 0, remainingMs: 40_000, nowMs, random: () => 0.5 },
        defaults,
      ),
    ).toMatchObject({ retry: true, delayMs: 3_000 });
  });
});

describe("longestWriteMs: how long a write can run (idempotency: when an unfinished call's outcome is unknown)", () => {
  const defaults = (maxRetries: number): RetryOptions => ({ ...DEFAULT_RETRY, maxRetries });
  it.each([
    // MMS_TIMEOUT_MS, MMS_MAX_RETRIES, bound: the 50 s budget plus one token request ...
    [30_000, 3, 80_000],
    [10_000, 1, 60_000],
    // ... or, with short timeouts, 2 x timeout per attempt (retries + the repeat after a challenge) and a wait between two.
    [3_000, 2, 4 * 6_000 + 3 * 8_000],
    [1_000, 0, 2 * 2_000 + 8_000],
  ])("timeout %i ms, %i retries: %i ms", (timeoutMs, maxRetries, bound) => {
    expect(longestWriteMs(timeoutMs, defaults(maxRetries))).toBe(bound);
  });
});

describe("backoffDelay", () => {
  it("is full jitter under a doubling, capped ceiling", () => {
    expect(backoffDelay(0, options, () => 0.999)).toBe(499);
    expect(backoffDelay(3, options, () => 0.5)).toBe(2000);
    expect(backoffDelay(10, options, () => 0.999)).toBe(7992);
    expect(backoffDelay(2, options, () => 0)).toBe(0);
  });
});

describe("one table of transport failure codes", () => {
  // The retry policy and the normaliser read the same table: for every code, a POST is repeated
  // only if it was never sent, and its error says "outcome unknown" exactly when it may have been.
  it.each(Object.keys(FAILURE_CODES).concat(["ESOMETHINGNEW"]))("%s: policy and normaliser agree", (code) => {
    const info = failureCode(code);
    const post = decide("POST", transport(code));
    const get = decide("GET", transport(code));
    const error = transportError({ code, message: "x", origin: "http://h", idempotent: false });
    const unknownOutcome = (error.details as { outcome?: string }).outcome === "unknown";
    expect(unknownOutcome).toBe(info?.neverSent !== true);
    expect(post.retry).toBe(info?.neverSent === true && info.transient);
    expect(get.retry).toBe(info?.transient === true);
    expect(error.code).toBe(info?.timeout ? "TIMEOUT" : "NETWORK");
  });

  it("ENOTFOUND: never sent (a POST is not in doubt) but not worth repeating", () => {
    expect(decide("POST", transport("ENOTFOUND"))).toEqual({ retry: false, reason: "not-retryable" });
    const error = transportError({ code: "ENOTFOUND", message: "x", origin: "http://h", idempotent: false });
    expect(error).toMatchObject({ retryable: false, details: { cause: "ENOTFOUND" } });
    expect(error.message).not.toContain("may or may not");
  });
});
