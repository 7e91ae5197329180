/**
 * Tracing off costs nothing: without OTEL_EXPORTER_OTLP_ENDPOINT no OpenTelemetry SDK module loads, the
 * telemetry modules import nothing but `@opentelemetry/api` statically, and spans are no-ops.
 * (Own file: vitest runs each file in its own process, so the module cache starts empty.)
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { spanEvent, toolCallSpan, upstreamSpan } from "../../src/telemetry/spans.js";
import { startTracing } from "../../src/telemetry/start.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SDK = /@opentelemetry[\\/](sdk-|exporter-|resources|context-async-hooks|otlp-)/;
const loadedSdk = () => Object.keys(createRequire(import.meta.url).cache).filter((p) => SDK.test(p));

describe("tracing disabled", () => {
  it("startTracing without an endpoint returns undefined and loads no SDK module", async () => {
    expect(await startTracing({ LOG_LEVEL: "info" })).toBeUndefined();
    const out = await toolCallSpan("list_dags", { tenant: "t", traceparent: "garbage" }, async () =>
      upstreamSpan("GET", "hub/api/v1/dags", async (span) => {
        span.status(200);
        spanEvent("retry", { attempt: 1 });
        return 42;
      }),
    );
    expect(out).toBe(42);
    expect(loadedSdk()).toEqual([]);
  });

  it("src/telemetry imports only @opentelemetry/api statically; the SDK only by import()", () => {
    const STATIC = /^\s*import\s+(?!type\b)(?:[^'"]*?\sfrom\s+)?["']([^"']+)["']/gm;
    for (const file of ["src/telemetry/spans.ts", "src/telemetry/start.ts"]) {
      const specs = [...readFileSync(resolve(root, file), "utf8").matchAll(STATIC)].map((m) => m[1]!);
      expect(specs.filter((s) => s.startsWith("@opentelemetry/") && s !== "@opentelemetry/api")).toEqual([]);
    }
  });

  it("positive control: with an endpoint the SDK does load (so the check above can fail)", async () => {
    const handle = await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" });
    expect(loadedSdk().length).toBeGreaterThan(0);
    await handle?.shutdown();
  });
});
