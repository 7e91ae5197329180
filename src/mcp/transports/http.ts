/**
 * MCP over Streamable HTTP at /mcp (2026-07-28 and 2025-11-25, stateless: no sessions, any
 * replica answers any request), plus GET /healthz. Each request goes through a pipeline of small
 * steps, one file each in ./http/ (docs/robustness.md, docs/security.md):
 *   1. origin.ts            Host and Origin (DNS rebinding → 403)
 *   2. limits.ts            shutting down → 503
 *   3. auth.ts              who calls: one Authenticator (none, static token, tenants, OAuth) → 401/403
 *   4. body.ts              size (413), time (408), JSON (400), no batches (400)
 *   5. protocol-headers.ts  Mcp-Method / Mcp-Name agree with the body (400)
 *      scopes.ts            an OAuth token's scopes allow the call (403 insufficient_scope)
 *   6. limits.ts            admission: the tenant's and the process's requests in flight (429/503)
 *   7. dispatch             the SDK's handler (src/mcp/sdk.ts), with the caller in req.auth
 * Before any of them, connections.ts bounds the sockets: a cap per process, 5 s to send a request,
 * the oldest connection without a request in progress makes room, an answered request's unread
 * body is not waited for.
 * Other paths (GET /healthz: health.ts, only the status without a token; the discovery paths the
 * authenticator answers; else 404) take no body: one sent there is not read.
 * close() lets in-flight calls finish, then answers the rest with an "outcome unknown" result.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Secret } from "../../errors/secret.js";
import type { Logger } from "../../telemetry/logger.js";
import { createHttpEndpoint, type HttpEndpoint, type ProtocolServer } from "../sdk.js";
import { rpcError, SERVER_ERROR, sendJson } from "./http/answers.js";
import { type Authenticator, authenticate, type Caller, credentialsOf, tokenInQuery } from "./http/auth.js";
import { type BodyLimits, readJsonBody } from "./http/body.js";
import { boundConnections, type ConnectionStats } from "./http/connections.js";
import { type HealthViewer, sendHealth } from "./http/health.js";
import { Admission, type Admitted, type InFlightStats } from "./http/limits.js";
import { isLoopbackHost, refuseForeign } from "./http/origin.js";
import { refuseHeaderMismatch } from "./http/protocol-headers.js";
import { refuseInsufficientScope } from "./http/scopes.js";
import {
  noAuthentication,
  sameSecret,
  staticTokenAuthentication,
  tenantTokenAuthentication,
} from "./http/static-auth.js";

export type { Authenticator, Caller } from "./http/auth.js";
export { firstOf } from "./http/auth.js";
export type { InFlightStats } from "./http/limits.js";
export { isLoopbackHost } from "./http/origin.js";
export { headerMismatch } from "./http/protocol-headers.js";
export {
  isOAuthProbe,
  noAuthentication,
  staticTokenAuthentication,
  tenantTokenAuthentication,
} from "./http/static-auth.js";

export interface HttpOptions {
  host: string;
  port: number;
  /** MCP_HTTP_TOKEN (when `authenticator` and `tenantOf` are not given). */
  token: Secret | undefined;
  /** The operator's token, which reads every tenant's /healthz details (default `token`; MCP_HTTP_TOKEN beside a tenants file). */
  operatorToken?: Secret | undefined;
  /**
   * MCP_TENANTS_FILE: the tenant name for a bearer token (undefined → 401). Replaces `token`; the
   * name reaches the server factory through `req.auth` (never the token itself).
   */
  tenantOf?: (bearerToken: string | undefined) => string | undefined;
  /**
   * How clients authenticate; replaces `token` and `tenantOf` (e.g. OAuth beside the tenants' tokens).
   * A function gets the endpoint's URL once listening (OAuth's resource, when --port 0 picked it).
   */
  authenticator?: Authenticator | ((url: string) => Authenticator);
  /** The tools that write: an OAuth caller needs mms:write to call them, mms:read for the others. */
  writerTools?: ReadonlySet<string>;
  logger: Logger;
  version: string;
  /** Largest accepted request body (default 1 MiB). */
  maxBodyBytes?: number;
  /** Time a client has to send the headers and, separately, the body of a request (default 10 s; MCP_HTTP_BODY_TIMEOUT_MS). */
  bodyTimeoutMs?: number;
  /** Requests served at once; more get 503 with Retry-After (default 64). */
  maxInFlight?: number;
  /** With tenants: requests one tenant may have served at once; more get 429 (default 16). */
  tenantMaxInFlight?: number;
  /** Open connections at most (default 512); the oldest without a request in progress makes room for a new one. */
  maxConnections?: number;
  /** Connections held unread beyond the cap while every open one is busy (default 128). */
  maxWaitingConnections?: number;
  /** How long a connection may stay open without sending a request (default 5 s). */
  silentConnectionMs?: number;
  /** How long close() waits for in-flight calls (default 10 s). */
  drainMs?: number;
  /** How long close() then waits for the "outcome unknown" answers to be written (default 2 s). */
  abandonGraceMs?: number;
  /** Called when the drain times out: running calls must answer now (ServerDeps.stopping). */
  abandon?: () => void;
  /** The idempotency store's state, shown by /healthz ("degraded": keyed writes are refused, the rest works). */
  storeHealth?: () => { status: "ok" | "degraded" };
  /** More of /healthz (each company's request budget: src/hosting/rate-budgets.ts budgetHealth): one tenant's, or all (undefined). */
  healthExtra?: (tenant: string | undefined) => Record<string, unknown>;
}

export interface HttpHandle {
  url: string;
  /** The process's counters and, with tenants, each tenant's (refused: over its own limit). */
  stats(): InFlightStats & { tenants: Record<string, InFlightStats> };
  /** The open connections and how many were closed silent, evicted or refused. */
  connections(): ConnectionStats;
  close(): Promise<void>;
}

/** The authenticator the options describe: given, tenants' tokens, one static token, or none. */
function authenticatorOf(options: HttpOptions, url: string): Authenticator {
  if (typeof options.authenticator === "function") return options.authenticator(url);
  if (options.authenticator) return options.authenticator;
  if (options.tenantOf) return tenantTokenAuthentication(options.tenantOf);
  if (options.token) return staticTokenAuthentication(options.token);
  return noAuthentication();
}

const NO_WRITERS: ReadonlySet<string> = new Set();

/** Until listening: refuses every request (none can be read before the real one is set). */
const NOT_READY: Authenticator = {
  scheme: "starting",
  authenticate: () => ({ kind: "unknown" }),
  unauthorized: () => ({
    status: 401,
    challenge: 'Bearer realm="maintenance-mcp"',
    message: "Unauthorized: starting",
  }),
  discovery: () => undefined,
};

interface Pipeline {
  loopbackBind: boolean;
  authenticator: Authenticator;
  body: BodyLimits;
  admission: Admission;
  endpoint: HttpEndpoint;
  options: HttpOptions;
  log: Logger;
}

/** Steps 2 to 7 for POST/GET/DELETE /mcp; the gates it was admitted to, for the caller to release. */
async function serveMcp(
  p: Pipeline,
  req: IncomingMessage,
  res: ServerResponse,
  admitted: { gates?: Admitted },
): Promise<void> {
  const caller = await authenticate(req, res, p.authenticator);
  if (caller === undefined || p.admission.refuseClosing(res)) return;
  let body: unknown;
  if (req.method === "POST") {
    const read = await readJsonBody(req, res, p.body, p.log);
    if (read === undefined || refuseHeaderMismatch(req, res, read.body)) return;
    body = read.body;
    const writers = p.options.writerTools ?? NO_WRITERS;
    if (refuseInsufficientScope(req, res, { caller, body, writers, authenticator: p.authenticator })) return;
  }
  admitted.gates = p.admission.admit(res, caller.tenant);
  if (admitted.gates === undefined) return;
  // Stateless: the SDK answers GET and DELETE for the era (405, no sessions to open or end).
  await p.endpoint.handle(req, res, body);
}

/**
 * Who reads /healthz: the operator's token reads all; a token the authenticator accepts reads its
 * tenant (all where there are no tenants: the one upstream is its own); anyone else, the status.
 */
export async function healthViewer(
  req: IncomingMessage,
  authenticator: Authenticator,
  operatorToken: Secret | undefined,
): Promise<HealthViewer> {
  const { bearer } = credentialsOf(req);
  if (bearer !== undefined && operatorToken !== undefined && sameSecret(bearer, operatorToken.reveal()))
    return { kind: "all" };
  if (tokenInQuery(req.url)) return { kind: "stranger" };
  const outcome = await authenticator.authenticate({ bearer });
  if (outcome.kind !== "accepted") return { kind: "stranger" };
  const tenant = outcome.caller.tenant;
  return tenant === undefined ? { kind: "all" } : { kind: "tenant", tenant };
}

async function serveHealth(p: Pipeline, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const viewer = await healthViewer(req, p.authenticator, p.options.operatorToken ?? p.options.token);
  const tenant = viewer.kind === "tenant" ? viewer.tenant : undefined;
  sendHealth(res, viewer, {
    version: p.options.version,
    closing: p.admission.closing,
    inFlight:
      tenant === undefined
        ? p.admission.process.inFlight
        : (p.admission.stats().tenants[tenant]?.inFlight ?? 0),
    store: p.options.storeHealth?.(),
    extra: viewer.kind === "stranger" ? undefined : p.options.healthExtra?.(tenant),
  });
}

/** Every path but /mcp: /healthz, the authenticator's discovery answers, else 404. None takes a body. */
async function serveOther(
  p: Pipeline,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  // A body here is not read: the answer ends the connection (connections.ts does not wait for it).
  if (req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined)
    res.setHeader("connection", "close");
  if (path === "/healthz" && req.method === "GET") return serveHealth(p, req, res);
  const discovery = p.authenticator.discovery(path);
  if (discovery !== undefined) sendJson(res, discovery.status, discovery.body, discovery.headers);
  else sendJson(res, 404, rpcError(SERVER_ERROR, "Not found: the MCP endpoint is /mcp"));
}

/** The pipeline's parts: body limits, admission, the SDK endpoint; the authenticator once listening. */
async function pipelineOf(
  makeServer: (caller: Caller) => ProtocolServer,
  options: HttpOptions,
): Promise<Pipeline> {
  const body: BodyLimits = {
    maxBytes: options.maxBodyBytes ?? 1024 * 1024,
    timeoutMs: options.bodyTimeoutMs ?? 10_000,
  };
  const log = options.logger.child({ transport: "http" });
  return {
    loopbackBind: isLoopbackHost(options.host),
    // Set once listening, before the first request is read (the listen callback's microtask).
    authenticator: NOT_READY,
    body,
    admission: new Admission({
      maxInFlight: options.maxInFlight ?? 64,
      tenantMaxInFlight: options.tenantMaxInFlight ?? 16,
    }),
    endpoint: await createHttpEndpoint(makeServer, {
      maxBodyBytes: body.maxBytes,
      onerror: (error) => log.warn("mcp request failed", { error: error.message }),
    }),
    options,
    log,
  };
}

/** One request through the pipeline: /mcp, or another path; admission released when it ends. */
async function handleRequest(p: Pipeline, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? "/").split("?")[0] ?? "/";
  const admitted: { gates?: Admitted } = {};
  try {
    if (refuseForeign(req, res, p.loopbackBind)) return;
    if (path === "/mcp") await serveMcp(p, req, res, admitted);
    else await serveOther(p, req, res, path);
  } catch (error) {
    p.log.error("http request failed", { error });
    if (!res.headersSent) sendJson(res, 500, rpcError(-32603, "Internal error"));
  } finally {
    if (admitted.gates !== undefined) p.admission.release(admitted.gates);
  }
}

/** The node:http server, its sockets bounded (connections.ts), listening; resolves with its /mcp URL. */
async function listenHttp(
  p: Pipeline,
): Promise<{ server: Server; connections: () => ConnectionStats; url: string }> {
  const { options, body } = p;
  const server = createServer(
    {
      // Node 20 applies these only when given here, and checks them every connectionsCheckingInterval.
      // Node's request timeout is only a backstop: the body's own limit (body.ts, 408 with our words) comes first.
      headersTimeout: body.timeoutMs,
      requestTimeout: 3 * body.timeoutMs,
      connectionsCheckingInterval: Math.min(1_000, body.timeoutMs),
    },
    (req, res) => handleRequest(p, req, res),
  );
  const connections = boundConnections(server, {
    max: options.maxConnections ?? 512,
    silentMs: options.silentConnectionMs ?? 5_000,
    maxWaiting: options.maxWaitingConnections ?? 128,
    // A connection busy with a request frees within the request's time bound: wait that long.
    waitMs: 2 * body.timeoutMs,
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return { server, connections, url: `http://${hostForUrl}:${address.port}/mcp` };
}

/** close(): stop taking requests, drain, answer what is left "outcome unknown", then close everything. */
async function closeHttp(p: Pipeline, server: Server): Promise<void> {
  const { admission, options, log } = p;
  admission.close();
  server.close();
  server.closeIdleConnections();
  await admission.settle(options.drainMs ?? 10_000);
  if (admission.process.inFlight > 0) {
    log.warn("calls still running after the drain: answering them with an unknown outcome", {
      in_flight: admission.process.inFlight,
    });
    options.abandon?.();
    await admission.settle(options.abandonGraceMs ?? 2_000);
  }
  await p.endpoint.close();
  server.closeAllConnections();
}

export async function startHttp(
  makeServer: (caller: Caller) => ProtocolServer,
  options: HttpOptions,
): Promise<HttpHandle> {
  const p = await pipelineOf(makeServer, options);
  const { server, connections, url } = await listenHttp(p);
  p.authenticator = authenticatorOf(options, url);
  p.log.info("serving MCP over Streamable HTTP (stateless; protocol 2026-07-28 and 2025-11-25)", {
    url,
    auth: p.authenticator.scheme,
    max_in_flight: p.admission.process.limit,
    body_timeout_ms: p.body.timeoutMs,
    ...(options.tenantMaxInFlight === undefined ? {} : { tenant_max_in_flight: options.tenantMaxInFlight }),
  });
  return {
    url,
    stats: () => p.admission.stats(),
    connections,
    close: () => closeHttp(p, server),
  };
}
