/**
 * Fault injection: latency, canned raw answers, mid-body connection resets, token expiry,
 * clock skew, the stale-timestamp status and a down token endpoint. Controlled in-process
 * through `FaultController`, and over HTTP (`/__faults`) only when the sandbox enables it.
 */

export interface FaultResponse {
  status: number;
  body?: string | object;
  headers?: Record<string, string>;
  contentType?: string;
}

export interface FaultController {
  /**
   * Added delay before answering; `route` is a path prefix ("/api/wo_budget", "/hub"), omitted = all. Changing a
   * route's latency (0 removes it) releases the requests it holds now, as `reset()` releases every one.
   */
  latency(ms: number, route?: string): void;
  /** The next `count` matching requests get this raw response instead of the real one. */
  failNext(route: string, count: number, response: FaultResponse): void;
  /** The next `count` matching requests: partial headers and body are written, then the socket is destroyed. */
  resetNext(route: string, count: number): void;
  /** Every token issued so far is expired now. */
  expireTokens(): void;
  /** Server clock offset in ms (Hawk staleness, token expiry, default budget period). */
  skew(ms: number): void;
  /** HTTP status of the Hawk stale-timestamp answer (default 401; deployments of this family use 407). */
  staleStatus(status: 401 | 407): void;
  /** While down, `/oauth/token` answers 503. */
  tokenEndpointDown(down: boolean): void;
  /** Clears every fault, the skew and the request counts. */
  reset(): void;
  /** Requests seen per "METHOD /path-without-query" (the control route is not counted). */
  readonly requestCount: Record<string, number>;
}

/** What the server must do with one request, decided by the active faults. */
export interface FaultDecision {
  delayMs: number;
  /** The latency setting `delayMs` comes from (its route; undefined: every route). */
  delayRoute?: string | undefined;
  action: { kind: "none" } | { kind: "fail"; response: FaultResponse } | { kind: "reset" };
}

interface Armed<T> {
  route: string;
  remaining: number;
  value: T;
}

/** A route is a path prefix, optionally preceded by a method: "POST /api/warehouse_entries_orders". */
function routeMatches(route: string, method: string, path: string): boolean {
  const m = /^([A-Z]+)\s+(\/.*)$/.exec(route);
  if (m) return m[1] === method && path.startsWith(m[2]!);
  return path.startsWith(route);
}

export class Faults implements FaultController {
  readonly requestCount: Record<string, number> = {};
  skewMs = 0;
  staleHawkStatus: 401 | 407 = 401;
  tokenDown = false;
  #latencies: { route: string | undefined; ms: number }[] = [];
  /** Requests waiting out a latency, by the route of the setting that holds them: a new setting releases them. */
  #held = new Map<string | undefined, Set<() => void>>();
  #armed: Armed<{ kind: "fail"; response: FaultResponse } | { kind: "reset" }>[] = [];
  readonly #onExpireTokens: () => void;

  constructor(onExpireTokens: () => void) {
    this.#onExpireTokens = onExpireTokens;
  }

  latency(ms: number, route?: string): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError("latency: ms must be a non-negative number");
    this.#latencies = this.#latencies.filter((l) => l.route !== route);
    if (ms > 0) this.#latencies.push({ route, ms });
    this.#release(route);
  }

  /** Waits out the request's latency (`decide`'s delayMs), or less when its setting changes meanwhile. */
  hold(decision: FaultDecision): Promise<void> {
    if (decision.delayMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const held = this.#held.get(decision.delayRoute) ?? new Set();
      this.#held.set(decision.delayRoute, held);
      const done = () => {
        clearTimeout(timer);
        held.delete(done);
        resolve();
      };
      const timer = setTimeout(done, decision.delayMs);
      held.add(done);
    });
  }

  #release(route: string | undefined): void {
    for (const done of this.#held.get(route) ?? []) done();
    this.#held.delete(route);
  }

  failNext(route: string, count: number, response: FaultResponse): void {
    checkCount(count);
    if (!Number.isInteger(response?.status) || response.status < 100 || response.status > 599) {
      throw new RangeError("failNext: response.status must be an HTTP status code");
    }
    this.#armed.push({ route, remaining: count, value: { kind: "fail", response } });
  }

  resetNext(route: string, count: number): void {
    checkCount(count);
    this.#armed.push({ route, remaining: count, value: { kind: "reset" } });
  }

  expireTokens(): void {
    this.#onExpireTokens();
  }

  skew(ms: number): void {
    if (!Number.isFinite(ms)) throw new RangeError("skew: ms must be a finite number");
    this.skewMs = ms;
  }

  staleStatus(status: 401 | 407): void {
    if (status !== 401 && status !== 407) throw new RangeError("staleStatus: status must be 401 or 407");
    this.staleHawkStatus = status;
  }

  tokenEndpointDown(down: boolean): void {
    this.tokenDown = down;
  }

  reset(): void {
    this.skewMs = 0;
    this.staleHawkStatus = 401;
    this.tokenDown = false;
    this.#latencies = [];
    for (const route of [...this.#held.keys()]) this.#release(route);
    this.#armed = [];
    for (const key of Object.keys(this.requestCount)) delete this.requestCount[key];
  }

  /** Count the request and consume at most one armed fault for it. */
  decide(method: string, path: string): FaultDecision {
    const key = `${method} ${path}`;
    this.requestCount[key] = (this.requestCount[key] ?? 0) + 1;
    let delayMs = 0;
    let delayRoute: string | undefined;
    for (const l of this.#latencies) {
      if ((l.route === undefined || routeMatches(l.route, method, path)) && l.ms > delayMs) {
        delayMs = l.ms;
        delayRoute = l.route;
      }
    }
    const armed = this.#armed.find((a) => a.remaining > 0 && routeMatches(a.route, method, path));
    if (!armed) return { delayMs, delayRoute, action: { kind: "none" } };
    armed.remaining -= 1;
    this.#armed = this.#armed.filter((a) => a.remaining > 0);
    return { delayMs, delayRoute, action: armed.value };
  }

  /**
   * Apply a control command received over HTTP (`POST /__faults` body). Returns an error text
   * when the command is invalid.
   */
  command(body: unknown): string | undefined {
    if (body === null || typeof body !== "object") return "body must be a JSON object with an action";
    const b = body as Record<string, unknown>;
    try {
      switch (b.action) {
        case "latency":
          this.latency(Number(b.ms), typeof b.route === "string" ? b.route : undefined);
          return undefined;
        case "failNext":
          this.failNext(String(b.route ?? ""), Number(b.count ?? 1), b.response as FaultResponse);
          return undefined;
        case "resetNext":
          this.resetNext(String(b.route ?? ""), Number(b.count ?? 1));
          return undefined;
        case "expireTokens":
          this.expireTokens();
          return undefined;
        case "skew":
          this.skew(Number(b.ms));
          return undefined;
        case "staleStatus":
          this.staleStatus(Number(b.status) as 401 | 407);
          return undefined;
        case "tokenEndpointDown":
          this.tokenEndpointDown(b.down === true);
          return undefined;
        case "reset":
          this.reset();
          return undefined;
        default:
          return `unknown action ${JSON.stringify(b.action)}`;
      }
    } catch (err) {
      return (err as Error).message;
    }
  }

  /** Snapshot for `GET /__faults`. */
  describe(): Record<string, unknown> {
    return {
      skewMs: this.skewMs,
      staleStatus: this.staleHawkStatus,
      tokenEndpointDown: this.tokenDown,
      latency: this.#latencies,
      armed: this.#armed.map((a) => ({ route: a.route, remaining: a.remaining, kind: a.value.kind })),
      requestCount: this.requestCount,
    };
  }
}

function checkCount(count: number): void {
  if (!Number.isInteger(count) || count < 1) throw new RangeError("count must be a positive integer");
}
