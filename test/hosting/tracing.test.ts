/**
 * Traces end to end: startTracing with a loopback OTLP/HTTP receiver, tool-call and upstream spans
 * around real loopback HTTP requests, the caller's trace continued, and no secret or argument value.
 */
import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, ConfigError, ERROR_CODES } from "../../src/errors/api-error.js";
import { Secret } from "../../src/errors/secret.js";
import { errorType, spanEvent, toolCallSpan, upstreamSpan } from "../../src/telemetry/spans.js";
import { startTracing, type TracingHandle, tracingSettings } from "../../src/telemetry/start.js";
import { type ReceivedSpan, startOtlpReceiver } from "./otlp-receiver.js";

const CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN = "b7ad6b7169203331";
const SECRET = new Secret("client-secret-value-never-traced");
const TOKEN = new Secret("access-token-value-never-traced");
const ARGUMENT = "argument-value-WH-NORTH-7";

describe("tracingSettings", () => {
  it("is off without an endpoint, or when disabled", () => {
    expect(tracingSettings({})).toBeUndefined();
    expect(
      tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }),
    ).toBeUndefined();
    expect(
      tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" }),
    ).toBeUndefined();
  });

  it("appends /v1/traces to the generic endpoint only, and reads protocol, headers and resource", () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" })).toMatchObject({
      url: "http://c:4318/v1/traces",
      protocol: "http/protobuf",
      attributes: { "service.name": "maintenance-mcp" },
    });
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://t.example/otlp/traces",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=abc%3D1,x-team=ops",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=prod",
        OTEL_SERVICE_NAME: "mcp-north",
      }),
    ).toEqual({
      url: "https://t.example/otlp/traces",
      protocol: "http/json",
      headers: { "x-api-key": "abc=1", "x-team": "ops" },
      attributes: {
        "deployment.environment": "prod",
        "service.name": "mcp-north",
        "service.version": "0.1.0",
      },
      attributeValueLengthLimit: 256,
      ratio: 1,
    });
  });

  it("refuses grpc, a bad URL and malformed headers without echoing them", () => {
    const bad = (env: Record<string, string>) => {
      try {
        tracingSettings(env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as ConfigError).message;
      }
      throw new Error("expected a ConfigError");
    };
    expect(
      bad({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }),
    ).toContain("OTEL_EXPORTER_OTLP_PROTOCOL: http/protobuf (default) or http/json");
    expect(bad({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toContain(
      "OTEL_EXPORTER_OTLP_ENDPOINT: an http:// or https:// URL",
    );
    const message = bad({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
      OTEL_EXPORTER_OTLP_HEADERS: "sk-secret-key",
    });
    expect(message).toContain("OTEL_EXPORTER_OTLP_HEADERS: comma-separated key=value pairs");
    expect(message).not.toContain("sk-secret-key");
  });

  it("errorType uses a stable code, then the error's name", () => {
    expect(errorType(new ApiError({ code: ERROR_CODES.TIMEOUT, message: "x" }))).toBe("TIMEOUT");
    expect(errorType(new TypeError("x"))).toBe("TypeError");
    expect(errorType("a string")).toBe("_OTHER");
  });
});

describe("traces to an OTLP/HTTP receiver", () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let upstream: ReturnType<typeof createServer>;
  let upstreamUrl = "";
  let tracing: TracingHandle | undefined;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    upstream = createServer((req, res) => {
      res.writeHead(req.method === "POST" ? 422 : 200, { "content-type": "application/json" }).end("{}");
    });
    await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
    tracing = await startTracing({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=test",
      OTEL_SERVICE_NAME: "mcp-under-test",
    });
  });
  afterAll(async () => {
    await tracing?.shutdown();
    await receiver.close();
    await new Promise((r) => upstream.close(r));
  });

  /** One tool call as the request path will make it: token refresh, an upstream GET, a retry. */
  async function readCall(traceparent: unknown) {
    return toolCallSpan(
      "query_budgets",
      { tenant: "plant-north", traceparent, requestId: 7, transport: "tcp" },
      async () => {
        spanEvent("token_refresh", { api: "main", scheme: "oauth", access_token: TOKEN.reveal() });
        return upstreamSpan("GET", "wo_budget/{id}", async (span) => {
          const res = await fetch(
            `${upstreamUrl}/api/wo_budget/${ARGUMENT}?client_secret=${SECRET.reveal()}`,
          );
          spanEvent("retry", { attempt: 1, reason: "UPSTREAM", delay_ms: 10, note: `saw ${TOKEN.reveal()}` });
          span.status(res.status);
          return res.json();
        });
      },
    );
  }

  async function failingWrite() {
    return toolCallSpan("create_warehouse_entry", { tenant: "plant-south" }, async () =>
      upstreamSpan("POST", "warehouse_entries_orders/{code}", async (span) => {
        const res = await fetch(`${upstreamUrl}/api/warehouse_entries_orders/${ARGUMENT}`, {
          method: "POST",
        });
        span.status(res.status);
        throw new ApiError({
          status: 422,
          code: ERROR_CODES.VALIDATION,
          message: `item ${ARGUMENT} is unknown`,
        });
      }),
    );
  }

  it("exports server and client spans with the right links, attributes and events, and no secret", async () => {
    expect(tracing).toMatchObject({ protocol: "http/json", url: `${receiver.endpoint}/v1/traces` });
    await readCall(`00-${CALLER_TRACE}-${CALLER_SPAN}-01`);
    await expect(failingWrite()).rejects.toThrow(ApiError);
    await readCall("not-a-traceparent");
    await toolCallSpan("list_dags", {}, async (span) => span.fail("tool_error"));
    await tracing!.forceFlush();

    expect(receiver.spans).toHaveLength(7);
    expect(receiver.headers[0]!["x-collector-key"]).toBe("test");
    const byName = (name: string) => receiver.spans.filter((s) => s.name === name);
    const [server, orphan] = byName("tools/call query_budgets") as [ReceivedSpan, ReceivedSpan];
    const [client, orphanClient] = byName("GET wo_budget/{id}") as [ReceivedSpan, ReceivedSpan];

    // The caller's trace is continued; the upstream span is the tool span's child.
    expect(server.traceId).toBe(CALLER_TRACE);
    expect(server.parentSpanId).toBe(CALLER_SPAN);
    expect(server.kind).toBe(2); // SERVER
    expect(client.traceId).toBe(CALLER_TRACE);
    expect(client.parentSpanId).toBe(server.spanId);
    expect(client.kind).toBe(3); // CLIENT
    // A malformed traceparent starts a new trace.
    expect(orphan.traceId).not.toBe(CALLER_TRACE);
    expect(orphan.parentSpanId ?? "").toBe("");
    expect(orphanClient.parentSpanId).toBe(orphan.spanId);

    expect(server.resource).toMatchObject({ "service.name": "mcp-under-test", "service.version": "0.1.0" });
    expect(server.attributes).toEqual({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "query_budgets",
      "gen_ai.operation.name": "execute_tool",
      "maintenance_mcp.tenant": "plant-north",
      "jsonrpc.request.id": "7",
      "network.transport": "tcp",
    });
    expect(server.events).toEqual([
      { name: "token_refresh", attributes: { api: "main", scheme: "oauth", access_token: "[redacted]" } },
    ]);
    expect(client.attributes).toEqual({
      "http.request.method": "GET",
      "url.template": "wo_budget/{id}",
      "http.response.status_code": 200,
    });
    expect(client.events).toEqual([
      { name: "retry", attributes: { attempt: 1, reason: "UPSTREAM", delay_ms: 10, note: "[redacted]" } },
    ]);

    const [write] = byName("tools/call create_warehouse_entry") as [ReceivedSpan];
    const [post] = byName("POST warehouse_entries_orders/{code}") as [ReceivedSpan];
    expect(write.attributes["error.type"]).toBe("VALIDATION");
    expect(write.status).toEqual({ code: 2, message: "VALIDATION" });
    expect(post.parentSpanId).toBe(write.spanId);
    expect(post.attributes).toMatchObject({ "http.response.status_code": 422, "error.type": "422" });
    expect(byName("tools/call list_dags")[0]!.attributes["error.type"]).toBe("tool_error");

    // No secret, token or argument value anywhere in what was exported.
    const everything = receiver.bodies.join("\n");
    for (const value of [SECRET.reveal(), TOKEN.reveal(), ARGUMENT]) expect(everything).not.toContain(value);
  });

  it("sends http/protobuf by default (the OTLP exporter spec's default)", async () => {
    await tracing?.shutdown();
    tracing = await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
    expect(tracing?.protocol).toBe("http/protobuf");
    const before = receiver.bodies.length;
    await readCall(`00-${CALLER_TRACE}-${CALLER_SPAN}-01`);
    await tracing!.forceFlush();
    expect(receiver.headers[before]!["content-type"]).toBe("application/x-protobuf");
    // Protobuf strings are raw UTF-8: the span names are readable, the secrets absent.
    const body = receiver.bodies.slice(before).join("");
    expect(body).toContain("tools/call query_budgets");
    expect(body).toContain("GET wo_budget/{id}");
    for (const value of [SECRET.reveal(), TOKEN.reveal(), ARGUMENT]) expect(body).not.toContain(value);
  });
});
