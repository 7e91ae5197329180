/**
 * Spans for the request path, on `@opentelemetry/api` only: without a registered SDK (tracing off)
 * every call is the API's no-op and costs next to nothing. Names and attributes follow the MCP and
 * HTTP semantic conventions (interface.md §7).
 * IMPORTANT: no secret, token or argument value in any attribute: callers pass names, codes, templates
 * and counts; `safeAttributes` redacts suspicious keys and every known Secret value as a last line.
 * Nothing a client sends can inflate a span: the one client-chosen value (the JSON-RPC id) is cut to
 * CLIENT_VALUE_MAX characters, and the SDK cuts every attribute (src/telemetry/start.ts).
 */
import {
  type Attributes,
  type AttributeValue,
  type Context,
  context,
  createContextKey,
  createTraceState,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { VERSION } from "../config/version.js";
import { Secret } from "../errors/secret.js";

const TRACER_NAME = "maintenance-mcp";
/** The tenant attribute (no semantic convention exists for it; namespaced by the project). */
export const TENANT_ATTRIBUTE = "maintenance_mcp.tenant";
/** The OAuth token's `sub` (OpenTelemetry's end-user id) and `client_id` (namespaced by the project). */
export const SUBJECT_ATTRIBUTE = "enduser.id";
export const CLIENT_ID_ATTRIBUTE = "maintenance_mcp.oauth.client_id";
/** Longest client-chosen value kept in an attribute (interface.md §7b). */
export const CLIENT_VALUE_MAX = 128;
/**
 * Set on the context a write's tool-call span starts in: the sampler (src/telemetry/start.ts) always
 * records a write, whatever the caller's `traceparent` flags or the sampling ratio.
 */
export const WRITE_CALL = createContextKey("maintenance_mcp.write_call");

export interface ToolCallSpanOptions {
  /** Tenant name from MCP_TENANTS_FILE; never its token. */
  tenant?: string | undefined;
  /** The OAuth token's `sub` and `client_id`; never the token. */
  subject?: string | undefined;
  clientId?: string | undefined;
  /** W3C `traceparent` from the request's `params._meta`; continues the caller's trace when valid. */
  traceparent?: unknown;
  /** W3C `tracestate` from `params._meta`, kept with the parent. */
  tracestate?: unknown;
  /** JSON-RPC request id (`jsonrpc.request.id`). */
  requestId?: string | number | undefined;
  /** `mcp.session.id` on the stateful HTTP transport. */
  sessionId?: string | undefined;
  /** `network.transport`: "pipe" for stdio, "tcp" for HTTP. */
  transport?: "pipe" | "tcp" | undefined;
  /** The tool writes upstream: always traced when tracing is on. */
  write?: boolean | undefined;
}

/** Handle on a tool-call span. */
export interface ToolSpan {
  /** Mark the call failed without throwing (an `isError` result): `error.type` = `errorType`. */
  fail(errorType: string): void;
}

/** Handle on an upstream request span. */
export interface UpstreamSpan {
  /** Record the HTTP status of the response; 4xx and 5xx mark the span failed (HTTP conventions). */
  status(code: number): void;
}

function tracer() {
  return trace.getTracer(TRACER_NAME, VERSION);
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The caller's span as a remote parent, or undefined for a missing or malformed `traceparent`. */
export function remoteParent(traceparent: unknown, tracestate?: unknown, base: Context = context.active()) {
  if (typeof traceparent !== "string") return undefined;
  const m = TRACEPARENT.exec(traceparent.trim());
  if (!m || /^0+$/.test(m[1]!) || /^0+$/.test(m[2]!)) return undefined;
  return trace.setSpanContext(base, {
    traceId: m[1]!,
    spanId: m[2]!,
    traceFlags: Number.parseInt(m[3]!, 16) & 1,
    isRemote: true,
    ...(typeof tracestate === "string" && tracestate.length <= 512
      ? { traceState: createTraceState(tracestate) }
      : {}),
  });
}

const SUSPICIOUS_KEY = /secret|token|password|passwd|authorization|cookie|credential|signature|hawk|bearer/i;
export const REDACTED_ATTRIBUTE = "[redacted]";

/** `value` cut to `max` UTF-16 units, without splitting a surrogate pair. */
export function clip(value: string, max: number): string {
  if (value.length <= max) return value;
  const end = /[\uD800-\uDBFF]/.test(value[max - 1]!) ? max - 1 : max;
  return value.slice(0, end);
}

/** Attributes with suspicious keys and known secret values replaced by "[redacted]". */
export function safeAttributes(attrs: Attributes): Attributes {
  const known = [...Secret.knownValues()].filter((v) => v.length >= 4);
  const clean = (v: AttributeValue | undefined): AttributeValue | undefined => {
    if (typeof v === "string") return known.some((s) => v.includes(s)) ? REDACTED_ATTRIBUTE : v;
    if (Array.isArray(v)) return v.map((x) => (typeof x === "string" ? clean(x) : x)) as AttributeValue;
    return v;
  };
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attrs))
    out[key] = SUSPICIOUS_KEY.test(key) && value !== undefined ? REDACTED_ATTRIBUTE : clean(value);
  return out;
}

/** `error.type` for a thrown error: its stable `code` (ApiError, UserInputError...), else its name. */
export function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)) return code;
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === "string" && /^[A-Za-z][A-Za-z0-9_]{0,60}$/.test(name) ? name : "_OTHER";
}

function fail(span: Span, type: string): void {
  span.setAttribute("error.type", type);
  // The status text is the type only: an error message may quote an argument value.
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

async function inSpan<T>(span: Span, fn: () => Promise<T>, onError: (error: unknown) => void): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    onError(error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Run one `tools/call` inside a server span `tools/call {tool}` (MCP semantic conventions), child of
 * the caller's `traceparent` when it is valid. A thrown error sets `error.type` and rethrows.
 */
export function toolCallSpan<T>(
  tool: string,
  options: ToolCallSpanOptions,
  fn: (span: ToolSpan) => Promise<T>,
): Promise<T> {
  const remote = remoteParent(options.traceparent, options.tracestate) ?? context.active();
  const parent = options.write ? remote.setValue(WRITE_CALL, true) : remote;
  const attributes = safeAttributes({
    "mcp.method.name": "tools/call",
    "gen_ai.tool.name": tool,
    "gen_ai.operation.name": "execute_tool",
    [TENANT_ATTRIBUTE]: options.tenant,
    [SUBJECT_ATTRIBUTE]: options.subject,
    [CLIENT_ID_ATTRIBUTE]: options.clientId,
    "jsonrpc.request.id":
      options.requestId === undefined ? undefined : clip(String(options.requestId), CLIENT_VALUE_MAX),
    "mcp.session.id": options.sessionId,
    "network.transport": options.transport,
  });
  return tracer().startActiveSpan(
    `tools/call ${tool}`,
    { kind: SpanKind.SERVER, attributes },
    parent,
    (span) =>
      inSpan(
        span,
        () => fn({ fail: (type) => fail(span, type) }),
        (error) => fail(span, errorType(error)),
      ),
  );
}

/**
 * Run one upstream HTTP request inside a client span `{METHOD} {route template}`, e.g.
 * `POST warehouse_entries_orders/{code}`: the template, never the filled-in path or query.
 */
export function upstreamSpan<T>(
  method: string,
  routeTemplate: string,
  fn: (span: UpstreamSpan) => Promise<T>,
): Promise<T> {
  const attributes = { "http.request.method": method, "url.template": routeTemplate };
  return tracer().startActiveSpan(
    `${method} ${routeTemplate}`,
    { kind: SpanKind.CLIENT, attributes },
    (span) => {
      let statusCode: number | undefined;
      const handle: UpstreamSpan = {
        status(code) {
          statusCode = code;
          span.setAttribute("http.response.status_code", code);
          if (code >= 400) fail(span, String(code));
        },
      };
      return inSpan(
        span,
        () => fn(handle),
        (error) => {
          const status = (error as { status?: unknown } | null)?.status;
          if (statusCode === undefined && typeof status === "number") handle.status(status);
          else if (statusCode === undefined || statusCode < 400) fail(span, errorType(error));
        },
      );
    },
  );
}

/** An event on the active span: `retry` (attempt, reason, delay_ms), `token_refresh` (api, scheme). */
export function spanEvent(name: string, attributes: Attributes = {}): void {
  trace.getActiveSpan()?.addEvent(name, safeAttributes(attributes));
}
