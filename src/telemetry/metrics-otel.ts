/**
 * OpenTelemetry metrics beside the traces (interface.md §6c "Operators see it"): requests sent
 * upstream, time spent waiting for the company's request budget, 406s met, snapshot hits and misses.
 * On when OTEL_EXPORTER_OTLP_ENDPOINT (or ..._METRICS_ENDPOINT) is set and OTEL_METRICS_EXPORTER is
 * not "none"; loaded by dynamic import only then (src/main/build.ts), so a start without it loads none
 * of it. Export: OTLP/HTTP (json or protobuf, as the traces) every OTEL_METRIC_EXPORT_INTERVAL ms
 * (default 60000), with the SDK's own serializers and Node's fetch: no exporter package.
 * The exporter's headers are secrets to the logs; a collector's failure is logged, never thrown.
 */
import { JsonMetricsSerializer, ProtobufMetricsSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AggregationTemporality,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import type { Env } from "../config/config.js";
import { VERSION } from "../config/version.js";
import { ConfigError } from "../errors/api-error.js";
import { PROCESS_SECRETS } from "../errors/secret.js";
import type { Logger } from "./logger.js";
import { installMetrics, type MetricsRecorder } from "./metrics.js";
import { type OtlpTarget, otlpTarget, read } from "./otlp.js";

export interface MetricsSettings extends OtlpTarget {
  intervalMs: number;
}

export interface MetricsHandle {
  readonly url: string;
  /** Export what was recorded now. */
  forceFlush(): Promise<void>;
  /** Flush, stop, and turn the hooks off. */
  shutdown(): Promise<void>;
}

/** The metrics settings from `env`, or undefined when metrics are off. Throws ConfigError when invalid. */
export function metricsSettings(env: Env): MetricsSettings | undefined {
  const target = otlpTarget(env, "metrics");
  if (target === undefined) return undefined;
  const interval = read(env, "OTEL_METRIC_EXPORT_INTERVAL") ?? "60000";
  if (!/^\d+$/.test(interval) || Number(interval) < 100)
    throw new ConfigError([
      { variable: "OTEL_METRIC_EXPORT_INTERVAL", expected: "a whole number of ms, at least 100" },
    ]);
  return { ...target, intervalMs: Number(interval) };
}

/** ExportResultCode of @opentelemetry/core (SUCCESS, FAILED), and its ExportResult. */
const SUCCESS = 0;
const FAILED = 1;
type ExportResult = { code: number; error?: Error };

/** An OTLP/HTTP metrics exporter: the SDK's serializer, one POST per export. */
function otlpExporter(settings: MetricsSettings, logger: Logger | undefined): PushMetricExporter {
  const json = settings.protocol === "http/json";
  const serializer = json ? JsonMetricsSerializer : ProtobufMetricsSerializer;
  const post = async (metrics: ResourceMetrics): Promise<void> => {
    const body = serializer.serializeRequest(metrics);
    if (body === undefined) return;
    const res = await fetch(settings.url, {
      method: "POST",
      headers: { ...settings.headers, "content-type": json ? "application/json" : "application/x-protobuf" },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`the collector answered HTTP ${res.status}`);
  };
  return {
    export(metrics: ResourceMetrics, done: (result: ExportResult) => void) {
      post(metrics).then(
        () => done({ code: SUCCESS }),
        (error: unknown) => {
          logger?.warn("metrics: export failed", {
            message: error instanceof Error ? error.message : String(error),
          });
          done({ code: FAILED, error: error instanceof Error ? error : new Error(String(error)) });
        },
      );
    },
    forceFlush: async () => {},
    shutdown: async () => {},
    selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
  };
}

/** Start recording and exporting metrics when `env` asks for it; undefined (nothing loaded) when not. */
export function startMetrics(env: Env, logger?: Logger): MetricsHandle | undefined {
  const settings = metricsSettings(env);
  if (settings === undefined) return undefined;
  for (const value of Object.values(settings.headers)) PROCESS_SECRETS.add(value);
  const reader = new PeriodicExportingMetricReader({
    exporter: otlpExporter(settings, logger),
    exportIntervalMillis: settings.intervalMs,
    exportTimeoutMillis: Math.min(settings.intervalMs, 30_000),
  });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({
      "service.name": read(env, "OTEL_SERVICE_NAME") ?? "maintenance-mcp",
      "service.version": VERSION,
    }),
    readers: [reader],
  });
  installMetrics(recorder(provider));
  return {
    url: settings.url,
    forceFlush: () => provider.forceFlush(),
    async shutdown() {
      installMetrics(undefined);
      await provider.shutdown().catch((error: unknown) => {
        logger?.warn("metrics: last values not exported at shutdown", { error: String(error) });
      });
    },
  };
}

/** The instruments behind the hooks of metrics.ts. Attributes: tenant (when any), kind, hit. */
function recorder(provider: MeterProvider): MetricsRecorder {
  const meter = provider.getMeter("maintenance-mcp", VERSION);
  const sent = meter.createCounter("maintenance_mcp.upstream.requests", {
    description: "Requests sent upstream (every attempt, reads and writes)",
  });
  const waited = meter.createHistogram("maintenance_mcp.rate_budget.wait", {
    description: "Time a request waited for its company's request budget",
    unit: "ms",
  });
  const limited = meter.createCounter("maintenance_mcp.upstream.rate_limited", {
    description: "406 (or 429) answers met upstream",
  });
  const snapshots = meter.createCounter("maintenance_mcp.review.snapshot", {
    description: "Reviews answered from the snapshot (hit) or read upstream (miss)",
  });
  const who = (tenant: string | undefined) => (tenant === undefined ? {} : { tenant });
  return {
    requestSent: (kind, tenant) => sent.add(1, { kind, ...who(tenant) }),
    budgetWait: (ms, kind, tenant) => waited.record(ms, { kind, ...who(tenant) }),
    rateLimited: (tenant) => limited.add(1, who(tenant)),
    snapshot: (hit) => snapshots.add(1, { hit }),
  };
}
