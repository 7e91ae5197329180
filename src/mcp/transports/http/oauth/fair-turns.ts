/**
 * The turns of token introspection, shared fairly (interface.md §9c). At most `limit` calls run at
 * once. A token already seen active (a signed-in user whose remembered answer ran out) goes first.
 * The others ("anonymous": nothing is known of them yet) are served round-robin by source address,
 * and within one address by token prefix, so that one client sending made-up tokens cannot hold
 * the queue: the last quarter of the turns is kept for addresses, and prefixes, holding less than
 * their share (`#mayHold`), and when too many wait the newest anonymous waiter of the busiest
 * prefix of the busiest address is shed (the caller answers 503 with Retry-After, never 401:
 * congestion is not a bad token).
 * IMPORTANT: clients behind one address and sending random tokens share one lane (a reverse proxy:
 * docs/security.md); the known-token lane still serves its signed-in users first.
 */

/** What a waiter got: a turn (give it back), or shed: too many waited, or its wait ran out. */
export type TurnOutcome = "turn" | "shed";

export interface TurnRequest {
  /** The client's address (`req.socket.remoteAddress`). */
  source: string;
  /** The first characters of the token: made-up tokens of one script tend to share them. */
  prefix: string;
  /** The token was seen active before: it waits in the priority lane and is never shed for room. */
  known: boolean;
}

export interface FairTurnsOptions {
  /** Calls at once (default 8). */
  limit?: number;
  /** Anonymous waiters at once, all addresses together (default 256). */
  maxWaiting?: number;
  /** Anonymous waiters of one address (default 64). */
  maxWaitingPerSource?: number;
}

interface Waiter {
  seq: number;
  request: TurnRequest;
  wake(outcome: TurnOutcome): void;
}

export class FairTurns {
  readonly #limit: number;
  readonly #maxWaiting: number;
  readonly #maxPerSource: number;
  #free: number;
  #seq = 0;
  #waitingCount = 0;
  readonly #known: Waiter[] = [];
  /** address → prefix → waiters, oldest first; Map order is the round-robin order. */
  readonly #lanes = new Map<string, Map<string, Waiter[]>>();
  readonly #holding = new Map<string, number>();

  constructor(options: FairTurnsOptions = {}) {
    this.#limit = options.limit ?? 8;
    this.#free = this.#limit;
    this.#maxWaiting = options.maxWaiting ?? 256;
    this.#maxPerSource = options.maxWaitingPerSource ?? 64;
  }

  /** Waiting now (known and anonymous), for tests and figures. */
  get waiting(): number {
    return this.#waitingCount + this.#known.length;
  }

  /** A turn, at once or after waiting at most `waitMs`; "shed" when it cannot have one. */
  take(request: TurnRequest, waitMs: number): Promise<TurnOutcome> {
    if (this.#free > 0 && this.#mayHold(request)) {
      this.#hold(request);
      return Promise.resolve("turn");
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        seq: this.#seq++,
        request,
        wake: (outcome) => {
          clearTimeout(timer);
          resolve(outcome);
        },
      };
      const timer = setTimeout(() => {
        if (this.#remove(waiter)) resolve("shed");
      }, waitMs);
      timer.unref?.();
      if (request.known) this.#known.push(waiter);
      else this.#enqueue(waiter);
      this.#dispatch();
    });
  }

  /** Give back the turn of `request` (every "turn" must be given back once). */
  give(request: TurnRequest): void {
    this.#free++;
    const key = laneKey(request);
    for (const k of [request.source, key]) {
      const held = (this.#holding.get(k) ?? 1) - 1;
      if (held === 0) this.#holding.delete(k);
      else this.#holding.set(k, held);
    }
    this.#dispatch();
  }

  /**
   * Whether a free turn may go to `request`. A known token: any. While more than a quarter of the
   * turns are free: anyone. The rest of the last quarter: an address holding less than half the
   * turns, or a prefix of an address holding less than a quarter. The very last turn: an address
   * holding less than half. So a flood of made-up tokens sharing a prefix leaves a turn to the real
   * tokens of its own address, and a flood from one address always leaves one to the others.
   */
  #mayHold(request: TurnRequest): boolean {
    const quarter = Math.max(1, Math.floor(this.#limit / 4));
    if (request.known || this.#free > quarter) return true;
    const addressUnder = (this.#holding.get(request.source) ?? 0) < Math.max(1, Math.floor(this.#limit / 2));
    if (this.#free === 1) return addressUnder;
    return addressUnder || (this.#holding.get(laneKey(request)) ?? 0) < quarter;
  }

  #hold(request: TurnRequest): void {
    this.#free--;
    for (const k of [request.source, laneKey(request)]) this.#holding.set(k, (this.#holding.get(k) ?? 0) + 1);
  }

  #enqueue(waiter: Waiter): void {
    const { source, prefix } = waiter.request;
    const lane = this.#lanes.get(source) ?? new Map<string, Waiter[]>();
    this.#lanes.set(source, lane);
    const queue = lane.get(prefix) ?? [];
    lane.set(prefix, queue);
    queue.push(waiter);
    this.#waitingCount++;
    if (this.#waitingCount > this.#maxWaiting || countOf(lane) > this.#maxPerSource) this.#shedNewest();
  }

  /**
   * The newest waiter of the busiest prefix of the busiest address leaves ("shed"): a flood's own
   * newest, not the one real token waiting beside it (ties: the newest of them).
   */
  #shedNewest(): void {
    let busiest: Map<string, Waiter[]> | undefined;
    for (const lane of this.#lanes.values())
      if (busiest === undefined || countOf(lane) > countOf(busiest)) busiest = lane;
    let queue: Waiter[] | undefined;
    for (const q of busiest?.values() ?? []) {
      if (queue === undefined || q.length > queue.length) queue = q;
      else if (q.length === queue.length && (q.at(-1)?.seq ?? -1) > (queue.at(-1)?.seq ?? -1)) queue = q;
    }
    const newest = queue?.at(-1);
    if (newest !== undefined && this.#remove(newest)) newest.wake("shed");
  }

  /** Hand free turns out: the known lane first, then addresses round-robin, prefixes round-robin within. */
  #dispatch(): void {
    while (this.#free > 0) {
      const next = this.#known.shift() ?? this.#nextAnonymous();
      if (next === undefined) return;
      this.#hold(next.request);
      next.wake("turn");
    }
  }

  #nextAnonymous(): Waiter | undefined {
    for (const [source, lane] of this.#lanes) {
      for (const [prefix, queue] of lane) {
        const head = queue[0];
        if (head === undefined || !this.#mayHold(head.request)) continue;
        queue.shift();
        this.#waitingCount--;
        // Served: this prefix, then this address, go to the back of the round.
        lane.delete(prefix);
        if (queue.length > 0) lane.set(prefix, queue);
        this.#lanes.delete(source);
        if (lane.size > 0) this.#lanes.set(source, lane);
        return head;
      }
    }
    return undefined;
  }

  /** Take a waiter out of its queue; false when it had already left (served or shed). */
  #remove(waiter: Waiter): boolean {
    if (waiter.request.known) {
      const at = this.#known.indexOf(waiter);
      if (at === -1) return false;
      this.#known.splice(at, 1);
      return true;
    }
    const { source, prefix } = waiter.request;
    const lane = this.#lanes.get(source);
    const queue = lane?.get(prefix);
    const at = queue?.indexOf(waiter) ?? -1;
    if (lane === undefined || queue === undefined || at === -1) return false;
    queue.splice(at, 1);
    this.#waitingCount--;
    if (queue.length === 0) lane.delete(prefix);
    if (lane.size === 0) this.#lanes.delete(source);
    return true;
  }
}

const laneKey = (request: TurnRequest) => `${request.source}\u0000${request.prefix}`;

function countOf(lane: Map<string, Waiter[]>): number {
  let n = 0;
  for (const queue of lane.values()) n += queue.length;
  return n;
}
