/**
 * Hosting wired into the built binary: traces of a tools/call (server span continuing the caller's
 * traceparent, a client span per upstream request with retry and token_refresh events, the tenant
 * named, no secret or argument value) arrive at a loopback OTLP receiver; with REDIS_URL unreachable,
 * a keyed write fails closed (nothing sent) while reads go on.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenSha256 } from "../../src/hosting/tenants.js";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { raw2026 } from "../helpers/raw-2026.js";
import { countOf, purchaseArgs, spawnHttpServer } from "../quality/helpers.js";
import { startOtlpReceiver } from "./otlp-receiver.js";

const CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN = "b7ad6b7169203331";
const BEARER = "tracing-tenant-bearer-0123456789abcdef";

let sb: SandboxHandle;
let dir: string;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, faults: true });
  dir = mkdtempSync(join(tmpdir(), "mcp-wiring-"));
});
afterAll(async () => {
  await sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** One tools/call (2026-07-28, stateless) with `meta` in params._meta; returns the JSON-RPC result. */
async function toolCall(url: string, name: string, args: Record<string, unknown>, meta = {}, headers = {}) {
  const { body } = await raw2026<{ result: { isError?: boolean; content: { text: string }[] } }>(
    url,
    "tools/call",
    { name, arguments: args },
    { capabilities: {}, meta, headers },
  );
  if (body === null) throw new Error(`no JSON-RPC answer to tools/call ${name}`);
  return body.result;
}

describe("OpenTelemetry through the binary", () => {
  it("exports a server span per tools/call and a client span per upstream request, parented, without secrets", async () => {
    const receiver = await startOtlpReceiver();
    const env = sb.env();
    const file = join(dir, "tenants.json");
    writeFileSync(
      file,
      JSON.stringify({
        tenants: [
          {
            name: "plant-north",
            token_sha256: tokenSha256(BEARER),
            upstream: {
              MMS_BASE_URL: env.MMS_BASE_URL,
              MMS_AUTH_URL: env.MMS_AUTH_URL,
              MMS_CLIENT_ID: env.MMS_CLIENT_ID,
              MMS_CLIENT_SECRET: { env: "NORTH_SECRET" },
            },
          },
        ],
      }),
    );
    const server = await spawnHttpServer([], {
      MCP_TENANTS_FILE: file,
      NORTH_SECRET: env.MMS_CLIENT_SECRET!,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "mcp-test",
      OTEL_BSP_SCHEDULE_DELAY: "50",
      MMS_MAX_RETRIES: "2",
      LOG_LEVEL: "error",
    });
    const auth = { authorization: `Bearer ${BEARER}` };
    try {
      // One 503 first: the client span carries a retry event; the first call also fetches a token.
      sb.faults.failNext("/api/warehouses_groups_1", 1, {
        status: 503,
        body: { success: false, message: "503", data: [{ ERROR: "injected" }], total: 0 },
      });
      const read = await toolCall(
        server.url,
        "list_warehouse_groups_1",
        { limit: 3 },
        { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
        auth,
      );
      expect(read.isError, read.content[0]?.text).toBeFalsy();
      const write = await toolCall(
        server.url,
        "create_warehouse_entry",
        purchaseArgs("ARGVALUE-DOC-SECRETISH", { warehouse_code: "WH-NOPE-ARG" }),
        {},
        auth,
      );
      expect(write.isError).toBe(true);
    } finally {
      await server.stop();
    }
    const deadline = Date.now() + 10_000;
    while (receiver.spans.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await receiver.close();

    const span = (name: string) => receiver.spans.find((s) => s.name === name);
    const call = span("tools/call list_warehouse_groups_1");
    expect(call).toBeDefined();
    expect(call!.traceId).toBe(CALLER_TRACE);
    expect(call!.parentSpanId).toBe(CALLER_SPAN);
    expect(call!.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "list_warehouse_groups_1",
      "maintenance_mcp.tenant": "plant-north",
      "network.transport": "tcp",
    });
    expect(call!.resource["service.name"]).toBe("mcp-test");
    const upstream = span("GET /warehouses_groups_1");
    expect(upstream).toBeDefined();
    expect(upstream!.traceId).toBe(CALLER_TRACE);
    expect(upstream!.parentSpanId).toBe(call!.spanId);
    expect(upstream!.attributes).toMatchObject({
      "http.request.method": "GET",
      "url.template": "/warehouses_groups_1",
      "http.response.status_code": 200,
    });
    expect(upstream!.events.map((e) => e.name)).toEqual(expect.arrayContaining(["token_refresh", "retry"]));

    const failed = span("tools/call create_warehouse_entry");
    expect(failed?.attributes["error.type"]).toBe("tool_error");
    // A trace of its own when the caller sent no traceparent.
    expect(failed?.traceId).not.toBe(CALLER_TRACE);
    const post = span("POST /warehouse_entries_orders/{warehouse_code}");
    expect(post?.parentSpanId).toBe(failed?.spanId);
    expect(post?.attributes["http.response.status_code"]).toBeGreaterThanOrEqual(400);

    const everything = receiver.bodies.join("\n");
    for (const value of [
      BEARER,
      env.MMS_CLIENT_SECRET!,
      ...Object.keys(sb.state.tokens),
      "ARGVALUE-DOC-SECRETISH",
      "WH-NOPE-ARG",
    ])
      expect(everything.includes(value), `exported ${value.slice(0, 8)}…`).toBe(false);
  }, 30_000);

  it("exports with the default protocol (http/protobuf) too: the bundled exporter chunks load", async () => {
    const receiver = await startOtlpReceiver();
    const server = await spawnHttpServer(["--sandbox"], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: "50",
      LOG_LEVEL: "error",
    });
    try {
      const read = await toolCall(server.url, "list_warehouse_groups_1", { limit: 1 });
      expect(read.isError, read.content[0]?.text).toBeFalsy();
    } finally {
      await server.stop();
    }
    await receiver.close();
    expect(receiver.headers.map((h) => h["content-type"])).toContain("application/x-protobuf");
  }, 30_000);
});

describe("REDIS_URL unreachable", () => {
  it("a keyed write fails closed with nothing sent; unkeyed writes and reads go on", async () => {
    const server = await spawnHttpServer([], {
      ...sb.env(),
      REDIS_URL: "redis://127.0.0.1:1/0",
      LOG_LEVEL: "warn",
    });
    try {
      const posts = () => countOf(sb, "POST /api/warehouse_entries_orders/WH-MAIN");
      const before = posts();
      const keyed = await toolCall(
        server.url,
        "create_warehouse_entry",
        purchaseArgs("REDIS-DOWN-1", { idempotency_key: "redis-down-1" }),
      );
      expect(keyed.isError).toBe(true);
      expect(keyed.content[0]!.text).toMatch(/idempotency store cannot be reached.*nothing was sent/);
      expect(posts()).toBe(before);
      expect(sb.state.movements.some((m) => m.movement.document === "REDIS-DOWN-1")).toBe(false);
      const read = await toolCall(server.url, "list_warehouse_groups_1", { limit: 1 });
      expect(read.isError).toBeFalsy();
      const unkeyed = await toolCall(server.url, "create_warehouse_entry", purchaseArgs("REDIS-DOWN-2"));
      expect(unkeyed.isError, unkeyed.content[0]?.text).toBeFalsy();
      // Positive control: the counter does see a POST that is sent.
      expect(posts()).toBe(before + 1);
      expect(server.stderr()).not.toContain("redis://127.0.0.1:1");
    } finally {
      await server.stop();
    }
  }, 30_000);
});
