/**
 * The request path's metrics (src/telemetry/metrics.ts, metrics-otel.ts): off without an endpoint (the
 * hooks do nothing), and with one, exported over OTLP/HTTP JSON to a loopback collector: requests
 * sent, budget waits, 406s met, snapshot hits and misses, with the tenant and nothing else.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  countRateLimited,
  countRequestSent,
  countSnapshot,
  recordBudgetWait,
} from "../../src/telemetry/metrics.js";
import { metricsSettings, startMetrics } from "../../src/telemetry/metrics-otel.js";

let collector: Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (collector ? collector.close(() => r()) : r()));
  collector = undefined;
});

/** A collector on port 0 keeping every JSON body posted to /v1/metrics, and the headers. */
async function startCollector() {
  const bodies: unknown[] = [];
  const headers: Record<string, string | string[] | undefined>[] = [];
  collector = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => {
      text += c;
    });
    req.on("end", () => {
      if (req.url === "/v1/metrics") {
        bodies.push(JSON.parse(text));
        headers.push(req.headers);
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => collector!.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`, bodies, headers };
}

interface Point {
  asInt?: string | number;
  asDouble?: number;
  count?: string | number;
  sum?: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}
type Metric = { name: string; sum?: { dataPoints: Point[] }; histogram?: { dataPoints: Point[] } };

function metricsOf(body: unknown): Metric[] {
  const b = body as { resourceMetrics: { scopeMetrics: { metrics: Metric[] }[] }[] };
  return b.resourceMetrics.flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics));
}

/** A sum's value, integer or double as the SDK chose. */
const value = (p: Point) => Number(p.asInt ?? p.asDouble);
const attrs = (p: Point) =>
  Object.fromEntries((p.attributes ?? []).map((a) => [a.key, Object.values(a.value)[0]]));

describe("metrics", () => {
  it("are off without an endpoint, and the hooks cost nothing", () => {
    expect(metricsSettings({})).toBeUndefined();
    expect(
      metricsSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_METRICS_EXPORTER: "none" }),
    ).toBe(undefined);
    expect(startMetrics({})).toBeUndefined();
    expect(() => countSnapshot(true)).not.toThrow();
  });

  it("go to {endpoint}/v1/metrics over OTLP/HTTP JSON, with the headers", async () => {
    const c = await startCollector();
    const handle = startMetrics({
      OTEL_EXPORTER_OTLP_ENDPOINT: c.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=k1",
      OTEL_METRIC_EXPORT_INTERVAL: "600000",
    })!;
    try {
      countRequestSent("read", "plant-north");
      countRequestSent("read", "plant-north");
      countRequestSent("write", "plant-north");
      recordBudgetWait(250, "read", "plant-north");
      countRateLimited("plant-north");
      countSnapshot(true);
      countSnapshot(false);
      countSnapshot(true);
      await handle.forceFlush();
    } finally {
      await handle.shutdown();
    }
    expect(c.headers[0]?.["x-api-key"]).toBe("k1");
    const metrics = metricsOf(c.bodies[0]);
    const byName = new Map(metrics.map((m) => [m.name, m]));
    const sent = byName.get("maintenance_mcp.upstream.requests")!.sum!.dataPoints;
    expect(sent.map((p) => [attrs(p), value(p)])).toEqual(
      expect.arrayContaining([
        [{ kind: "read", tenant: "plant-north" }, 2],
        [{ kind: "write", tenant: "plant-north" }, 1],
      ]),
    );
    const wait = byName.get("maintenance_mcp.rate_budget.wait")!.histogram!.dataPoints[0]!;
    expect([Number(wait.count), wait.sum]).toEqual([1, 250]);
    expect(value(byName.get("maintenance_mcp.upstream.rate_limited")!.sum!.dataPoints[0]!)).toBe(1);
    const snapshots = byName.get("maintenance_mcp.review.snapshot")!.sum!.dataPoints;
    expect(snapshots.map((p) => [attrs(p).hit, value(p)])).toEqual(
      expect.arrayContaining([
        [true, 2],
        [false, 1],
      ]),
    );
    // After shutdown the hooks are off again.
    countSnapshot(true);
  });
});
