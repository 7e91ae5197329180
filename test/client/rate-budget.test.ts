/**
 * The request budget on its own (src/client/rate-budget.ts, rate-budget-store.ts), on fake timers
 * (the window, the waits and the clock are all vi's): the share per rolling window, the reserve for
 * writes, writes ahead of reads, a write's 1 s limit, a read's deadline, the signal ending a wait,
 * what answers teach it (either header spelling, remaining, a 406 without headers).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RateBudget, rateLimitFacts } from "../../src/client/rate-budget.js";
import { allowance, MemoryBudgetStore } from "../../src/client/rate-budget-store.js";
import { MAX_UPSTREAM_WAIT_MS } from "../../src/client/retry.js";
import { ApiError } from "../../src/errors/api-error.js";

const WINDOW = 10_000;

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
});
afterEach(() => {
  vi.useRealTimers();
});

function budget(limit: number | undefined, share = 0.5) {
  return new RateBudget({
    store: new MemoryBudgetStore(() => Date.now()),
    limit,
    share,
    windowMs: WINDOW,
    now: () => Date.now(),
  });
}

/** Whether `promise` has settled, after letting pending microtasks run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe("allowance", () => {
  it.each([
    [200, 0.5, "write", 100],
    [200, 0.5, "read", 90],
    [200, 1, "read", 180],
    [10, 0.5, "write", 5],
    [10, 0.5, "read", 4],
    [2, 0.5, "read", 1],
    [1, 0.5, "write", 1],
    [1, 0.5, "read", 1],
  ] as const)("L=%i, share %d: %s gets %i per window", (limit, share, kind, expected) => {
    expect(allowance(limit, share, kind)).toBe(expected);
  });
});

describe("rateLimitFacts", () => {
  it.each([
    [{ "Request-Call-Limit": "200", "Request-Call-Limit-Remaining": "12", "Request-Call-Limit-Reset": "30" }],
    [{ "ratelimit-limit": "200", "ratelimit-remaining": "12", "ratelimit-reset": "30" }],
    [{ "RATELIMIT-LIMIT": "200", "RateLimit-Remaining": "12", "request-call-limit-reset": "30" }],
  ])("reads %j, in either spelling and any case", (headers) => {
    expect(rateLimitFacts(headers, Date.now())).toEqual({ limit: 200, remaining: 12, resetMs: 30_000 });
  });

  it("ignores what is absent or malformed; an absurd reset is the 5-minute cap (interface.md §9b)", () => {
    expect(rateLimitFacts({ "ratelimit-limit": "many", "ratelimit-reset": "-1" }, Date.now())).toEqual({
      resetMs: MAX_UPSTREAM_WAIT_MS,
    });
    expect(rateLimitFacts({ "ratelimit-limit": "0" }, Date.now())).toEqual({});
  });
});

describe("RateBudget", () => {
  it("grants L x share per rolling window, then makes reads wait for the oldest slot to leave it", async () => {
    const b = budget(10);
    for (let i = 0; i < 4; i++) (await b.acquire("read")).settle();
    const fifth = b.acquire("read");
    expect(await settled(fifth)).toBe(false);
    expect(b.use()).toMatchObject({ limit: 10, allowed: 5, used: 4, waiting: { reads: 1, writes: 0 } });
    await vi.advanceTimersByTimeAsync(WINDOW - 1);
    expect(await settled(fifth)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(fifth)).toBe(true);
    expect((await fifth).waitedMs).toBe(WINDOW);
  });

  it("keeps a tenth for writes: a write goes through when reads have used theirs", async () => {
    const b = budget(10);
    for (let i = 0; i < 4; i++) await b.acquire("read");
    const write = await b.acquire("write");
    expect(write.waitedMs).toBe(0);
  });

  it("a slot counts a whole window from its answer (settle), not from when it was taken", async () => {
    const b = budget(2, 1);
    const first = await b.acquire("read");
    await vi.advanceTimersByTimeAsync(3_000);
    first.settle();
    await vi.advanceTimersByTimeAsync(0);
    const second = b.acquire("read");
    // Freed at 3 s (its answer) + 10 s, not at 0 s + 10 s.
    await vi.advanceTimersByTimeAsync(WINDOW - 3_000);
    expect(await settled(second)).toBe(false);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(await settled(second)).toBe(true);
  });

  it("writes go ahead of reads that waited longer", async () => {
    const b = budget(4); // 2 per window: 1 read + 1 reserved
    await b.acquire("read");
    await b.acquire("write");
    const order: string[] = [];
    const read = b.acquire("read").then(() => order.push("read"));
    await vi.advanceTimersByTimeAsync(WINDOW - 500);
    const write = b.acquire("write").then(() => order.push("write"));
    await vi.advanceTimersByTimeAsync(500);
    await write;
    expect(order).toEqual(["write"]);
    await vi.advanceTimersByTimeAsync(WINDOW);
    await read;
    expect(order).toEqual(["write", "read"]);
  });

  it("a write waits at most 1 s, then fails RATE_LIMITED with retryAt; nothing taken", async () => {
    const b = budget(2);
    await b.acquire("write");
    const started = Date.now();
    const error = await b.acquire("write", { request: { method: "POST", path: "/api/x" } }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "RATE_LIMITED", retryable: true, retryAt: started + WINDOW });
    expect(error.message).toContain("nothing was sent");
    expect(error.details).toMatchObject({ retryAfterSeconds: 10 });
    expect(Date.now()).toBe(started);
  });

  it("a read with a deadline before its slot fails at once with retryAt; without one it waits", async () => {
    const b = budget(2);
    await b.acquire("read");
    const error = await b.acquire("read", { deadline: Date.now() + 5_000 }).catch((e) => e);
    expect(error).toMatchObject({ code: "RATE_LIMITED", retryAt: Date.now() + WINDOW });
  });

  it("the signal ends a wait at once, and the next read takes its turn", async () => {
    const b = budget(2);
    await b.acquire("read");
    const controller = new AbortController();
    const waiting = b.acquire("read", { signal: controller.signal }).catch((e) => e);
    const next = b.acquire("read");
    await vi.advanceTimersByTimeAsync(1_000);
    controller.abort(new Error("deadline"));
    expect(await waiting).toEqual(new Error("deadline"));
    expect(b.use().waiting.reads).toBe(1);
    await vi.advanceTimersByTimeAsync(WINDOW);
    expect(await settled(next)).toBe(true);
  });

  it("learns the announced limit, and follows a lower remaining until its reset", async () => {
    const b = budget(undefined);
    expect(b.use()).toMatchObject({ limit: null, limit_source: "unknown" });
    (await b.acquire("read")).settle();
    b.observe(200, {
      "Request-Call-Limit": "100",
      "Request-Call-Limit-Remaining": "1",
      "Request-Call-Limit-Reset": "4",
    });
    await b.acquire("read");
    expect(b.use()).toMatchObject({ limit: 100, limit_source: "upstream", allowed: 50 });
    const third = b.acquire("read");
    await vi.advanceTimersByTimeAsync(3_999);
    expect(await settled(third)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(third)).toBe(true);
  });

  it("a 406 without headers: the documented 200 from then on, nothing until a window has passed", async () => {
    const b = budget(undefined);
    await b.acquire("read");
    b.observe(406, {});
    expect(b.blockedForMs()).toBe(WINDOW);
    const next = b.acquire("read");
    await vi.advanceTimersByTimeAsync(WINDOW - 1);
    expect(await settled(next)).toBe(false);
    expect(b.use()).toMatchObject({ limit: 200, blocked_until: new Date(Date.now() + 1).toISOString() });
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(next)).toBe(true);
  });

  it("MMS_RATE_LIMIT wins over an announced limit", async () => {
    const b = budget(40);
    await b.acquire("read");
    b.observe(200, { "ratelimit-limit": "1000" });
    await b.acquire("read");
    expect(b.use()).toMatchObject({ limit: 40, limit_source: "MMS_RATE_LIMIT", allowed: 20 });
  });
});
