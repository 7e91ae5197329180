/**
 * MCP over Streamable HTTP at /mcp (2026-07-28 and 2025-11-25, stateless: no sessions, any
 * replica answers any request), plus GET /healthz. Safe by default: binds loopback, checks Host
 * and Origin (DNS rebinding → 403), requires `Authorization: Bearer` when MCP_HTTP_TOKEN is set
 * (constant-time; the 401 and the OAuth discovery paths clients probe say how to send it, and
 * nothing points at OAuth), caps bodies (413) and the time to send them (408), caps concurrent
 * requests (503 + Retry-After), and close() lets in-flight calls finish, then answers the rest with
 * an "outcome unknown" result (docs/robustness.md lists the bounds).
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
  /** How long close() waits for in-flight calls (default 10 s). */
  drainMs?: number;
  /** How long close() then waits for the "outcome unknown" answers to be written (default 2 s). */
  abandonGraceMs?: number;
  /** Called when the drain times out: running calls must answer now (ServerDeps.stopping). */
  abandon?: () => void;
}

export interface HttpHandle {
  url: string;
  /** Requests in flight now, and the most seen at once. */
  stats(): { inFlight: number; peakInFlight: number; refused: number };
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

const rpcError = (code: number, message: string) => ({ jsonrpc: "2.0", error: { code, message }, id: null });

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

export async function startHttp(
  makeServer: (tenant: string | undefined) => ProtocolServer,
  options: HttpOptions,
): Promise<HttpHandle> {
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? 30_000;
  const maxInFlight = options.maxInFlight ?? 64;
  const log = options.logger.child({ transport: "http" });
  const loopbackBind = isLoopbackHost(options.host);
  const endpoint = await createHttpEndpoint(makeServer, {
    maxBodyBytes: maxBody,
    onerror: (error) => log.warn("mcp request failed", { error: error.message }),
  });
  let inFlight = 0;
  let peakInFlight = 0;
  let refused = 0;
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

  const refuseUnauthenticated = (req: IncomingMessage, res: ServerResponse): boolean => {
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
        return false;
      }
      sendUnauthorized(res, authMode, match !== null);
      return true;
    }
    if (!options.token) return false;
    if (match && sameSecret(match[1]!.trim(), options.token.reveal())) return false;
    sendUnauthorized(res, authMode, match !== null);
    return true;
  };

  /** Admission: a request counts from here until its response ends (bounded work and memory). */
  const refuseBusy = (res: ServerResponse): boolean => {
    if (closing) {
      sendJson(res, 503, rpcError(-32000, "Server is shutting down; retry on another replica or later"), {
        "retry-after": "5",
      });
      return true;
    }
    if (inFlight < maxInFlight) return false;
    refused++;
    sendJson(
      res,
      503,
      rpcError(-32000, `Server busy: ${maxInFlight} requests already in progress; retry after 1 s`),
      { "retry-after": "1" },
    );
    return true;
  };

  const handleMcp = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST") {
      // Stateless: the SDK answers GET and DELETE for the era (405, no sessions to open or end).
      await endpoint.handle(req, res, undefined);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req, maxBody, bodyTimeoutMs));
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        sendJson(res, 413, rpcError(-32600, `Request body larger than ${maxBody} bytes`), {
          connection: "close",
        });
      } else if (error instanceof BodyTooSlow) {
        log.warn("request body not received in time", { timeout_ms: bodyTimeoutMs });
        sendJson(res, 408, rpcError(-32600, `Request body not received within ${bodyTimeoutMs} ms`), {
          connection: "close",
        });
      } else {
        sendJson(res, 400, rpcError(-32700, "Parse error: the body is not valid JSON"));
      }
      return;
    }
    await endpoint.handle(req, res, body);
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
      let counted = false;
      try {
        if (refuseForeign(req, res)) return;
        if (path === "/healthz" && req.method === "GET") {
          sendJson(res, closing ? 503 : 200, {
            status: closing ? "closing" : "ok",
            version: options.version,
            in_flight: inFlight,
          });
          return;
        }
        if (path !== "/mcp") {
          if (isOAuthProbe(path)) sendJson(res, 404, staticTokenNotice(authMode, path));
          else sendJson(res, 404, rpcError(-32000, "Not found: the MCP endpoint is /mcp"));
          return;
        }
        if (refuseUnauthenticated(req, res)) return;
        if (refuseBusy(res)) return;
        counted = true;
        peakInFlight = Math.max(peakInFlight, ++inFlight);
        await handleMcp(req, res);
      } catch (error) {
        log.error("http request failed", { error });
        sendJson(res, 500, rpcError(-32603, "Internal error"));
      } finally {
        if (counted && --inFlight === 0) drained?.();
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
  });

  const settle = (ms: number) =>
    inFlight === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, ms).unref();
        });

  return {
    url,
    stats: () => ({ inFlight, peakInFlight, refused }),
    async close() {
      closing = true;
      server.close();
      server.closeIdleConnections();
      await settle(options.drainMs ?? 10_000);
      if (inFlight > 0) {
        log.warn("calls still running after the drain: answering them with an unknown outcome", {
          in_flight: inFlight,
        });
        options.abandon?.();
        await settle(options.abandonGraceMs ?? 2_000);
      }
      await endpoint.close();
      server.closeAllConnections();
    },
  };
}
