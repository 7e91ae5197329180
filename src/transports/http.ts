/**
 * MCP over Streamable HTTP at /mcp, plus GET /healthz. Safe by default: binds loopback,
 * checks Host and Origin (DNS rebinding → 403), requires `Authorization: Bearer` when
 * MCP_HTTP_TOKEN is set (constant-time), caps bodies (413), one ProtocolServer per session,
 * idle sessions expire, and close() lets in-flight calls finish.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../logger.js";
import { createHttpSession, type HttpSession, isInitializeRequest, type ProtocolServer } from "../mcp.js";
import type { Secret } from "../secret.js";

export interface HttpOptions {
  host: string;
  port: number;
  token: Secret | undefined;
  logger: Logger;
  version: string;
  /** Largest accepted request body (default 1 MiB). */
  maxBodyBytes?: number;
  /** Sessions idle longer than this are closed (default 30 min). */
  sessionIdleMs?: number;
  /** How long close() waits for in-flight calls (default 10 s). */
  drainMs?: number;
  /** Open sessions at most; a new one beyond gets 503 (default 1,000). */
  maxSessions?: number;
}

export interface HttpHandle {
  url: string;
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

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage, max: number): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > max) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export async function startHttp(makeServer: () => ProtocolServer, options: HttpOptions): Promise<HttpHandle> {
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const idleMs = options.sessionIdleMs ?? 30 * 60 * 1000;
  const maxSessions = options.maxSessions ?? 1000;
  const log = options.logger.child({ transport: "http" });
  const loopbackBind = isLoopbackHost(options.host);
  const sessions = new Map<string, { session: HttpSession; lastSeen: number }>();
  let inFlight = 0;
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

  const refuseUnauthenticated = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (!options.token) return false;
    const header = req.headers.authorization ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (match && sameSecret(match[1]!.trim(), options.token.reveal())) return false;
    sendJson(res, 401, rpcError(-32001, "Unauthorized: send Authorization: Bearer <MCP_HTTP_TOKEN>"), {
      "www-authenticate": 'Bearer realm="maintenance-mcp"',
    });
    return true;
  };

  const handleMcp = async (req: IncomingMessage, res: ServerResponse) => {
    const sessionId = req.headers["mcp-session-id"];
    const existing = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (typeof sessionId === "string" && !existing) {
      sendJson(res, 404, rpcError(-32001, "Session not found: start a new session with initialize"));
      return;
    }
    if (req.method === "POST") {
      let body: unknown;
      try {
        body = JSON.parse(await readBody(req, maxBody));
      } catch (error) {
        if (error instanceof BodyTooLarge) {
          sendJson(res, 413, rpcError(-32600, `Request body larger than ${maxBody} bytes`), {
            connection: "close",
          });
          return;
        }
        sendJson(res, 400, rpcError(-32700, "Parse error: the body is not valid JSON"));
        return;
      }
      if (existing) {
        existing.lastSeen = Date.now();
        await existing.session.handle(req, res, body);
        return;
      }
      if (closing) {
        sendJson(res, 503, rpcError(-32000, "Server is shutting down"));
        return;
      }
      if (sessions.size >= maxSessions) {
        sendJson(
          res,
          503,
          rpcError(-32000, `Too many open sessions (${maxSessions}); close unused ones (DELETE /mcp)`),
          {
            "retry-after": "60",
          },
        );
        return;
      }
      if (!isInitializeRequest(body)) {
        sendJson(res, 400, rpcError(-32000, "Bad Request: no valid mcp-session-id; send initialize first"));
        return;
      }
      const session = await createHttpSession(makeServer(), {
        sessionId: randomUUID,
        onInitialized: (id) => {
          sessions.set(id, { session, lastSeen: Date.now() });
          log.debug("session opened", { session: id, sessions: sessions.size });
        },
        onClosed: (id) => {
          sessions.delete(id);
          log.debug("session closed", { session: id });
        },
      });
      await session.handle(req, res, body);
      return;
    }
    if (req.method === "GET" || req.method === "DELETE") {
      if (!existing) {
        sendJson(res, 400, rpcError(-32000, "Bad Request: mcp-session-id header required"));
        return;
      }
      existing.lastSeen = Date.now();
      await existing.session.handle(req, res, undefined);
      return;
    }
    sendJson(res, 405, rpcError(-32000, "Method not allowed"), { allow: "GET, POST, DELETE" });
  };

  const server = createServer(async (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const counted = req.method === "POST";
    if (counted) inFlight++;
    try {
      if (refuseForeign(req, res)) return;
      if (path === "/healthz" && req.method === "GET") {
        sendJson(res, closing ? 503 : 200, {
          status: closing ? "closing" : "ok",
          version: options.version,
          sessions: sessions.size,
        });
        return;
      }
      if (path !== "/mcp") {
        sendJson(res, 404, rpcError(-32000, "Not found: the MCP endpoint is /mcp"));
        return;
      }
      if (refuseUnauthenticated(req, res)) return;
      await handleMcp(req, res);
    } catch (error) {
      log.error("http request failed", { error });
      sendJson(res, 500, rpcError(-32603, "Internal error"));
    } finally {
      if (counted && --inFlight === 0) drained?.();
    }
  });
  server.requestTimeout = 0; // SSE streams are long-lived; per-call time is bounded upstream.

  const sweep = setInterval(
    () => {
      const cutoff = Date.now() - idleMs;
      for (const [id, entry] of sessions) {
        if (entry.lastSeen < cutoff) {
          sessions.delete(id);
          void entry.session.close();
        }
      }
    },
    Math.min(idleMs, 60_000),
  );
  sweep.unref();

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${hostForUrl}:${address.port}/mcp`;
  log.info("serving MCP over Streamable HTTP", { url, auth: options.token ? "bearer" : "none" });

  return {
    url,
    async close() {
      closing = true;
      clearInterval(sweep);
      server.close();
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, options.drainMs ?? 10_000).unref();
        });
      }
      await Promise.allSettled([...sessions.values()].map((s) => s.session.close()));
      sessions.clear();
      server.closeAllConnections();
    },
  };
}
