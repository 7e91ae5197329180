/**
 * Turn tracing on when OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set: a lean SDK (tracer
 * provider, batch span processor, OTLP/HTTP exporter, AsyncLocalStorage context) loaded by dynamic
 * import, so a start without it loads nothing beyond `@opentelemetry/api`.
 * Clients steer nothing (interface.md §7b): every attribute value is cut (256 characters unless
 * OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT says otherwise), and the server decides sampling: a caller's
 * `traceparent` gives the trace its id, never its sampled flag, and a write is always recorded.
 * The exporter's headers (often an API key) are secrets to the logs; a collector's error answer is
 * logged cut and redacted.
 * Versions: the 2.x SDK / 0.223 exporter line, the last whose engines allow Node 20 (3.x needs 22.15).
 */
import {
  type Attributes,
  type Context,
  context,
  DiagLogLevel,
  diag,
  type Link,
  type SpanKind,
  trace,
} from "@opentelemetry/api";
import type { Env } from "../config/config.js";
import { VERSION } from "../config/version.js";
import { ConfigError } from "../errors/api-error.js";
import { scrubText } from "../errors/redact.js";
import { PROCESS_SECRETS } from "../errors/secret.js";
import type { Logger } from "./logger.js";
import { keyValues, type OtlpTarget, otlpTarget, read } from "./otlp.js";
import { clip, WRITE_CALL } from "./spans.js";

export interface TracingHandle {
  /** Where spans go (the traces URL). */
  readonly url: string;
  readonly protocol: "http/protobuf" | "http/json";
  /** Export every finished span now. */
  forceFlush(): Promise<void>;
  /** Flush, stop exporting and unregister the global provider (call on shutdown). */
  shutdown(): Promise<void>;
}

interface TracingSettings extends OtlpTarget {
  attributes: Record<string, string>;
  /** Longest attribute value exported (OTEL_[SPAN_]ATTRIBUTE_VALUE_LENGTH_LIMIT, default 256). */
  attributeValueLengthLimit: number;
  /** Share of traces the server starts (OTEL_TRACES_SAMPLER[_ARG]); writes are always recorded. */
  ratio: number;
}

/** Default longest attribute value: the SDK's own default is unlimited. */
export const DEFAULT_ATTRIBUTE_VALUE_LENGTH_LIMIT = 256;
/** Longest collector error text logged. */
const LOGGED_ERROR_MAX = 300;

/** OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT, else OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT, else 256. */
function attributeLimit(env: Env): number {
  const variable =
    read(env, "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT") !== undefined
      ? "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT"
      : "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT";
  const raw = read(env, variable);
  if (raw === undefined) return DEFAULT_ATTRIBUTE_VALUE_LENGTH_LIMIT;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 1_000_000)
    throw new ConfigError([
      {
        variable,
        expected: `a whole number of characters from 1 to 1000000 (default ${DEFAULT_ATTRIBUTE_VALUE_LENGTH_LIMIT})`,
      },
    ]);
  return Number(raw);
}

const SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
];

/**
 * The share of traces to start, from OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG. The parentbased_*
 * forms follow a parent only within this process: a remote caller's flag never decides.
 */
function samplingRatio(env: Env): number {
  const sampler = read(env, "OTEL_TRACES_SAMPLER")?.toLowerCase() ?? "parentbased_always_on";
  if (!SAMPLERS.includes(sampler))
    throw new ConfigError([{ variable: "OTEL_TRACES_SAMPLER", expected: `one of ${SAMPLERS.join(", ")}` }]);
  if (sampler.endsWith("always_on")) return 1;
  if (sampler.endsWith("always_off")) return 0;
  const arg = read(env, "OTEL_TRACES_SAMPLER_ARG");
  if (arg === undefined) return 1;
  const ratio = Number(arg);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
    throw new ConfigError([
      {
        variable: "OTEL_TRACES_SAMPLER_ARG",
        expected: "a number from 0 to 1 (the share of traces recorded)",
      },
    ]);
  return ratio;
}

/** The tracing settings from `env`, or undefined when tracing is off. Throws ConfigError when invalid. */
export function tracingSettings(env: Env): TracingSettings | undefined {
  const target = otlpTarget(env, "traces");
  if (target === undefined) return undefined;
  return {
    ...target,
    attributes: {
      ...keyValues(read(env, "OTEL_RESOURCE_ATTRIBUTES"), "OTEL_RESOURCE_ATTRIBUTES"),
      "service.name": read(env, "OTEL_SERVICE_NAME") ?? "maintenance-mcp",
      "service.version": VERSION,
    },
    attributeValueLengthLimit: attributeLimit(env),
    ratio: samplingRatio(env),
  };
}

/** The sampling decisions of @opentelemetry/sdk-trace-base's SamplingDecision enum. */
const NOT_RECORD = 0;
const RECORD_AND_SAMPLED = 2;

/**
 * The server's sampler: a span with a parent in this process follows it; any other (a new trace, or
 * one continuing a caller's `traceparent`) is recorded when it is a write, else with `ratio`, drawn
 * at random (not from the trace id, which the caller chooses).
 */
export function serverSampler(ratio: number, random: () => number = Math.random) {
  return {
    shouldSample(
      parentContext: Context,
      _traceId: string,
      _name: string,
      _kind: SpanKind,
      _a: Attributes,
      _l: Link[],
    ) {
      const parent = trace.getSpanContext(parentContext);
      if (parent !== undefined && !parent.isRemote)
        return { decision: parent.traceFlags & 1 ? RECORD_AND_SAMPLED : NOT_RECORD };
      if (parentContext.getValue(WRITE_CALL) === true) return { decision: RECORD_AND_SAMPLED };
      return { decision: ratio >= 1 || random() < ratio ? RECORD_AND_SAMPLED : NOT_RECORD };
    },
    toString: () => `ServerSampler{ratio=${ratio}, writes always, caller's flag ignored}`,
  };
}

/**
 * A diag message as one log field: an exporter error as "message (HTTP code): answer" without its
 * stack, redacted (the exporter's headers are known secrets), then cut.
 */
export function loggedDiag(args: unknown[]): string {
  const text = scrubText(args.map(describe).join(" "));
  return text.length > LOGGED_ERROR_MAX ? `${clip(text, LOGGED_ERROR_MAX)}… (cut)` : text;
}

/** The SDK logs an export failure as the JSON of the flattened error ({message, code, data, stack}). */
function describe(value: unknown): string {
  let error = value;
  if (typeof value === "string") {
    if (!value.startsWith("{")) return value;
    try {
      error = JSON.parse(value);
    } catch {
      return value;
    }
  }
  const e = error as { name?: unknown; message?: unknown; code?: unknown; data?: unknown } | null;
  if (e === null || typeof e !== "object" || typeof e.message !== "string") return safeJson(error);
  const code = typeof e.code === "number" || typeof e.code === "string" ? ` (${e.code})` : "";
  const data = typeof e.data === "string" && e.data !== "" ? `: ${e.data}` : "";
  return `${e.message}${code}${data}`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
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
  // The exporter sends these headers (often an API key) on every export: never in a log line.
  for (const value of Object.values(settings.headers)) PROCESS_SECRETS.add(value);
  if (logger) {
    // A collector's error answer is passed here whole (up to 4 MB), and may echo the headers.
    const warn = (...args: unknown[]) => logger.warn("tracing", { message: loggedDiag(args) });
    diag.setLogger(
      { error: warn, warn, info: () => {}, debug: () => {}, verbose: () => {} },
      { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
    );
  }
  const exporter = new exporterModule.OTLPTraceExporter({ url: settings.url, headers: settings.headers });
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes(settings.attributes),
    spanProcessors: [new sdk.BatchSpanProcessor(exporter)],
    sampler: serverSampler(settings.ratio),
    // Span and event attributes alike; the environment variables are read here, from `env`.
    spanLimits: { attributeValueLengthLimit: settings.attributeValueLengthLimit },
    generalLimits: { attributeValueLengthLimit: settings.attributeValueLengthLimit },
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
