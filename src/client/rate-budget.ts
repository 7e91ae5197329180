/**
 * A company's request budget (interface.md §6c): at most L x MMS_RATE_SHARE requests per rolling
 * window to one upstream company, every request counted, reads and writes. L is MMS_RATE_LIMIT, or
 * the limit the upstream announces (either header spelling), or, once it answered 406 without
 * announcing one, the documented 200. Where its headers say less remains, they win until their reset.
 * The count lives in a RateBudgetStore (rate-budget-store.ts: this process, or Redis for every replica).
 * Writes go first: a write waits at most `writeWaitMs` (1 s), then fails RATE_LIMITED with `retryAt`;
 * reads wait their turn, one at a time, behind any waiting write, as long as they must, unless the
 * caller's deadline comes first. Every wait ends at once when the caller's signal aborts.
 * IMPORTANT: a slot counts from when its request is sent until a whole window after its answer
 * (`Ticket.settle`), so an upstream that counts arrivals never sees more than the share in a window.
 */
import { randomUUID } from "node:crypto";
import { ApiError, ERROR_CODES, type RequestSummary } from "../errors/api-error.js";
import { countRateLimited, recordBudgetWait } from "../telemetry/metrics.js";
import type { RateBudgetStore, RequestKind, TakeResult } from "./rate-budget-store.js";
import { header, MAX_UPSTREAM_WAIT_MS, parseResetSeconds, parseRetryAfter } from "./retry.js";
import { abortable, sleep } from "./wait.js";

/** The platform's documented limit (upstream-notes): assumed after a 406 from an upstream that announces none. */
export const DOCUMENTED_LIMIT = 200;
export const DEFAULT_RATE_SHARE = 0.5;
export const DEFAULT_WINDOW_MS = 60_000;
/** How long a write waits for the budget before it fails RATE_LIMITED (nothing sent). */
export const WRITE_WAIT_MS = 1_000;

export interface RateBudgetOptions {
  store: RateBudgetStore;
  /** MMS_RATE_LIMIT (> 0); undefined: learnt from the upstream. */
  limit?: number | undefined;
  /** MMS_RATE_SHARE, in (0, 1]. Default 0.5. */
  share?: number;
  /** The rolling window ("minute"), MMS_RATE_WINDOW_MS. Default 60 000. */
  windowMs?: number;
  /** Wall clock (epoch ms): `retryAt`, deadlines. Default Date.now. */
  now?: () => number;
  writeWaitMs?: number;
  /** The tenant, for metrics (never a credential). */
  tenant?: string | undefined;
}

export interface WaitOptions {
  signal?: AbortSignal | undefined;
  /** Epoch ms (the budget's clock): a wait that would end later fails RATE_LIMITED at once. */
  deadline?: number | undefined;
  /** For the RATE_LIMITED error. */
  request?: RequestSummary | undefined;
}

/** A granted slot. `settle()` when the answer (or failure) came back. */
export interface Ticket {
  settle(): void;
  /** How long the request waited for its slot, in ms. */
  readonly waitedMs: number;
}

/** The budget's use as /healthz shows it (as of this process's last request). */
export interface BudgetUse {
  store: "process" | "redis";
  /** L: configured, learnt, or null while unknown (no budget yet). */
  limit: number | null;
  limit_source: "MMS_RATE_LIMIT" | "upstream" | "unknown";
  share: number;
  /** Requests per window this server allows itself (writes; reads leave a tenth to writes). */
  allowed: number | null;
  /** Requests in the current window, as of this process's last request. */
  used: number;
  window_ms: number;
  waiting: { reads: number; writes: number };
  /** Set while the upstream's headers or a 406 hold every request back. */
  blocked_until?: string;
}

/** What an answer's rate-limit headers say (either spelling, any case); undefined fields were absent. */
export function rateLimitFacts(
  headers: Readonly<Record<string, string | undefined>>,
  nowMs: number,
): { limit?: number; remaining?: number; resetMs?: number } {
  const int = (name: string) => {
    const m = /^\s*(\d+)/.exec(header(headers, name) ?? "");
    return m === null ? undefined : Number(m[1]);
  };
  const limit = int("ratelimit-limit") ?? int("request-call-limit");
  const remaining = int("ratelimit-remaining") ?? int("request-call-limit-remaining");
  const resetMs =
    parseResetSeconds(header(headers, "ratelimit-reset"), nowMs) ??
    parseResetSeconds(header(headers, "request-call-limit-reset"), nowMs);
  return {
    ...(limit === undefined || limit <= 0 ? {} : { limit }),
    ...(remaining === undefined ? {} : { remaining }),
    ...(resetMs === undefined ? {} : { resetMs }),
  };
}

export class RateBudget {
  readonly #store: RateBudgetStore;
  readonly #limit: number | undefined;
  readonly #share: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #writeWaitMs: number;
  readonly #tenant: string | undefined;
  readonly #idPrefix = randomUUID();
  #seq = 0;
  #writesWaiting = 0;
  #readsWaiting = 0;
  /** Resolved when no write waits any more (reads wait on it). */
  #writesDrained: { promise: Promise<void>; resolve: () => void } | undefined;
  /** The read whose turn it is holds this; the next one waits for it. */
  #readTurn: Promise<void> = Promise.resolve();
  #last: { used: number; limit: number | undefined } = { used: 0, limit: undefined };
  #blockedUntil = 0;

  constructor(options: RateBudgetOptions) {
    this.#store = options.store;
    this.#limit = options.limit;
    this.#share = options.share ?? DEFAULT_RATE_SHARE;
    this.#windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
    this.#now = options.now ?? Date.now;
    this.#writeWaitMs = options.writeWaitMs ?? WRITE_WAIT_MS;
    this.#tenant = options.tenant;
  }

  /** Wait for a slot for one request of `kind`; rejects RATE_LIMITED (with retryAt) or with the signal's reason. */
  async acquire(kind: RequestKind, options: WaitOptions = {}): Promise<Ticket> {
    const started = this.#now();
    const id = await (kind === "write" ? this.#acquireWrite(options) : this.#acquireRead(options));
    const waitedMs = Math.max(0, this.#now() - started);
    recordBudgetWait(waitedMs, kind, this.#tenant);
    let settled = false;
    return {
      waitedMs,
      settle: () => {
        if (settled) return;
        settled = true;
        this.#store.settle(id, this.#windowMs).catch(() => {});
      },
    };
  }

  /**
   * Learn from an answer: its announced limit, what remains until its reset, and a 406. The returned
   * promise settles when the store has it (never rejects); the client does not wait for it.
   */
  observe(status: number, headers: Readonly<Record<string, string | undefined>>): Promise<void> {
    const now = this.#now();
    const facts = rateLimitFacts(headers, now);
    const limited = status === 406 || status === 429;
    if (limited) countRateLimited(this.#tenant);
    const told = limited ? parseRetryAfter(headers, now) : undefined;
    // After a 406 (this platform's "requests per minute exceeded") nothing remains until the reset the
    // headers give, or else a whole window; a 429 closes the gate only for as long as it says.
    const gate =
      status === 406 || told !== undefined
        ? { remaining: 0, resetMs: told ?? this.#windowMs }
        : facts.remaining !== undefined
          ? { remaining: facts.remaining, resetMs: facts.resetMs ?? this.#windowMs }
          : undefined;
    // The parsers cap what an upstream names (interface.md §9b); capped here again, as the gate's own bound.
    if (gate?.remaining === 0)
      this.#blockedUntil = Math.max(this.#blockedUntil, now + Math.min(gate.resetMs, MAX_UPSTREAM_WAIT_MS));
    const learnt = facts.limit ?? this.#last.limit ?? (status === 406 ? DOCUMENTED_LIMIT : undefined);
    this.#last = { used: this.#last.used, limit: learnt };
    if (facts.limit === undefined && gate === undefined && !limited) return Promise.resolve();
    return this.#store
      .learn({
        ...(this.#limit === undefined && facts.limit !== undefined ? { limit: facts.limit } : {}),
        ...(status === 406 && this.#limit === undefined ? { defaultLimit: DOCUMENTED_LIMIT } : {}),
        gate,
      })
      .catch(() => {});
  }

  /** How long (ms) the upstream's headers or a 406 still hold every request back (0: they do not). */
  blockedForMs(): number {
    return Math.max(0, this.#blockedUntil - this.#now());
  }

  use(): BudgetUse {
    const limit = this.#limit ?? this.#last.limit;
    const total = limit === undefined ? null : Math.max(1, Math.floor(limit * this.#share));
    return {
      store: this.#store.kind,
      limit: limit ?? null,
      limit_source:
        this.#limit !== undefined ? "MMS_RATE_LIMIT" : limit !== undefined ? "upstream" : "unknown",
      share: this.#share,
      allowed: total,
      used: this.#last.used,
      window_ms: this.#windowMs,
      waiting: { reads: this.#readsWaiting, writes: this.#writesWaiting },
      ...(this.#blockedUntil > this.#now()
        ? { blocked_until: new Date(this.#blockedUntil).toISOString() }
        : {}),
    };
  }

  async #take(kind: RequestKind, id: string): Promise<TakeResult> {
    const result = await this.#store.take({
      id,
      kind,
      limit: this.#limit,
      share: this.#share,
      windowMs: this.#windowMs,
    });
    this.#last = { used: result.used, limit: result.limit };
    return result;
  }

  async #acquireWrite(options: WaitOptions): Promise<string> {
    const id = `${this.#idPrefix}:${++this.#seq}`;
    const giveUpAt = Math.min(this.#now() + this.#writeWaitMs, options.deadline ?? Number.POSITIVE_INFINITY);
    this.#writesWaiting += 1;
    try {
      for (;;) {
        const result = await this.#take("write", id);
        if (result.granted) return id;
        const retryAt = this.#now() + result.retryInMs;
        if (retryAt > giveUpAt) throw this.#spent(retryAt, options.request, "write");
        await sleep(result.retryInMs, options.signal);
      }
    } finally {
      this.#writesWaiting -= 1;
      if (this.#writesWaiting === 0) {
        this.#writesDrained?.resolve();
        this.#writesDrained = undefined;
      }
    }
  }

  async #acquireRead(options: WaitOptions): Promise<string> {
    const id = `${this.#idPrefix}:${++this.#seq}`;
    this.#readsWaiting += 1;
    const previous = this.#readTurn;
    let done!: () => void;
    this.#readTurn = new Promise<void>((resolve) => {
      done = resolve;
    });
    try {
      await abortable(previous, options.signal);
      for (;;) {
        while (this.#writesWaiting > 0) await abortable(this.#drained(), options.signal);
        const result = await this.#take("read", id);
        if (result.granted) return id;
        const retryAt = this.#now() + result.retryInMs;
        if (options.deadline !== undefined && retryAt > options.deadline)
          throw this.#spent(retryAt, options.request, "read");
        await sleep(result.retryInMs, options.signal);
      }
    } finally {
      this.#readsWaiting -= 1;
      // The next read's turn comes when this one is granted, gives up, or when its predecessor is done.
      void previous.then(done, done);
    }
  }

  #drained(): Promise<void> {
    if (this.#writesDrained === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      this.#writesDrained = { promise, resolve };
    }
    return this.#writesDrained.promise;
  }

  #spent(retryAt: number, request: RequestSummary | undefined, kind: RequestKind): ApiError {
    const use = this.use();
    const seconds = Math.max(1, Math.ceil((retryAt - this.#now()) / 1000));
    const budget =
      use.allowed === null || this.blockedForMs() > 0
        ? "the upstream's rate limit (its last 406 or rate-limit headers)"
        : `this server's share of the company's requests (${use.allowed} of ${use.limit} per ${Math.round(this.#windowMs / 1000)} s, MMS_RATE_SHARE ${this.#share})`;
    return new ApiError({
      code: ERROR_CODES.RATE_LIMITED,
      message: `${budget} is spent until ${new Date(retryAt).toISOString()}; nothing was sent: try again in ${seconds} s${kind === "write" ? " (a write waits at most 1 s for the budget)" : ""}`,
      retryable: true,
      details: {
        retryAfterSeconds: seconds,
        budget: { limit: use.limit, allowed: use.allowed, used: use.used },
      },
      request,
      retryAt,
    });
  }
}
