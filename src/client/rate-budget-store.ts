/**
 * The shared half of a company's request budget (interface.md §6c): the requests sent in the rolling
 * window, the limit learnt from the upstream, and the "gate" its headers or a 406 set (so many left
 * until a time). One atomic `take` decides and counts a request, so two holders of the same store
 * (two replicas on one Redis) never spend a slot twice. Two implementations: `MemoryBudgetStore`
 * below (one process) and `RedisBudgetStore` (rate-budget-redis.ts, every replica); both follow
 * `allowance` and the rules of `take` exactly (the Redis one in Lua, mirrored line by line).
 */

import { createHash } from "node:crypto";
import { MAX_UPSTREAM_WAIT_MS } from "./retry.js";

export type RequestKind = "read" | "write";

export interface TakeRequest {
  /** Unique id of this request's slot (settled later under the same id). */
  id: string;
  kind: RequestKind;
  /** MMS_RATE_LIMIT when set; undefined: the limit the store learnt (none yet: count only). */
  limit: number | undefined;
  /** MMS_RATE_SHARE. */
  share: number;
  windowMs: number;
}

export type TakeResult =
  | { granted: true; used: number; limit: number | undefined }
  /** `retryInMs`: from now, when a slot frees (the oldest needed leaves the window, or the gate opens). */
  | { granted: false; used: number; limit: number | undefined; retryInMs: number };

export interface LearnRequest {
  /** The limit an answer announced (Request-Call-Limit / RateLimit-Limit). */
  limit?: number | undefined;
  /** A limit to assume when none was ever learnt (the documented 200, after a 406 without headers). */
  defaultLimit?: number | undefined;
  /** At most `remaining` more requests until `resetMs` from now (headers, or 0 after a 406); kept at most MAX_UPSTREAM_WAIT_MS. */
  gate?: { remaining: number; resetMs: number } | undefined;
}

export interface RateBudgetStore {
  /** "process" or "redis": where the count lives (shown by /healthz). */
  readonly kind: "process" | "redis";
  take(request: TakeRequest): Promise<TakeResult>;
  /**
   * The request's answer came back: its slot counts a whole window from now (see RateBudget); one in
   * flight longer than a window, already dropped, is counted again from now.
   */
  settle(id: string, windowMs: number): Promise<void>;
  learn(request: LearnRequest): Promise<void>;
  close?(): Promise<void>;
}

/** The requests of `kind` allowed per window: L x share (at least 1), reads leaving a tenth to writes. */
export function allowance(limit: number, share: number, kind: RequestKind): number {
  const total = Math.max(1, Math.floor(limit * share));
  // IMPORTANT: mirrored in rate-budget-redis.ts (TAKE). Reads leave writes a reserve, so a write finds a
  // slot even while another replica's review has filled its share with pages.
  if (kind === "write" || total < 2) return total;
  return total - Math.max(1, Math.floor(total / 10));
}

interface Slot {
  id: string;
  at: number;
}

/** One process's budget store: a log of slot times, oldest first, and the learnt facts. */
export class MemoryBudgetStore implements RateBudgetStore {
  readonly kind = "process" as const;
  readonly #now: () => number;
  /** Slots by time taken from #head on (a settled slot moves to its answer's time, kept in place: see #prune). */
  #slots: Slot[] = [];
  #head = 0;
  /** The same slots by id, until they leave the window (settle finds its slot at once). */
  readonly #byId = new Map<string, Slot>();
  #limit: number | undefined;
  #gate: { left: number; until: number } | undefined;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  async take(request: TakeRequest): Promise<TakeResult> {
    const now = this.#now();
    this.#prune(now, request.windowMs);
    const used = this.#slots.length - this.#head;
    const limit = request.limit ?? this.#limit;
    const gate = this.#gate !== undefined && now < this.#gate.until ? this.#gate : undefined;
    if (gate !== undefined) gate.until = Math.min(gate.until, now + MAX_UPSTREAM_WAIT_MS);
    if (gate !== undefined && gate.left <= 0)
      return { granted: false, used, limit, retryInMs: gate.until - now };
    if (limit !== undefined) {
      const allowed = allowance(limit, request.share, request.kind);
      if (used >= allowed) {
        // The (used - allowed + 1)th oldest slot must leave the window before one more fits.
        const times = this.#slots
          .slice(this.#head)
          .map((s) => s.at)
          .sort((a, b) => a - b);
        const retryInMs = Math.max(1, times[used - allowed]! + request.windowMs - now);
        return { granted: false, used, limit, retryInMs };
      }
    }
    const slot = { id: request.id, at: now };
    this.#slots.push(slot);
    this.#byId.set(slot.id, slot);
    if (gate !== undefined) gate.left -= 1;
    return { granted: true, used: used + 1, limit };
  }

  async settle(id: string, _windowMs: number): Promise<void> {
    const now = this.#now();
    const slot = this.#byId.get(id);
    if (slot !== undefined) slot.at = Math.max(slot.at, now);
    else {
      const again = { id, at: now };
      this.#slots.push(again);
      this.#byId.set(id, again);
    }
  }

  async learn(request: LearnRequest): Promise<void> {
    if (request.limit !== undefined && request.limit > 0) this.#limit = request.limit;
    else if (request.defaultLimit !== undefined && this.#limit === undefined)
      this.#limit = request.defaultLimit;
    if (request.gate !== undefined)
      this.#gate = {
        left: request.gate.remaining,
        until: this.#now() + Math.min(request.gate.resetMs, MAX_UPSTREAM_WAIT_MS),
      };
  }

  /**
   * Drop the slots that left the window. Settling moves a slot later without reordering, so a slot
   * behind a later one waits for it: it counts a little longer, never shorter (the safe side).
   */
  #prune(now: number, windowMs: number): void {
    const slots = this.#slots;
    while (this.#head < slots.length && slots[this.#head]!.at <= now - windowMs) {
      this.#byId.delete(slots[this.#head]!.id);
      this.#head += 1;
    }
    // Compact now and then, so pruning stays O(1) a request however many pass through.
    if (this.#head > 1024 && this.#head * 2 > slots.length) {
      this.#slots = slots.slice(this.#head);
      this.#head = 0;
    }
  }
}

/** A company's key: one tenant's credentials name one company (a hash: no id in Redis's keys). */
export function companyKey(parts: {
  baseUrl: string;
  clientId?: string | undefined;
  hawkId?: string | undefined;
}) {
  return createHash("sha256")
    .update(`${parts.baseUrl}\n${parts.clientId ?? ""}\n${parts.hawkId ?? ""}`)
    .digest("hex")
    .slice(0, 24);
}
