/**
 * When a review reads its pages (interface.md §6c): a few pages in flight (fewer when pages are
 * large: the process's cap on bytes in flight), paced by the client's request budget, with progress
 * after each page, until the walk is done, the call's deadline passes, or the upstream's rate limit
 * would outlast the deadline. A 406 never discards what was read: the walk waits for the reset
 * when it fits the deadline, otherwise it stops and the state (kept by the snapshot) resumes later.
 * A cancelled call stops its requests and waits at once.
 */
import type { Budget, Page } from "../../client/types.js";
import { sleep } from "../../client/wait.js";
import { ApiError, ERROR_CODES } from "../../errors/api-error.js";
import type { InflightBytes } from "./inflight.js";
import { weightOf } from "./records.js";
import type { PageAsk, WalkState } from "./walk.js";

/** Pages in flight at once for one review (the process's byte cap may allow fewer). */
export const REVIEW_CONCURRENCY = 10;
/** Before any page is seen: what a page of 100 budgets holds, roughly. */
const FIRST_ESTIMATE = 512 * 1024;
/** A 406 that names no reset: the platform's window is a minute (upstream-notes). */
const DEFAULT_RESET_MS = 60_000;

export interface ScheduleDeps {
  fetchPage(start: number, limit: number, signal: AbortSignal): Promise<Page<Budget>>;
  /** The call's signal: aborted when the client cancels. */
  signal: AbortSignal;
  /** The deadline (aborts when it passes) and its instant; undefined: run to completion (a task). */
  deadline?: { at: number; signal: AbortSignal } | undefined;
  clock(): number;
  inflight: InflightBytes;
  progress(update: { progress: number; total?: number | undefined; message: string }): Promise<void>;
  concurrency?: number;
  /** How long pages in flight may finish after a stop (default STOP_GRACE_MS). */
  stopGraceMs?: number | undefined;
}

/** Why the walk stopped. */
export type Stop =
  | { kind: "done" }
  | { kind: "deadline" }
  | { kind: "rate-limited"; resetAt: number }
  | { kind: "failed"; error: unknown };

/** Read the pages the state still needs within `maxRecords`. Throws cancellation and failures that waiting would not cure. */
export async function runWalk(state: WalkState, maxRecords: number, deps: ScheduleDeps): Promise<Stop> {
  const stop = new AbortController();
  const signals = [deps.signal, stop.signal, ...(deps.deadline ? [deps.deadline.signal] : [])];
  // Ends the waits before a request (bytes, a 406's reset) and the dispatch of new pages.
  const signal = AbortSignal.any(signals);
  // Ends requests already sent: cancellation at once, a stop after a short grace (see graceAfter).
  const requests = new AbortController();
  const grace = graceAfter(signal, requests, deps.stopGraceMs ?? STOP_GRACE_MS);
  const sent = AbortSignal.any([deps.signal, requests.signal]);
  let stopped: Stop | undefined;
  const run = new PageRunner(state, maxRecords, deps, signal, sent, (s) => {
    stopped ??= s;
    stop.abort();
  });
  const running = new Set<Promise<void>>();
  for (;;) {
    while (!signal.aborted && running.size < (deps.concurrency ?? REVIEW_CONCURRENCY)) {
      const ask = state.take(maxRecords);
      if (ask === undefined) break;
      const p: Promise<void> = run.page(ask).finally(() => running.delete(p));
      running.add(p);
    }
    if (running.size === 0) break;
    await Promise.race(running);
  }
  grace.clear();
  if (deps.signal.aborted) throw cancelled();
  // A failure that waiting would not cure (a bad page, a refused credential) is the call's error.
  if (stopped?.kind === "failed" && !(stopped.error instanceof ApiError && stopped.error.retryable))
    throw stopped.error;
  if (stopped) return stopped;
  if (deps.deadline?.signal.aborted && !state.finished(maxRecords)) return { kind: "deadline" };
  return { kind: "done" };
}

/** In-flight pages may finish this long after a stop (the deadline, a 406) before they are aborted. */
export const STOP_GRACE_MS = 2_000;

/**
 * IMPORTANT: a request aborted after it left may still reach the upstream and count against the
 * company's limit; so a stop lets pages in flight finish (their answers are kept) for a short grace,
 * then aborts them, so the call still returns about on time.
 */
function graceAfter(stop: AbortSignal, requests: AbortController, graceMs: number): { clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const onStop = () => {
    timer = setTimeout(() => requests.abort(stop.reason), graceMs);
  };
  if (stop.aborted) onStop();
  else stop.addEventListener("abort", onStop, { once: true });
  return {
    clear: () => {
      stop.removeEventListener("abort", onStop);
      clearTimeout(timer);
    },
  };
}

/** One page at a time: bytes, pacing after a 406, the request, the state, progress. */
class PageRunner {
  #estimate = FIRST_ESTIMATE;
  #pausedUntil = 0;

  constructor(
    readonly state: WalkState,
    readonly maxRecords: number,
    readonly deps: ScheduleDeps,
    readonly signal: AbortSignal,
    readonly sent: AbortSignal,
    readonly halt: (stop: Stop) => void,
  ) {}

  async page({ at, limit }: PageAsk): Promise<void> {
    const { state, deps, signal } = this;
    let grant: Awaited<ReturnType<InflightBytes["acquire"]>> | undefined;
    try {
      await this.#waitForReset();
      grant = await deps.inflight.acquire(this.#estimate, signal);
      signal.throwIfAborted();
      const page = await deps.fetchPage(at, limit, this.sent);
      const bytes = weightOf(page.data);
      grant.resize(bytes);
      this.#estimate = Math.max(this.#estimate, bytes);
      state.accept(at, page, limit);
    } catch (error) {
      state.giveBack(at);
      // After a stop, a page's failure (its wait aborted, the grace passed) changes nothing: it is due again.
      if (!signal.aborted) this.#failed(error);
      return;
    } finally {
      grant?.release();
    }
    const total = Math.max(state.distinct, Math.min(state.apiTotal ?? 0, this.maxRecords));
    await deps.progress({
      progress: state.distinct,
      total,
      message: `Scanned ${state.distinct} of ${total} budgets`,
    });
  }

  async #waitForReset(): Promise<void> {
    const wait = this.#pausedUntil - this.deps.clock();
    if (wait <= 0) return;
    await sleep(wait, this.signal);
  }

  #failed(error: unknown): void {
    if (!(error instanceof ApiError) || error.code !== ERROR_CODES.RATE_LIMITED) {
      this.halt({ kind: "failed", error });
      return;
    }
    const resetAt = this.deps.clock() + (retryAfterMs(error) ?? DEFAULT_RESET_MS);
    const deadline = this.deps.deadline?.at;
    if (deadline !== undefined && resetAt >= deadline) {
      this.halt({ kind: "rate-limited", resetAt });
      return;
    }
    if (resetAt > this.#pausedUntil) {
      this.#pausedUntil = resetAt;
      void this.deps.progress({
        progress: this.state.distinct,
        message: `Rate limited upstream: waiting ${Math.ceil((resetAt - this.deps.clock()) / 1000)} s for its reset`,
      });
    }
  }
}

/**
 * How long the upstream or the company's budget asks to wait: the error's `retryAt` (epoch ms),
 * else, defensively, its details' `retryAfterMs`, `resetAt` or `retryAfterSeconds`.
 */
export function retryAfterMs(error: ApiError, now = Date.now()): number | undefined {
  const d = (error.details ?? {}) as Record<string, unknown>;
  const positive = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined);
  const at = positive(error.retryAt);
  if (at !== undefined) return Math.max(0, at - now);
  const ms = positive(d.retryAfterMs);
  if (ms !== undefined) return ms;
  const reset = positive(d.resetAt);
  if (reset !== undefined) return Math.max(0, reset - now);
  const seconds = positive(d.retryAfterSeconds);
  return seconds === undefined ? undefined : seconds * 1000;
}

const cancelled = () =>
  new ApiError({ code: ERROR_CODES.CANCELLED, message: "the review was cancelled by the client" });
