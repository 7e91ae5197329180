/**
 * interface.md §7b "Traces carry nothing a client can inflate or steer", reproduced on loopback: a
 * 900,000-character JSON-RPC id sent to a two-tenant server exporting to a local OTLP collector that is
 * slow, refuses large bodies (413), is down, or fails echoing the request's headers; a caller's
 * traceparent that says "not sampled"; the sampler and limit settings.
 */
import { ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors/api-error.js";
import { installTracing } from "../../src/telemetry/hooks.js";
import * as spans from "../../src/telemetry/spans.js";
import {
  serverSampler,
  startTracing,
  type TracingHandle,
  tracingSettings,
} from "../../src/telemetry/start.js";
import { captureLogger, useSandbox } from "../helpers/sandbox.js";
import { type ReceiverOptions, startOtlpReceiver } from "./otlp-receiver.js";
import { startTenantsServer, TENANT_TOKENS, type TenantsServer } from "./tenants-http.js";

const fx = useSandbox();
const HUGE_ID = "i".repeat(900_000);
const COLLECTOR_KEY = "collector-api-key-0123456789";
const CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c";

beforeAll(() => {
  installTracing(spans);
  // Export on the batch processor's own timer soon (its failures are logged; forceFlush returns them).
  process.env.OTEL_BSP_SCHEDULE_DELAY = "100";
});

/** Flush, then wait (bounded) until `done`: an export the batch timer started may still be on its way. */
async function exported(tracing: TracingHandle, done: () => boolean): Promise<void> {
  await tracing.forceFlush();
  for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
}

/** The "tracing" warnings logged, once at least one arrived (bounded wait). */
async function tracingWarnings(lines: string[]): Promise<string[]> {
  const found = () => lines.filter((l) => l.includes('"msg":"tracing"'));
  // The exporter retries a collector that is down for several seconds before it reports.
  for (let i = 0; i < 400 && found().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  return found();
}

let opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of opened.reverse()) await o.close();
  opened = [];
});

/** Tracing to `endpoint`, a two-tenant server, and a logger whose lines are kept. */
async function setup(endpoint: string, env: Record<string, string> = {}) {
  const { logger, lines } = captureLogger("info");
  const tracing = (await startTracing(
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${COLLECTOR_KEY}`,
      ...env,
    },
    logger,
  )) as TracingHandle;
  const server: TenantsServer = await startTenantsServer(fx.sb);
  opened.push({ close: () => tracing.shutdown() }, server);
  return { tracing, server, lines };
}

async function receiver(options: ReceiverOptions = {}) {
  const r = await startOtlpReceiver(options);
  opened.push(r);
  return r;
}

/** One tools/call from `tenant`, as a 2025-era client sends it, with the given JSON-RPC id and _meta. */
async function call(
  server: TenantsServer,
  tenant: keyof typeof TENANT_TOKENS,
  id: string | number,
  name = "list_warehouse_groups_1",
  meta: Record<string, unknown> = {},
) {
  const args =
    name === "list_warehouse_groups_1"
      ? { limit: 1 }
      : {
          warehouse_code: "WH-MAIN",
          movement_type: "purchase",
          document: "T",
          code_user: "HR-001",
          dry_run: true,
        };
  const res = await fetch(server.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${TENANT_TOKENS[tenant]}`,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args, _meta: meta },
    }),
    signal: AbortSignal.timeout(20_000),
  });
  await res.text();
  return res.status;
}

describe("a 900,000-character JSON-RPC id", () => {
  it("is cut to 128 characters in the span, and another tenant's span in the same batch survives a 413-ing collector", async () => {
    // A collector that refuses bodies over 64 KiB: before, the huge id made the batch 413 and lost both spans.
    const collector = await receiver({ maxBodyBytes: 64 * 1024 });
    const { tracing, server } = await setup(collector.endpoint);
    expect(await call(server, "north", HUGE_ID)).toBe(200);
    expect(await call(server, "south", 7)).toBe(200);
    const calls = () => collector.spans.filter((s) => s.name === "tools/call list_warehouse_groups_1");
    await exported(tracing, () => calls().length >= 2);

    expect(collector.refused).toEqual([]);
    expect(
      calls()
        .map((s) => s.attributes["maintenance_mcp.tenant"])
        .sort(),
    ).toEqual(["north", "south"]);
    const north = calls().find((s) => s.attributes["maintenance_mcp.tenant"] === "north")!;
    expect(north.attributes["jsonrpc.request.id"]).toBe("i".repeat(128));
    expect(collector.bodies.join("").length).toBeLessThan(64 * 1024);
  }, 30_000);

  it("with a slow collector: the calls answer, and what waits for export stays small", async () => {
    const collector = await receiver({ delayMs: 1_500 });
    const { tracing, server } = await setup(collector.endpoint);
    for (let i = 0; i < 3; i++) expect(await call(server, "north", `${HUGE_ID}${i}`)).toBe(200);
    await exported(tracing, () => collector.spans.length >= 3);
    const bodies = collector.bodies.join("");
    expect(bodies).toContain('"jsonrpc.request.id"');
    expect(bodies).not.toContain("i".repeat(129));
    expect(bodies.length).toBeLessThan(64 * 1024);
  }, 30_000);

  it("with a collector that is down: the calls answer, and the warning is short and holds no credential", async () => {
    const gone = await receiver();
    const endpoint = gone.endpoint;
    await gone.close();
    opened = opened.filter((o) => o !== gone);
    // The exporter retries a refused connection with backoff until its timeout (10 s by default): with 1.5 s it
    // gives up after one retry, and the failure is reported the same way. Read when the exporter is built.
    process.env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT = "1500";
    const { server, lines } = await setup(endpoint).finally(() => {
      delete process.env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT;
    });
    expect(await call(server, "north", HUGE_ID)).toBe(200);
    const warnings = await tracingWarnings(lines);
    expect(warnings.length).toBeGreaterThan(0);
    for (const line of warnings) {
      expect(line.length).toBeLessThan(1_000);
      expect(line).not.toContain(COLLECTOR_KEY);
      expect(line).not.toContain("i".repeat(129));
    }
  }, 30_000);

  it("with a collector that fails echoing the request's headers: the logged error is cut and redacted", async () => {
    const collector = await receiver({ failEchoing: 400 });
    const { server, lines } = await setup(collector.endpoint);
    expect(await call(server, "north", HUGE_ID)).toBe(200);
    const warnings = await tracingWarnings(lines);
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings.join("")).toContain("x-api-key");
    expect(warnings.join("")).toContain("[redacted]");
    for (const line of warnings) {
      expect(line).not.toContain(COLLECTOR_KEY);
      const { message } = JSON.parse(line) as { message: string };
      expect(message.length).toBeLessThanOrEqual(310);
    }
  }, 30_000);
});

describe("the caller does not decide sampling", () => {
  it("a traceparent saying 'not sampled' joins the caller's trace but is recorded; writes are recorded even at ratio 0", async () => {
    const collector = await receiver();
    const { tracing, server } = await setup(collector.endpoint, {
      OTEL_TRACES_SAMPLER: "parentbased_always_on",
    });
    const traceparent = `00-${CALLER_TRACE}-b7ad6b7169203331-00`;
    expect(await call(server, "north", 1, "list_warehouse_groups_1", { traceparent })).toBe(200);
    await exported(tracing, () => collector.spans.length >= 1);
    const read = collector.spans.find((s) => s.name === "tools/call list_warehouse_groups_1");
    expect(read?.traceId).toBe(CALLER_TRACE);
    await tracing.shutdown();

    const quiet = await receiver();
    const off = await setup(quiet.endpoint, { OTEL_TRACES_SAMPLER: "always_off" });
    const sampled = `00-${CALLER_TRACE}-b7ad6b7169203331-01`;
    expect(await call(off.server, "north", 2, "list_warehouse_groups_1", { traceparent: sampled })).toBe(200);
    expect(await call(off.server, "north", 3, "create_warehouse_entry")).toBe(200);
    await exported(off.tracing, () => quiet.spans.length >= 1);
    // The caller's "sampled" flag did not record the read; the write was recorded with its upstream spans.
    expect(quiet.spans.map((s) => s.name)).toEqual(["tools/call create_warehouse_entry"]);
  }, 30_000);

  it("the sampler follows a local parent, draws at random for a new or remote parent, and always records a write", () => {
    const local = (flags: number) =>
      trace.setSpanContext(ROOT_CONTEXT, {
        traceId: CALLER_TRACE,
        spanId: "b7ad6b7169203331",
        traceFlags: flags,
      });
    const remote = (flags: number) =>
      trace.setSpanContext(ROOT_CONTEXT, {
        traceId: CALLER_TRACE,
        spanId: "b7ad6b7169203331",
        traceFlags: flags,
        isRemote: true,
      });
    const decide = (ratio: number, ctx: ReturnType<typeof local>, draw = 0.5) =>
      serverSampler(ratio, () => draw).shouldSample(ctx, CALLER_TRACE, "x", 0, {}, []).decision;
    expect(decide(0, local(1))).toBe(2);
    expect(decide(1, local(0))).toBe(0);
    expect(decide(0, remote(1))).toBe(0);
    expect(decide(1, remote(0))).toBe(2);
    expect(decide(0.6, ROOT_CONTEXT, 0.5)).toBe(2);
    expect(decide(0.4, ROOT_CONTEXT, 0.5)).toBe(0);
    expect(decide(0, remote(0).setValue(spans.WRITE_CALL, true))).toBe(2);
  });
});

describe("settings", () => {
  const base = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" };
  const problem = (env: Record<string, string>) => {
    try {
      tracingSettings({ ...base, ...env });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).message;
    }
    throw new Error("expected a ConfigError");
  };

  it("limits attribute values to 256 characters unless OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT says otherwise", () => {
    expect(tracingSettings(base)?.attributeValueLengthLimit).toBe(256);
    expect(
      tracingSettings({ ...base, OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: "1024" })?.attributeValueLengthLimit,
    ).toBe(1024);
    expect(
      tracingSettings({
        ...base,
        OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: "1024",
        OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: "64",
      })?.attributeValueLengthLimit,
    ).toBe(64);
    expect(problem({ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: "lots" })).toContain(
      "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: a whole number of characters from 1 to 1000000 (default 256)",
    );
  });

  it("reads the sampler and its ratio, refusing what it cannot honour", () => {
    expect(tracingSettings(base)?.ratio).toBe(1);
    expect(tracingSettings({ ...base, OTEL_TRACES_SAMPLER: "always_off" })?.ratio).toBe(0);
    expect(
      tracingSettings({
        ...base,
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.25",
      })?.ratio,
    ).toBe(0.25);
    expect(problem({ OTEL_TRACES_SAMPLER: "jaeger_remote" })).toContain(
      "OTEL_TRACES_SAMPLER: one of always_on",
    );
    expect(problem({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" })).toContain(
      "OTEL_TRACES_SAMPLER_ARG: a number from 0 to 1",
    );
  });
});
