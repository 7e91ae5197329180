/**
 * One raw MCP 2026-07-28 request over stateless HTTP, framed as the spec says (Mcp-Method and
 * Mcp-Name headers, protocol version and client capabilities in params._meta), for tests that
 * must see the wire: status codes, replicas, trace context. Answers come as JSON or as an SSE stream.
 */
export const MODERN = "2026-07-28";

export interface RawOptions {
  /** Client capabilities declared in _meta (default: form elicitation). */
  capabilities?: Record<string, unknown>;
  /** More _meta entries, e.g. a traceparent. */
  meta?: Record<string, unknown>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Status and parsed JSON-RPC answer (null when the body held none). */
export async function raw2026<T = unknown>(
  url: string,
  method: string,
  params: Record<string, unknown>,
  options: RawOptions = {},
): Promise<{ status: number; body: T | null }> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
      ...(typeof params.uri === "string" ? { "mcp-name": params.uri } : {}),
      ...options.headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": options.capabilities ?? { elicitation: { form: {} } },
          ...options.meta,
        },
      },
    }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await res.text();
  const json = res.headers.get("content-type")?.includes("json")
    ? text
    : (text.match(/^data: (.*)$/gm) ?? []).at(-1)?.slice(6);
  return { status: res.status, body: json === undefined || json === "" ? null : (JSON.parse(json) as T) };
}
