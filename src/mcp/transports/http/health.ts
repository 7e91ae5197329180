/**
 * GET /healthz: the replica's state for a load balancer and an operator. 503 while shutting down
 * (the balancer stops sending), else 200 with the state in the body.
 * IMPORTANT (interface.md §9b): a stranger (no valid token) reads only the status; a tenant's token
 * (static or OAuth) reads its own tenant's details; the operator's token (MCP_HTTP_TOKEN) reads all.
 * Tenant names and their request use are nobody else's business.
 */
import type { ServerResponse } from "node:http";
import { sendJson } from "./answers.js";

/** Who reads /healthz: nobody known, one tenant, or everything (the operator, or a server without tenants). */
export type HealthViewer = { kind: "stranger" } | { kind: "tenant"; tenant: string } | { kind: "all" };

export interface HealthInputs {
  version: string;
  closing: boolean;
  /** Requests in flight: the process's (all) or the tenant's own. */
  inFlight: number;
  /** The idempotency store's state ("degraded": keyed writes are refused, the rest works). */
  store: { status: "ok" | "degraded" } | undefined;
  /** More of the body: each company's request budget (src/hosting/rate-budgets.ts budgetHealth), the viewer's own. */
  extra?: Record<string, unknown> | undefined;
}

export function healthStatus(h: Pick<HealthInputs, "closing" | "store">): "closing" | "degraded" | "ok" {
  return h.closing ? "closing" : h.store?.status === "degraded" ? "degraded" : "ok";
}

export function sendHealth(res: ServerResponse, viewer: HealthViewer, h: HealthInputs): void {
  // A degraded store still answers 200: reads and unkeyed writes work here, and every replica
  // shares the store, so a balancer pulling this one would gain nothing; the body tells an operator.
  const status = healthStatus(h);
  const code = h.closing ? 503 : 200;
  if (viewer.kind === "stranger") {
    sendJson(res, code, { status });
    return;
  }
  sendJson(res, code, {
    status,
    version: h.version,
    ...(viewer.kind === "tenant" ? { tenant: viewer.tenant } : {}),
    in_flight: h.inFlight,
    ...(h.store === undefined ? {} : { idempotency: h.store }),
    ...h.extra,
  });
}
