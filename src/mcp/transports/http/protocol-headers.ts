/**
 * Step 5 of the HTTP edge: the MCP protocol headers. An Mcp-Method or Mcp-Name header that
 * disagrees with the body is refused (400, -32020) in both eras: the SDK checks this for 2026-07-28
 * requests only, and a proxy that routes on the headers must see the call the server runs.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { HEADER_MISMATCH, idOf, isPlainObject, rpcError, sendJson } from "./answers.js";

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

/** Why the Mcp-Method or Mcp-Name header disagrees with the body, or undefined when they agree or are absent. */
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

/** Answers 400 and returns true when the headers disagree with the body. */
export function refuseHeaderMismatch(req: IncomingMessage, res: ServerResponse, body: unknown): boolean {
  const mismatch = isPlainObject(body) ? headerMismatch(req.headers, body) : undefined;
  if (mismatch === undefined) return false;
  sendJson(
    res,
    400,
    rpcError(
      HEADER_MISMATCH,
      `Bad Request: the request headers and body disagree: ${mismatch}; send headers that match the body (or none)`,
      idOf(body),
    ),
  );
  return true;
}
