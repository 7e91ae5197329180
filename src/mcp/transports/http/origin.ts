/**
 * Step 1 of the HTTP edge: Host and Origin, against DNS rebinding (mcp-notes: an invalid Origin → 403).
 * A loopback server accepts only loopback Host and Origin names; any other server, an Origin naming
 * the Host it was sent to.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { rpcError, SERVER_ERROR, sendJson } from "./answers.js";

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.has(host.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The host name of a Host header: `[::1]:3333` → `[::1]`, `a.example:80` → `a.example`. */
export function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1);
  return hostHeader.split(":")[0] ?? "";
}

/** Why the request's Host or Origin is refused, or undefined when both are allowed. */
export function foreignReason(
  headers: IncomingMessage["headers"],
  loopbackBind: boolean,
): string | undefined {
  const host = hostnameOf(headers.host ?? "");
  if (loopbackBind && !isLoopbackHost(host))
    return `Forbidden: Host "${host}" is not allowed for a loopback server`;
  const origin = headers.origin;
  if (origin === undefined) return undefined;
  let originHost = "";
  try {
    originHost = new URL(origin).hostname;
  } catch {
    originHost = "";
  }
  const allowed = loopbackBind ? isLoopbackHost(originHost) : originHost === host;
  return allowed ? undefined : `Forbidden: Origin "${origin}" is not allowed`;
}

/** Answers 403 and returns true when the Host or Origin is refused. */
export function refuseForeign(req: IncomingMessage, res: ServerResponse, loopbackBind: boolean): boolean {
  const reason = foreignReason(req.headers, loopbackBind);
  if (reason === undefined) return false;
  sendJson(res, 403, rpcError(SERVER_ERROR, reason));
  return true;
}
