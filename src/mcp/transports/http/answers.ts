/**
 * The answers every step of the HTTP edge writes: a JSON body with its status and headers, and the
 * JSON-RPC error shape an MCP client reads. A step that answers returns; nothing is written twice.
 */
import type { ServerResponse } from "node:http";

/** JSON-RPC "invalid request"; -32020 is the MCP header-mismatch code (the SDK answers the 2026 era with it). */
export const INVALID_REQUEST = -32600;
export const HEADER_MISMATCH = -32020;
export const PARSE_ERROR = -32700;
/** The MCP SDKs' code for a transport-level refusal (auth, limits, not found). */
export const SERVER_ERROR = -32000;

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export const rpcError = (code: number, message: string, id: string | number | null = null) => ({
  jsonrpc: "2.0",
  error: { code, message },
  id,
});

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The JSON-RPC id to echo in an error answer: the body's, when it is a single request. */
export function idOf(body: unknown): string | number | null {
  const id = isPlainObject(body) ? body.id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
