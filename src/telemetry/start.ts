/**
 * Turn tracing on when OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set: a lean SDK (tracer
 * provider, batch span processor, OTLP/HTTP exporter, AsyncLocalStorage context) loaded by dynamic
 * import, so a start without it loads nothing beyond `@opentelemetry/api`.
 * Versions: the 2.x SDK / 0.223 exporter line, the last whose engines allow Node 20 (3.x needs 22.15).
 */
import { context, DiagLogLevel, diag, trace } from "@opentelemetry/api";
import type { Env } from "../config/config.js";
import { VERSION } from "../config/version.js";
import { ConfigError } from "../errors/api-error.js";
import type { Logger } from "./logger.js";

export interface TracingHandle {
  /** Where spans go (the traces URL). */
  readonly url: string;
  readonly protocol: "http/protobuf" | "http/json";
  /** Export every finished span now. */
  forceFlush(): Promise<void>;
  /** Flush, stop exporting and unregister the global provider (call on shutdown). */
  shutdown(): Promise<void>;
}

interface TracingSettings {
  url: string;
  protocol: "http/protobuf" | "http/json";
  headers: Record<string, string>;
  attributes: Record<string, string>;
}

function read(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === "" ? undefined : v;
}

/** `k=v,k2=v2` (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES), values percent-decoded. */
function keyValues(raw: string | undefined, variable: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (raw ?? "").split(",")) {
    if (part.trim() === "") continue;
    const eq = part.indexOf("=");
    if (eq <= 0)
      // Never echo the entry: a header value is often an API key.
      throw new ConfigError([{ variable, expected: "comma-separated key=value pairs" }]);
    try {
      out[decodeURIComponent(part.slice(0, eq).trim())] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      throw new ConfigError([{ variable, expected: "comma-separated key=value pairs, percent-encoded" }]);
    }
  }
  return out;
}

/** The tracing settings from `env`, or undefined when tracing is off. Throws ConfigError when invalid. */
export function tracingSettings(env: Env): TracingSettings | undefined {
  if (read(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;
  if (read(env, "OTEL_TRACES_EXPORTER")?.toLowerCase() === "none") return undefined;
  const tracesEndpoint = read(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  const endpoint = read(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  if (tracesEndpoint === undefined && endpoint === undefined) return undefined;
  const variable =
    tracesEndpoint !== undefined ? "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" : "OTEL_EXPORTER_OTLP_ENDPOINT";
  // Per the OTLP exporter spec, the signal path is appended to the generic endpoint only.
  const url = tracesEndpoint ?? `${endpoint!.replace(/\/+$/, "")}/v1/traces`;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new ConfigError([{ variable, expected: "an http:// or https:// URL, e.g. http://localhost:4318" }]);
  const protocolVariable =
    read(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") !== undefined
      ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
      : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = read(env, protocolVariable) ?? "http/protobuf";
  if (protocol !== "http/protobuf" && protocol !== "http/json")
    throw new ConfigError([
      {
        variable: protocolVariable,
        expected:
          "http/protobuf (default) or http/json: traces go over OTLP/HTTP (a collector's port 4318); grpc is not supported",
      },
    ]);
  return {
    url,
    protocol,
    headers: {
      ...keyValues(read(env, "OTEL_EXPORTER_OTLP_HEADERS"), "OTEL_EXPORTER_OTLP_HEADERS"),
      ...keyValues(read(env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS"), "OTEL_EXPORTER_OTLP_TRACES_HEADERS"),
    },
    attributes: {
      ...keyValues(read(env, "OTEL_RESOURCE_ATTRIBUTES"), "OTEL_RESOURCE_ATTRIBUTES"),
      "service.name": read(env, "OTEL_SERVICE_NAME") ?? "maintenance-mcp",
      "service.version": VERSION,
    },
  };
}

/**
 * A CommonJS package's exports, however `import()` loaded it. Node (and vitest) give them as named
 * exports and as `default`; the bundle (esbuild splits each package into a chunk of its own) gives
 * `default` only. The OpenTelemetry packages are CommonJS, and `default` is their module.exports.
 */
function commonJsExports<T extends object>(namespace: T): T {
  const exports = (namespace as { default?: unknown }).default;
  return typeof exports === "object" && exports !== null ? (exports as T) : namespace;
}

/**
 * Start exporting traces when `env` asks for it; undefined (and nothing loaded) when it does not.
 * Export failures are logged as warnings through `logger`, never thrown into the request path.
 */
export async function startTracing(env: Env, logger?: Logger): Promise<TracingHandle | undefined> {
  const settings = tracingSettings(env);
  if (settings === undefined) return undefined;
  const load = <T extends object>(loading: Promise<T>) => loading.then(commonJsExports);
  const [sdk, resources, hooks, exporterModule] = await Promise.all([
    load(import("@opentelemetry/sdk-trace-base")),
    load(import("@opentelemetry/resources")),
    load(import("@opentelemetry/context-async-hooks")),
    settings.protocol === "http/json"
      ? load(import("@opentelemetry/exporter-trace-otlp-http"))
      : load(import("@opentelemetry/exporter-trace-otlp-proto")),
  ]);
  if (logger) {
    const warn = (message: string) => logger.warn("tracing", { message });
    diag.setLogger(
      { error: warn, warn, info: () => {}, debug: () => {}, verbose: () => {} },
      { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
    );
  }
  const exporter = new exporterModule.OTLPTraceExporter({ url: settings.url, headers: settings.headers });
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes(settings.attributes),
    spanProcessors: [new sdk.BatchSpanProcessor(exporter)],
  });
  const contextManager = new hooks.AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(provider);
  return {
    url: settings.url,
    protocol: settings.protocol,
    forceFlush: () => provider.forceFlush(),
    async shutdown() {
      // Shutting down must not fail because the collector is away: say so and go on.
      await provider.shutdown().catch((error: unknown) => {
        logger?.warn("tracing: last spans not exported at shutdown", { error: String(error) });
      });
      trace.disable();
      context.disable();
      diag.disable();
    },
  };
}
