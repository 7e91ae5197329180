/**
 * GET /healthz: the replica's state for a load balancer and an operator. 503 while shutting down
 * (the balancer stops sending), else 200 with the state in the body.
 */
import type { ServerResponse } from "node:http";
import { sendJson } from "./answers.js";

export interface HealthInputs {
  version: string;
  closing: boolean;
  inFlight: number;
  /** The idempotency store's state ("degraded": keyed writes are refused, the rest works). */
  store: { status: "ok" | "degraded" } | undefined;
  /** More of the body: each company's request budget (src/hosting/rate-budgets.ts budgetHealth). */
  extra?: Record<string, unknown> | undefined;
}

export function sendHealth(res: ServerResponse, h: HealthInputs): void {
  // A degraded store still answers 200: reads and unkeyed writes work here, and every replica
  // shares the store, so a balancer pulling this one would gain nothing; the body tells an operator.
  sendJson(res, h.closing ? 503 : 200, {
    status: h.closing ? "closing" : h.store?.status === "degraded" ? "degraded" : "ok",
    version: h.version,
    in_flight: h.inFlight,
    ...(h.store === undefined ? {} : { idempotency: h.store }),
    ...h.extra,
  });
}
