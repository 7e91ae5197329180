import { describe, expect, it } from "vitest";
import {
  backoffDelay,
  decideRetry,
  type Failure,
  parseRetryAfter,
  type RetryOptions,
} from "../../src/client/retry.js";

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
    [{ "Retry-After": "1.5" }, 1500],
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

describe("backoffDelay", () => {
  it("is full jitter under a doubling, capped ceiling", () => {
    expect(backoffDelay(0, options, () => 0.999)).toBe(499);
    expect(backoffDelay(3, options, () => 0.5)).toBe(2000);
    expect(backoffDelay(10, options, () => 0.999)).toBe(7992);
    expect(backoffDelay(2, options, () => 0)).toBe(0);
  });
});
