/**
 * Step 2 and step 6 of the HTTP edge: the limits. Shutting down → 503; then, once the body has
 * arrived, admission: each tenant's own requests in flight (429 + Retry-After, its own use only) and
 * the process's (503 + Retry-After). `settle` waits for the requests in flight (close()'s drain).
 * IMPORTANT: a request is admitted (counts against either limit) only once its whole body has
 * arrived: a slow sender holds a socket, never a slot another tenant could use.
 */
import type { ServerResponse } from "node:http";
import { rpcError, SERVER_ERROR, sendJson } from "./answers.js";

/** Admission counters: requests being served now, the most at once, and how many were refused as busy. */
export interface InFlightStats {
  inFlight: number;
  peakInFlight: number;
  refused: number;
}

/** One admission's counters: the process, or one tenant. */
export class Gate {
  inFlight = 0;
  peakInFlight = 0;
  refused = 0;
  constructor(readonly limit: number) {}
  get full(): boolean {
    return this.inFlight >= this.limit;
  }
  enter(): void {
    this.peakInFlight = Math.max(this.peakInFlight, ++this.inFlight);
  }
  stats(): InFlightStats {
    return { inFlight: this.inFlight, peakInFlight: this.peakInFlight, refused: this.refused };
  }
}

/** The gates a request counts against until its response ends; `release` them once. */
export type Admitted = Gate[];

export class Admission {
  readonly process: Gate;
  readonly #tenants = new Map<string, Gate>();
  #closing = false;
  #drained: (() => void) | undefined;

  constructor(private readonly limits: { maxInFlight: number; tenantMaxInFlight: number }) {
    this.process = new Gate(limits.maxInFlight);
  }

  get closing(): boolean {
    return this.#closing;
  }

  /** From now on every request gets 503 "shutting down". */
  close(): void {
    this.#closing = true;
  }

  /** Answers 503 and returns true while shutting down. */
  refuseClosing(res: ServerResponse): boolean {
    if (!this.#closing) return false;
    sendJson(res, 503, rpcError(SERVER_ERROR, "Server is shutting down; retry on another replica or later"), {
      "retry-after": "5",
    });
    return true;
  }

  /** The gates the request now counts against; undefined after answering 503 or 429. */
  admit(res: ServerResponse, tenant: string | undefined): Admitted | undefined {
    if (this.refuseClosing(res)) return undefined;
    const tenantGate = tenant === undefined ? undefined : this.#gateOf(tenant);
    if (tenantGate?.full) {
      // The caller's own use only: nothing about the server or the other tenants.
      tenantGate.refused++;
      sendJson(
        res,
        429,
        rpcError(
          SERVER_ERROR,
          `Too many requests in progress for your tenant: ${tenantGate.limit} already running (MCP_TENANT_MAX_IN_FLIGHT); wait for one to finish, or retry after 1 s`,
        ),
        { "retry-after": "1" },
      );
      return undefined;
    }
    if (this.process.full) {
      this.process.refused++;
      sendJson(
        res,
        503,
        rpcError(
          SERVER_ERROR,
          `Server busy: ${this.limits.maxInFlight} requests already in progress; retry after 1 s`,
        ),
        { "retry-after": "1" },
      );
      return undefined;
    }
    const gates = tenantGate === undefined ? [this.process] : [this.process, tenantGate];
    for (const gate of gates) gate.enter();
    return gates;
  }

  release(gates: Admitted): void {
    for (const gate of gates) gate.inFlight--;
    if (this.process.inFlight === 0) this.#drained?.();
  }

  /** Resolves when nothing is in flight, or after `ms`. */
  settle(ms: number): Promise<void> {
    if (this.process.inFlight === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#drained = resolve;
      setTimeout(resolve, ms).unref();
    });
  }

  stats(): InFlightStats & { tenants: Record<string, InFlightStats> } {
    return {
      ...this.process.stats(),
      tenants: Object.fromEntries([...this.#tenants].map(([name, gate]) => [name, gate.stats()])),
    };
  }

  #gateOf(tenant: string): Gate {
    let gate = this.#tenants.get(tenant);
    if (gate === undefined) {
      gate = new Gate(this.limits.tenantMaxInFlight);
      this.#tenants.set(tenant, gate);
    }
    return gate;
  }
}
