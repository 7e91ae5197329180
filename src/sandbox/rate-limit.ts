/**
 * The platform's request limit, played by the sandbox (upstream-notes "Status codes"; interface.md §6c):
 * at most `perMinute` API requests per company in each window (a fixed window that opens with the
 * company's first request, as the platform's "reset in N seconds" suggests), announced on every answer
 * in both header spellings, a 406 past it. Off unless asked (`--rate-limit N`, `rateLimit`), so tests
 * and demos are not paced. A refused request changes nothing and does not count.
 * For tests and the bench it also keeps, per client id, the most requests it accepted in any rolling
 * window and how many it refused (`stats()`), so a run can prove a client kept to its share.
 */

/** Which header spelling(s) the sandbox announces the limit in (tests check each). */
export type RateLimitHeaders = "both" | "request-call-limit" | "ratelimit" | "none";

export interface RateLimitOptions {
  /** Requests per window per company (the platform: 200). */
  perMinute: number;
  /** The window's length in ms (default 60 000; the bench plays a faster "minute"). */
  windowMs?: number;
  /** Default "both". */
  headers?: RateLimitHeaders;
}

/** What one client id met: accepted requests, the most in any rolling window, and 406s. */
export interface ClientRateStats {
  accepted: number;
  maxInWindow: number;
  refused: number;
}

export interface RateLimitStats {
  perMinute: number;
  windowMs: number;
  clients: Record<string, ClientRateStats>;
}

export const DEFAULT_WINDOW_MS = 60_000;

/** Who a request counts against: its company, and its client id (for the stats). */
export interface RateLimitSubject {
  companyId: number;
  clientId: string;
}

export type Admission = { admitted: boolean; headers: Record<string, string> };

interface ClientLog {
  /** Accepted request times within the last rolling window, oldest first. */
  recent: number[];
  stats: ClientRateStats;
}

export class SandboxRateLimit {
  readonly perMinute: number;
  readonly windowMs: number;
  readonly #spelling: RateLimitHeaders;
  readonly #now: () => number;
  readonly #windows = new Map<number, { start: number; count: number }>();
  readonly #clients = new Map<string, ClientLog>();

  constructor(options: RateLimitOptions, now: () => number) {
    if (!Number.isInteger(options.perMinute) || options.perMinute < 1)
      throw new RangeError("rateLimit.perMinute must be a whole number of at least 1");
    this.perMinute = options.perMinute;
    this.windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
    if (!(this.windowMs > 0)) throw new RangeError("rateLimit.windowMs must be positive");
    this.#spelling = options.headers ?? "both";
    this.#now = now;
  }

  /** Count one request of `who` and say whether it may run; the headers go on its answer either way. */
  admit(who: RateLimitSubject): Admission {
    const now = this.#now();
    let window = this.#windows.get(who.companyId);
    if (window === undefined || now >= window.start + this.windowMs) {
      window = { start: now, count: 0 };
      this.#windows.set(who.companyId, window);
    }
    const log = this.#log(who.clientId);
    const admitted = window.count < this.perMinute;
    if (admitted) {
      window.count += 1;
      this.#record(log, now);
    } else {
      log.stats.refused += 1;
    }
    const resetMs = window.start + this.windowMs - now;
    return { admitted, headers: this.#headers(this.perMinute - window.count, resetMs) };
  }

  /** The limit alone, for answers that count against no company (the token endpoint, an unknown caller). */
  announce(): Record<string, string> {
    return this.#headers(undefined, undefined);
  }

  stats(): RateLimitStats {
    const clients: Record<string, ClientRateStats> = {};
    for (const [id, log] of this.#clients) clients[id] = { ...log.stats };
    return { perMinute: this.perMinute, windowMs: this.windowMs, clients };
  }

  #log(clientId: string): ClientLog {
    let log = this.#clients.get(clientId);
    if (log === undefined) {
      log = { recent: [], stats: { accepted: 0, maxInWindow: 0, refused: 0 } };
      this.#clients.set(clientId, log);
    }
    return log;
  }

  #record(log: ClientLog, now: number): void {
    const recent = log.recent;
    let drop = 0;
    while (drop < recent.length && recent[drop]! <= now - this.windowMs) drop++;
    if (drop > 0) recent.splice(0, drop);
    recent.push(now);
    log.stats.accepted += 1;
    log.stats.maxInWindow = Math.max(log.stats.maxInWindow, recent.length);
  }

  #headers(remaining: number | undefined, resetMs: number | undefined): Record<string, string> {
    const out: Record<string, string> = {};
    const limit = String(this.perMinute);
    // Whole seconds, rounded up, as the platform sends them: never earlier than the real reset.
    const reset = resetMs === undefined ? undefined : String(Math.max(0, Math.ceil(resetMs / 1000)));
    const left = remaining === undefined ? undefined : String(Math.max(0, remaining));
    if (this.#spelling === "both" || this.#spelling === "request-call-limit") {
      out["Request-Call-Limit"] = limit;
      if (left !== undefined) out["Request-Call-Limit-Remaining"] = left;
      if (reset !== undefined) out["Request-Call-Limit-Reset"] = reset;
    }
    if (this.#spelling === "both" || this.#spelling === "ratelimit") {
      out["RateLimit-Limit"] = limit;
      if (left !== undefined) out["RateLimit-Remaining"] = left;
      if (reset !== undefined) out["RateLimit-Reset"] = reset;
    }
    return out;
  }
}
