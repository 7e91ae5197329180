/**
 * When a review reads its pages (src/domain/review/scheduler.ts), with an in-memory page source
 * and fake timers: concurrency, a 406 that waits for its reset or stops before the deadline, and
 * cancellation.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Budget, Page } from "../../../src/client/types.js";
import type { ResolvedPeriod } from "../../../src/domain/period.js";
import { InflightBytes } from "../../../src/domain/review/inflight.js";
import { retryAfterMs, runWalk, type ScheduleDeps } from "../../../src/domain/review/scheduler.js";
import { WalkState } from "../../../src/domain/review/walk.js";
import { ApiError } from "../../../src/errors/api-error.js";
import { makeBudget } from "../../helpers/budget-upstream.js";

const list = Array.from({ length: 1000 }, (_, i) => makeBudget(i));
const newState = () => new WalkState({} as ResolvedPeriod, 0, { keep: "compact", discount: undefined });
const limited = (details: Record<string, unknown>) =>
  new ApiError({ code: "RATE_LIMITED", status: 406, message: "too many requests", retryable: true, details });

function deps(fetchPage: ScheduleDeps["fetchPage"], extra: Partial<ScheduleDeps> = {}): ScheduleDeps {
  return {
    fetchPage,
    signal: new AbortController().signal,
    clock: Date.now,
    inflight: new InflightBytes(64 * 1024 * 1024),
    progress: async () => {},
    ...extra,
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("runWalk", () => {
  it("keeps at most `concurrency` pages in flight and reads each page once", async () => {
    let open = 0;
    let peak = 0;
    const asked: number[] = [];
    const fetchPage = async (start: number, limit: number): Promise<Page<Budget>> => {
      asked.push(start);
      open += 1;
      peak = Math.max(peak, open);
      await new Promise((r) => setImmediate(r));
      open -= 1;
      return { data: list.slice(start, start + limit), total: 1000 };
    };
    const state = newState();
    expect(await runWalk(state, 1000, deps(fetchPage, { concurrency: 3 }))).toEqual({ kind: "done" });
    expect(peak).toBe(3);
    expect(asked.toSorted((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i * 100));
    expect(state.distinct).toBe(1000);
  });

  it("waits for a 406's reset when it fits the deadline, discarding nothing", async () => {
    vi.useFakeTimers();
    let refused = false;
    const fetchPage = async (start: number, limit: number): Promise<Page<Budget>> => {
      if (start === 300 && !refused) {
        refused = true;
        throw limited({ retryAfterSeconds: 2 });
      }
      return { data: list.slice(start, start + limit), total: 1000 };
    };
    const state = newState();
    const deadline = { at: Date.now() + 10_000, signal: new AbortController().signal };
    const walking = runWalk(state, 1000, deps(fetchPage, { deadline }));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await walking).toEqual({ kind: "done" });
    expect(state.distinct).toBe(1000);
  });

  it("stops before a 406's reset that outlasts the deadline, keeping what was read", async () => {
    const fetchPage = async (start: number, limit: number): Promise<Page<Budget>> => {
      if (start >= 300) throw limited({ retryAfterMs: 60_000 });
      return { data: list.slice(start, start + limit), total: 1000 };
    };
    const state = newState();
    const deadline = { at: Date.now() + 45_000, signal: new AbortController().signal };
    const stop = await runWalk(state, 1000, deps(fetchPage, { deadline, concurrency: 1 }));
    expect(stop).toMatchObject({ kind: "rate-limited" });
    expect(state.distinct).toBe(300);
    expect(state.finished(1000)).toBe(false);
    expect(state.take(1000)).toEqual({ at: 300, limit: 100 });
  });

  it("a cancelled call stops its requests and throws CANCELLED", async () => {
    const controller = new AbortController();
    const fetchPage = (start: number, limit: number, signal: AbortSignal): Promise<Page<Budget>> => {
      if (start === 0) return Promise.resolve({ data: list.slice(0, limit), total: 1000 });
      controller.abort();
      return Promise.reject(signal.reason);
    };
    await expect(
      runWalk(newState(), 1000, deps(fetchPage, { signal: controller.signal })),
    ).rejects.toMatchObject({
      code: "CANCELLED",
    });
  });

  it("reads the reset from whichever field the client gave", () => {
    expect(retryAfterMs(limited({ retryAfterMs: 1500 }))).toBe(1500);
    expect(retryAfterMs(limited({ resetAt: 11_000 }), 10_000)).toBe(1000);
    expect(retryAfterMs(limited({ retryAfterSeconds: 3 }))).toBe(3000);
    expect(retryAfterMs(limited({}))).toBeUndefined();
    const told = new ApiError({ code: "RATE_LIMITED", message: "budget", retryAt: 12_500 });
    expect(retryAfterMs(told, 10_000)).toBe(2500);
  });
});
