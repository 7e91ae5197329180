/**
 * The OTLP/HTTP settings both signals read the same way (traces: start.ts, metrics: metrics-otel.ts),
 * written once: the endpoint (the signal's own, or the generic one plus /v1/<signal>, per the OTLP
 * exporter spec), the protocol (http/protobuf or http/json) and the headers (generic, then the
 * signal's). Throws ConfigError naming the variable; a header's value is never echoed.
 */
import type { Env } from "../config/config.js";
import { ConfigError } from "../errors/api-error.js";

export type OtlpSignal = "traces" | "metrics";

export interface OtlpTarget {
  url: string;
  protocol: "http/protobuf" | "http/json";
  headers: Record<string, string>;
}

/** A variable's value, trimmed; undefined when unset or blank. */
export function read(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === "" ? undefined : v;
}

/** `k=v,k2=v2` (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES), values percent-decoded. */
export function keyValues(raw: string | undefined, variable: string): Record<string, string> {
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

/**
 * Where and how `signal` is exported, or undefined when the SDK is disabled, the signal's exporter
 * is "none" or no endpoint is set.
 */
export function otlpTarget(env: Env, signal: OtlpSignal): OtlpTarget | undefined {
  const SIGNAL = signal.toUpperCase();
  if (read(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;
  if (read(env, `OTEL_${SIGNAL}_EXPORTER`)?.toLowerCase() === "none") return undefined;
  const own = read(env, `OTEL_EXPORTER_OTLP_${SIGNAL}_ENDPOINT`);
  const endpoint = read(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  if (own === undefined && endpoint === undefined) return undefined;
  const variable =
    own !== undefined ? `OTEL_EXPORTER_OTLP_${SIGNAL}_ENDPOINT` : "OTEL_EXPORTER_OTLP_ENDPOINT";
  // Per the OTLP exporter spec, the signal path is appended to the generic endpoint only.
  const url = own ?? `${endpoint!.replace(/\/+$/, "")}/v1/${signal}`;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new ConfigError([{ variable, expected: "an http:// or https:// URL, e.g. http://localhost:4318" }]);
  const protocolVariable =
    read(env, `OTEL_EXPORTER_OTLP_${SIGNAL}_PROTOCOL`) !== undefined
      ? `OTEL_EXPORTER_OTLP_${SIGNAL}_PROTOCOL`
      : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = read(env, protocolVariable) ?? "http/protobuf";
  if (protocol !== "http/protobuf" && protocol !== "http/json")
    throw new ConfigError([
      {
        variable: protocolVariable,
        expected: `http/protobuf (default) or http/json: ${signal} go over OTLP/HTTP (a collector's port 4318); grpc is not supported`,
      },
    ]);
  return {
    url,
    protocol,
    headers: {
      ...keyValues(read(env, "OTEL_EXPORTER_OTLP_HEADERS"), "OTEL_EXPORTER_OTLP_HEADERS"),
      ...keyValues(read(env, `OTEL_EXPORTER_OTLP_${SIGNAL}_HEADERS`), `OTEL_EXPORTER_OTLP_${SIGNAL}_HEADERS`),
    },
  };
}
