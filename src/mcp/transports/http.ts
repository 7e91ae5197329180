/**
 * MCP over Streamable HTTP at /mcp (2026-07-28 and 2025-11-25, stateless: no sessions, any
 * replica answers any request), plus GET /healthz. Safe by default: binds loopback, checks Host
 * and Origin (DNS rebinding → 403), requires `Authorization: Bearer` when MCP_HTTP_TOKEN is set
 * (constant-time; the 401 and the OAuth discovery paths clients probe say how to send it, and
 * nothing points at OAuth), caps bodies (413) and the time to send them (408), refuses JSON-RPC
 * batches and Mcp-Method / Mcp-Name headers that disagree with the body (400), caps concurrent
 * requests (503 + Retry-After) and, with tenants, each tenant's own (429 + Retry-After), and close()
 * lets in-flight calls finish, then answers the rest with an "outcome unknown" result
 * (docs/robustness.md).
 * IMPORTANT: a request is admitted (counts against either limit) only once its whole body has
 * arrived: a slow sender holds a socket, never a slot another tenant could use.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Secret } from "../../errors/secret.js";
import type { Logger } from "../../telemetry/logger.js";
import { createHttpEndpoint, type ProtocolServer } from "../sdk.js";

export interface HttpOptions {
  host: string;
  port: number;
  token: Secret | undefined;
  /**
   * MCP_TENANTS_FILE: the tenant name for a bearer token (undefined → 401). Replaces `token`; the
   * name reaches the server factory through `req.auth` (never the token itself).
   */
  tenantOf?: (bearerToken: string | undefined) => string | undefined;
  logger: Logger;
  version: string;
  /** Largest accepted request body (default 1 MiB). */
  maxBodyBytes?: number;
  /** Time a client has to send the headers and, separately, the body of a request (default 30 s). */
  bodyTimeoutMs?: number;
  /** Requests served at once; more get 503 with Retry-After (default 64). */
  maxInFlight?: number;
  /** With `tenantOf`: requests one tenant may have served at once; more get 429 (default 16). */
  tenantMaxInFlight?: number;
  /** How long close() waits for in-flight calls (default 10 s). */
  drainMs?: number;
  /** How long close() then waits for the "outcome unknown" answers to be written (default 2 s). */
  abandonGraceMs?: number;
  /** Called when the drain times out: running calls must answer now (ServerDeps.stopping). */
  abandon?: () => void;
  /** The idempotency store's state, shown by /healthz ("degraded": keyed writes are refused, the rest works). */
  storeHealth?: () => { status: "ok" | "degraded" };
  /** More of /healthz (each company's request budget: src/hosting/rate-budgets.ts budgetHealth). */
  healthExtra?: () => Record<string, unknown>;
}

/** Admission counters: requests being served now, the most at once, and how many were refused as busy. */
export interface InFlightStats {
  inFlight: number;
  peakInFlight: number;
  refused: number;
}

export interface HttpHandle {
  url: string;
  /** The process's counters and, with tenants, each tenant's (refused: over its own limit). */
  stats(): InFlightStats & { tenants: Record<string, InFlightStats> };
  close(): Promise<void>;
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.has(host.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1);
  return hostHeader.split(":")[0] ?? "";
}

function sameSecret(given: string, expected: string): boolean {
  // Hash both sides so lengths match and timing reveals nothing.
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

const rpcError = (code: number, message: string, id: string | number | null = null) => ({
  jsonrpc: "2.0",
  error: { code, message },
  id,
});

/** JSON-RPC "invalid request"; -32020 is the MCP header-mismatch code (the SDK answers the 2026 era with it). */
const INVALID_REQUEST = -32600;
const HEADER_MISMATCH = -32020;

/** How clients authenticate: one static bearer token, a tenant's token, or not at all (loopback). */
type AuthMode = "token" | "tenants" | "none";

/** What a client must send, in words, for the 401 and the OAuth discovery answers. No secret. */
function howToAuthenticate(mode: AuthMode): string {
  switch (mode) {
    case "token":
      return 'This server uses a static bearer token, not OAuth: send the header Authorization: Bearer <the value of its MCP_HTTP_TOKEN>, set in your client\'s configuration (e.g. "headers" of the server entry).';
    case "tenants":
      return "This server uses static bearer tokens, one per tenant (MCP_TENANTS_FILE), not OAuth: send the header Authorization: Bearer <your tenant's token>, set in your client's configuration (e.g. \"headers\" of the server entry).";
    case "none":
      return "This server needs no authentication and does not use OAuth: connect to /mcp without an Authorization header.";
  }
}

/**
 * The paths an OAuth-capable MCP client probes after a 401 (MCP authorization, 2025-06-18 and
 * later: RFC 9728 protected-resource metadata at the root and with the endpoint path appended,
 * RFC 8414 and OpenID Connect discovery, path-inserted and path-appended), and the endpoints a
 * 2025-03-26 client falls back to without metadata (/authorize, /token, /register).
 */
const OAUTH_PROBE =
  /^(?:\/mcp)?\/\.well-known\/(?:oauth-protected-resource|oauth-authorization-server|openid-configuration)(?:\/.*)?$|^\/(?:authorize|token|register)\/?$/;

export const isOAuthProbe = (path: string): boolean => OAUTH_PROBE.test(path);

/**
 * The answer to an OAuth probe: 404 with JSON that says how to authenticate instead. 404 because
 * RFC 9728 and RFC 8414 define only a 200 as metadata: a 404 is what clients (the MCP SDKs among
 * them) read as "this server publishes no OAuth metadata", so they neither parse a document that
 * would point them at an authorization server nor retry; a 401 would ask for credentials to read
 * the metadata, a 5xx reads as an outage. `error_description` carries the instruction for clients
 * that show an OAuth error's description.
 */
function staticTokenNotice(mode: AuthMode, path: string) {
  return {
    error: "oauth_not_supported",
    error_description: howToAuthenticate(mode),
    authentication: mode === "none" ? "none" : "static_bearer_token",
    ...(mode === "none" ? {} : { header: "Authorization: Bearer <token>" }),
    endpoint: "/mcp",
    path,
  };
}

/**
 * 401 for a missing or wrong bearer token. The challenge is a plain Bearer one (RFC 6750) with no
 * resource_metadata, so nothing points the client at OAuth, and says in its description what to send.
 */
function sendUnauthorized(res: ServerResponse, mode: AuthMode, sentBearer: boolean): void {
  const description = howToAuthenticate(mode);
  const challenge = `Bearer realm="maintenance-mcp"${sentBearer ? ', error="invalid_token"' : ""}, error_description="${description.replace(/["\\]/g, "'")}"`;
  const what = sentBearer
    ? mode === "tenants"
      ? "the bearer token matches no tenant of this server (MCP_TENANTS_FILE)"
      : "the bearer token is not this server's MCP_HTTP_TOKEN"
    : "no Authorization: Bearer header";
  sendJson(res, 401, rpcError(-32001, `Unauthorized: ${what}. ${description}`), {
    "www-authenticate": challenge,
  });
}

class BodyTooLarge extends Error {}
class BodyTooSlow extends Error {}

/** The body as text; rejects past `max` bytes or when it is not complete within `timeoutMs`. */
function readBody(req: IncomingMessage, max: number, timeoutMs: number): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > max) return Promise.reject(new BodyTooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (error: Error) => {
      clearTimeout(timer);
      req.off("data", onData);
      req.pause();
      reject(error);
    };
    const timer = setTimeout(() => stop(new BodyTooSlow()), timeoutMs);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) stop(new BodyTooLarge());
      else chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("error", (error) => stop(error));
    req.once("end", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
  });
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The JSON-RPC id to echo in an error answer: the body's, when it is a single request. */
function idOf(body: unknown): string | number | null {
  const id = isPlainObject(body) ? body.id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/** Which body field the Mcp-Name header mirrors, per method (SEP-2243, as the SDK's table). */
const NAME_SOURCE: Record<string, string> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

/** An Mcp-Name value, decoded from its `=?base64?...?=` form when it has one; undefined when that is invalid. */
function decodeHeaderValue(value: string): string | undefined {
  const m = /^=\?base64\?(.*)\?=$/.exec(value);
  if (m === null) return value;
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(m[1]!)) return undefined;
  return Buffer.from(m[1]!, "base64").toString("utf8");
}

/**
 * Why the Mcp-Method or Mcp-Name header disagrees with the body, or undefined when they agree or are
 * absent. The SDK checks this for 2026-07-28 requests only; a proxy that routes on the headers must
 * see the same call the server runs in either era, so this check runs for every request.
 */
export function headerMismatch(
  headers: IncomingMessage["headers"],
  body: Record<string, unknown>,
): string | undefined {
  const method = typeof body.method === "string" ? body.method : undefined;
  if (method === undefined) return undefined;
  const header = (name: string) => {
    const v = headers[name];
    return typeof v === "string" ? v.trim() : undefined;
  };
  const methodHeader = header("mcp-method");
  if (methodHeader !== undefined && methodHeader !== method)
    return "the Mcp-Method header names another method than the body";
  const nameHeader = header("mcp-name");
  const field = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method]! : undefined;
  if (nameHeader === undefined || field === undefined) return undefined;
  const bodyValue = isPlainObject(body.params) ? body.params[field] : undefined;
  if (typeof bodyValue !== "string") return undefined;
  const decoded = decodeHeaderValue(nameHeader);
  if (decoded === undefined) return "the Mcp-Name header is not valid =?base64?...?= text";
  if (decoded !== bodyValue)
    return `the Mcp-Name header names another ${field} than the body's params.${field}`;
  return undefined;
}

/** One admission's counters: the process, or one tenant. */
class Gate {
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

/** Who sent a request: a tenant's name, `undefined` for the single upstream, or REFUSED (already answered). */
const REFUSED = Symbol("refused");
type Caller = string | undefined | typeof REFUSED;

export async function startHttp(
  makeServer: (tenant: string | undefined) => ProtocolServer,
  options: HttpOptions,
): Promise<HttpHandle> {
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? 30_000;
  const maxInFlight = options.maxInFlight ?? 64;
  const tenantMaxInFlight = options.tenantMaxInFlight ?? 16;
  const log = options.logger.child({ transport: "http" });
  const loopbackBind = isLoopbackHost(options.host);
  const endpoint = await createHttpEndpoint(makeServer, {
    maxBodyBytes: maxBody,
    onerror: (error) => log.warn("mcp request failed", { error: error.message }),
  });
  const processGate = new Gate(maxInFlight);
  const tenantGates = new Map<string, Gate>();
  let closing = false;
  let drained: (() => void) | undefined;

  /** Host/Origin checks against DNS rebinding (mcp-notes: invalid Origin → 403). */
  const refuseForeign = (req: IncomingMessage, res: ServerResponse): boolean => {
    const host = hostnameOf(req.headers.host ?? "");
    if (loopbackBind && !isLoopbackHost(host)) {
      sendJson(res, 403, rpcError(-32000, `Forbidden: Host "${host}" is not allowed for a loopback server`));
      return true;
    }
    const origin = req.headers.origin;
    if (origin !== undefined) {
      let originHost = "";
      try {
        originHost = new URL(origin).hostname;
      } catch {
        originHost = "";
      }
      const allowed = loopbackBind ? isLoopbackHost(originHost) : originHost === host;
      if (!allowed) {
        sendJson(res, 403, rpcError(-32000, `Forbidden: Origin "${origin}" is not allowed`));
        return true;
      }
    }
    return false;
  };

  const authMode: AuthMode = options.tenantOf ? "tenants" : options.token ? "token" : "none";

  /** The caller's tenant (or undefined without tenants), or REFUSED after answering 401. */
  const authenticate = (req: IncomingMessage, res: ServerResponse): Caller => {
    const header = req.headers.authorization ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (options.tenantOf) {
      const tenant = options.tenantOf(match?.[1]?.trim());
      if (tenant !== undefined) {
        // The SDK passes req.auth to the server factory as authInfo; the token itself is not kept.
        (req as IncomingMessage & { auth?: unknown }).auth = {
          token: "",
          clientId: tenant,
          scopes: [],
          extra: { tenant },
        };
        return tenant;
      }
      sendUnauthorized(res, authMode, match !== null);
      return REFUSED;
    }
    if (!options.token) return undefined;
    if (match && sameSecret(match[1]!.trim(), options.token.reveal())) return undefined;
    sendUnauthorized(res, authMode, match !== null);
    return REFUSED;
  };

  const refuseClosing = (res: ServerResponse): boolean => {
    if (!closing) return false;
    sendJson(res, 503, rpcError(-32000, "Server is shutting down; retry on another replica or later"), {
      "retry-after": "5",
    });
    return true;
  };

  /**
   * The body as JSON, or undefined after answering 413 (too large), 408 (too slow), 400 (not JSON,
   * a batch, or headers that disagree with it). Nothing is admitted yet: reading holds no slot.
   */
  const readRequest = async (
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{ body: unknown } | undefined> => {
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req, maxBody, bodyTimeoutMs));
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        sendJson(res, 413, rpcError(INVALID_REQUEST, `Request body larger than ${maxBody} bytes`), {
          connection: "close",
        });
      } else if (error instanceof BodyTooSlow) {
        log.warn("request body not received in time", { timeout_ms: bodyTimeoutMs });
        sendJson(
          res,
          408,
          rpcError(INVALID_REQUEST, `Request body not received within ${bodyTimeoutMs} ms`),
          {
            connection: "close",
          },
        );
      } else {
        sendJson(res, 400, rpcError(-32700, "Parse error: the body is not valid JSON"));
      }
      return undefined;
    }
    if (Array.isArray(body)) {
      // One HTTP request is one unit of admission: a batch would run many calls in one slot.
      sendJson(
        res,
        400,
        rpcError(
          INVALID_REQUEST,
          `JSON-RPC batches are not accepted (this body is an array of ${body.length}): send one JSON-RPC request per HTTP request`,
        ),
      );
      return undefined;
    }
    const mismatch = isPlainObject(body) ? headerMismatch(req.headers, body) : undefined;
    if (mismatch !== undefined) {
      sendJson(
        res,
        400,
        rpcError(
          HEADER_MISMATCH,
          `Bad Request: the request headers and body disagree: ${mismatch}; send headers that match the body (or none)`,
          idOf(body),
        ),
      );
      return undefined;
    }
    return { body };
  };

  const gateOf = (tenant: string): Gate => {
    let gate = tenantGates.get(tenant);
    if (gate === undefined) {
      gate = new Gate(tenantMaxInFlight);
      tenantGates.set(tenant, gate);
    }
    return gate;
  };

  /** Admission: the gates the request now counts against, until its response ends; undefined after refusing it. */
  const admit = (res: ServerResponse, tenant: string | undefined): Gate[] | undefined => {
    if (refuseClosing(res)) return undefined;
    const tenantGate = tenant === undefined ? undefined : gateOf(tenant);
    if (tenantGate?.full) {
      // The caller's own use only: nothing about the server or the other tenants.
      tenantGate.refused++;
      sendJson(
        res,
        429,
        rpcError(
          -32000,
          `Too many requests in progress for your tenant: ${tenantGate.limit} already running (MCP_TENANT_MAX_IN_FLIGHT); wait for one to finish, or retry after 1 s`,
        ),
        { "retry-after": "1" },
      );
      return undefined;
    }
    if (processGate.full) {
      processGate.refused++;
      sendJson(
        res,
        503,
        rpcError(-32000, `Server busy: ${maxInFlight} requests already in progress; retry after 1 s`),
        { "retry-after": "1" },
      );
      return undefined;
    }
    const gates = tenantGate === undefined ? [processGate] : [processGate, tenantGate];
    for (const gate of gates) gate.enter();
    return gates;
  };

  const release = (gates: Gate[]) => {
    for (const gate of gates) gate.inFlight--;
    if (processGate.inFlight === 0) drained?.();
  };

  const server = createServer(
    {
      // Node 20 applies these only when given here, and checks them every connectionsCheckingInterval.
      headersTimeout: bodyTimeoutMs,
      requestTimeout: 2 * bodyTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, bodyTimeoutMs),
    },
    async (req, res) => {
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      let admitted: Gate[] | undefined;
      try {
        if (refuseForeign(req, res)) return;
        if (path === "/healthz" && req.method === "GET") {
          const store = options.storeHealth?.();
          // A degraded store still answers 200: reads and unkeyed writes work here, and every replica
          // shares the store, so a balancer pulling this one would gain nothing; the body tells an operator.
          sendJson(res, closing ? 503 : 200, {
            status: closing ? "closing" : store?.status === "degraded" ? "degraded" : "ok",
            version: options.version,
            in_flight: processGate.inFlight,
            ...(store === undefined ? {} : { idempotency: store }),
            ...options.healthExtra?.(),
          });
          return;
        }
        if (path !== "/mcp") {
          if (isOAuthProbe(path)) sendJson(res, 404, staticTokenNotice(authMode, path));
          else sendJson(res, 404, rpcError(-32000, "Not found: the MCP endpoint is /mcp"));
          return;
        }
        const tenant = authenticate(req, res);
        if (tenant === REFUSED || refuseClosing(res)) return;
        let body: unknown;
        if (req.method === "POST") {
          const read = await readRequest(req, res);
          if (read === undefined) return;
          body = read.body;
        }
        admitted = admit(res, tenant);
        if (admitted === undefined) return;
        // Stateless: the SDK answers GET and DELETE for the era (405, no sessions to open or end).
        await endpoint.handle(req, res, body);
      } catch (error) {
        log.error("http request failed", { error });
        sendJson(res, 500, rpcError(-32603, "Internal error"));
      } finally {
        if (admitted !== undefined) release(admitted);
      }
    },
  );

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${hostForUrl}:${address.port}/mcp`;
  log.info("serving MCP over Streamable HTTP (stateless; protocol 2026-07-28 and 2025-11-25)", {
    url,
    auth: options.tenantOf ? "tenants" : options.token ? "bearer" : "none",
    max_in_flight: maxInFlight,
    ...(options.tenantOf ? { tenant_max_in_flight: tenantMaxInFlight } : {}),
  });

  const settle = (ms: number) =>
    processGate.inFlight === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, ms).unref();
        });

  return {
    url,
    stats: () => ({
      ...processGate.stats(),
      tenants: Object.fromEntries([...tenantGates].map(([name, gate]) => [name, gate.stats()])),
    }),
    async close() {
      closing = true;
      server.close();
      server.closeIdleConnections();
      await settle(options.drainMs ?? 10_000);
      if (processGate.inFlight > 0) {
        log.warn("calls still running after the drain: answering them with an unknown outcome", {
          in_flight: processGate.inFlight,
        });
        options.abandon?.();
        await settle(options.abandonGraceMs ?? 2_000);
      }
      await endpoint.close();
      server.closeAllConnections();
    },
  };
}
