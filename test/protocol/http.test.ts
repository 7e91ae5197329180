/**
 * The stateless Streamable HTTP transport in-process, both protocol eras: confirmation rounds
 * (input_required with a signed requestState for 2026 clients, a clear refusal for 2025 ones),
 * argument shapes, and the transport bounds of issue 9 (burst admission, slow bodies, shutdown).
 */
import { connect as netConnect } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as Transport1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it, vi } from "vitest";
import { IdempotencyStore } from "../../src/idempotency/store.js";
import { createStateSigner, type StateSigner } from "../../src/mcp/sdk.js";
import { createServer, selectTools } from "../../src/mcp/server.js";
import { type HttpOptions, startHttp } from "../../src/mcp/transports/http.js";
import { SEED } from "../../src/sandbox/index.js";
import { createLogger } from "../../src/telemetry/logger.js";
import { textOf } from "../helpers/mcp.js";
import { MODERN, raw2026 } from "../helpers/raw-2026.js";
import { captureLogger, useSandbox } from "../helpers/sandbox.js";

const fx = useSandbox();
const HELD = { timeout: 15_000, interval: 5 };
/** Warehouse entries that reached the sandbox (the requests it counted, held ones included). */
const entriesSent = () =>
  Object.entries(fx.sb.faults.requestCount)
    .filter(([route]) => route.startsWith("POST /api/warehouse_entries_orders"))
    .reduce((n, [, count]) => n + count, 0);
const quiet = createLogger({ level: "error", sink: () => {} });

async function serve(
  options: Partial<HttpOptions>,
  confirmWrites = false,
  logger = quiet,
  signer?: StateSigner,
) {
  const stopping = new AbortController();
  const { tools } = selectTools({ readOnly: false, hubAvailable: true });
  const deps = {
    clients: fx.clients(),
    logger,
    idempotency: new IdempotencyStore(),
    sandbox: true,
    version: "test",
    stopping: stopping.signal,
    ...(signer ? { signer } : {}),
  };
  return startHttp(() => createServer(deps, { tools, confirmWrites }), {
    host: "127.0.0.1",
    port: 0,
    token: undefined,
    logger: quiet,
    version: "test",
    abandon: () => stopping.abort(),
    ...options,
  });
}

const entry = (document: string) => ({
  warehouse_code: SEED.warehouses.main,
  movement_type: "purchase",
  document,
  code_user: SEED.users.withAccount,
  items: [{ code: SEED.itemCodes.sparePart, qty: 1, unit_cost: 5 }],
});
const movementsWith = (document: string) =>
  fx.sb.state.movements.filter((m) => m.movement.document === document).length;

/** A v2 client pinned to 2026-07-28 that answers confirmation prompts with `approve(message)`. */
async function modernClient(url: string, approve?: (message: string) => boolean) {
  const client = new Client(
    { name: "http-test", version: "1" },
    {
      capabilities: approve ? { elicitation: { form: {} } } : {},
      versionNegotiation: { mode: { pin: MODERN } },
    },
  );
  if (approve) {
    client.setRequestHandler("elicitation/create", async (request) => ({
      action: "accept",
      content: { confirm: approve(request.params.message) },
    }));
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

interface RpcAnswer {
  error?: { code: number; message: string };
  result: {
    resultType?: string;
    requestState?: string;
    isError?: boolean;
    content: { text: string }[];
    structuredContent?: unknown;
  };
}

/** One raw 2026-07-28 request; returns the status and the JSON-RPC answer. */
const post2026 = async (
  url: string,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = { elicitation: { form: {} } },
) => {
  const { status, body } = await raw2026<RpcAnswer>(url, method, params, { capabilities });
  return { status, body: body as RpcAnswer };
};

describe("stateless HTTP, both eras", () => {
  it("serves a 2026-07-28 client and a 2025-11-25 client on one endpoint, with no session id", async () => {
    const http = await serve({});
    try {
      const modern = await modernClient(http.url);
      expect(modern.getNegotiatedProtocolVersion()).toBe(MODERN);
      const legacy = new Client1({ name: "v1", version: "1" });
      const transport = new Transport1(new URL(http.url));
      await legacy.connect(transport);
      expect(transport.sessionId).toBeUndefined();
      for (const client of [modern, legacy]) {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain("create_warehouse_entry");
        const result = await client.callTool({ name: "list_warehouse_groups_1", arguments: { limit: 1 } });
        expect(result.structuredContent).toMatchObject({ returned: 1 });
      }
      await modern.close();
      await legacy.close();
    } finally {
      await http.close();
    }
  });

  it("confirms a 2026 write with input_required and writes only what the user approved", async () => {
    const http = await serve({}, true);
    const asked: string[] = [];
    try {
      const client = await modernClient(http.url, (message) => {
        asked.push(message);
        return message.includes("HTTP-YES");
      });
      const yes = await client.callTool({ name: "create_warehouse_entry", arguments: entry("HTTP-YES") });
      const no = await client.callTool({ name: "create_warehouse_entry", arguments: entry("HTTP-NO") });
      await client.close();
      expect(asked).toHaveLength(2);
      expect(yes.isError).toBeFalsy();
      expect(no.isError).toBe(true);
      expect(textOf(no)).toMatch(/did not approve.*nothing was written/);
      expect(movementsWith("HTTP-YES")).toBe(1);
      expect(movementsWith("HTTP-NO")).toBe(0);
    } finally {
      await http.close();
    }
  });

  it("refuses a tampered, re-targeted or unanswerable requestState, and writes nothing", async () => {
    const http = await serve({}, true);
    try {
      const args = entry("HTTP-TAMPER");
      const first = await post2026(http.url, "tools/call", {
        name: "create_warehouse_entry",
        arguments: args,
      });
      expect(first.body.result.resultType).toBe("input_required");
      const state = first.body.result.requestState ?? "";
      expect(state).not.toMatch(/secret|token/i);
      const yes = { confirm: { action: "accept", content: { confirm: true } } };

      // One flipped character: the signature no longer matches.
      const flipped = state.slice(0, -2) + (state.at(-2) === "A" ? "B" : "A") + state.at(-1);
      const tampered = await post2026(http.url, "tools/call", {
        name: "create_warehouse_entry",
        arguments: args,
        requestState: flipped,
        inputResponses: yes,
      });
      expect(tampered.body.error?.code).toBe(-32602);

      // A valid state for these arguments, replayed with other arguments: asked again, not written.
      const moved = await post2026(http.url, "tools/call", {
        name: "create_warehouse_entry",
        arguments: { ...args, document: "HTTP-RETARGET" },
        requestState: state,
        inputResponses: yes,
      });
      expect(moved.body.result.resultType).toBe("input_required");

      // An answer without any state is not trusted either.
      const stateless = await post2026(http.url, "tools/call", {
        name: "create_warehouse_entry",
        arguments: args,
        inputResponses: yes,
      });
      expect(stateless.body.result.resultType).toBe("input_required");
      expect(movementsWith("HTTP-TAMPER") + movementsWith("HTTP-RETARGET")).toBe(0);

      // The genuine round trip writes once.
      const done = await post2026(http.url, "tools/call", {
        name: "create_warehouse_entry",
        arguments: args,
        requestState: state,
        inputResponses: yes,
      });
      expect(done.body.result.isError).toBeFalsy();
      expect(movementsWith("HTTP-TAMPER")).toBe(1);
    } finally {
      await http.close();
    }
  });

  it("replicas sharing MCP_STATE_SECRET accept each other's requestState; others refuse it", async () => {
    const secret = "replica-shared-secret-0123456789abcdef";
    const [a, b] = await Promise.all([
      serve({}, true, quiet, createStateSigner(secret)),
      serve({}, true, quiet, createStateSigner(secret)),
    ]);
    const lone = await serve({}, true, quiet, createStateSigner());
    try {
      expect(() => createStateSigner("too short")).toThrow(/at least 32 bytes/);
      const args = entry("HTTP-REPLICA");
      const first = await post2026(a.url, "tools/call", { name: "create_warehouse_entry", arguments: args });
      const retry = {
        name: "create_warehouse_entry",
        arguments: args,
        requestState: first.body.result.requestState,
        inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
      };
      const elsewhere = await post2026(lone.url, "tools/call", retry);
      expect(elsewhere.body.error?.code).toBe(-32602);
      expect(movementsWith("HTTP-REPLICA")).toBe(0);
      const replica = await post2026(b.url, "tools/call", retry);
      expect(replica.body.result.isError).toBeFalsy();
      expect(movementsWith("HTTP-REPLICA")).toBe(1);
    } finally {
      await Promise.all([a.close(), b.close(), lone.close()]);
    }
  });

  it("refuses clearly when a client can confirm in neither way, and writes nothing", async () => {
    const http = await serve({}, true);
    try {
      const noElicit = await post2026(
        http.url,
        "tools/call",
        { name: "create_warehouse_entry", arguments: entry("HTTP-NOCAP") },
        {},
      );
      // 2026-07-28: the spec's MissingRequiredClientCapabilityError (-32021, HTTP 400), with the fix.
      expect(noElicit.status).toBe(400);
      expect(noElicit.body.error?.code).toBe(-32021);
      expect(noElicit.body.error?.message).toMatch(
        /needs the client capability elicitation.*Nothing was written/,
      );

      const legacy = new Client1(
        { name: "v1", version: "1" },
        { capabilities: { elicitation: { form: {} } } },
      );
      await legacy.connect(new Transport1(new URL(http.url)));
      const result = await legacy.callTool({
        name: "create_warehouse_entry",
        arguments: entry("HTTP-NOCAP"),
      });
      await legacy.close();
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(
        /2025-11-25 over HTTP.*nothing was written.*2026-07-28, or connect over stdio/,
      );
      expect(movementsWith("HTTP-NOCAP")).toBe(0);
    } finally {
      await http.close();
    }
  });

  it("a 2026 client's cancellation (closing the request stream) aborts the running call", async () => {
    const { logger, lines } = captureLogger("info");
    const http = await serve({}, false, logger);
    // The write is held upstream until the end of the test: only the handler's aborted signal ends it.
    fx.sb.faults.latency(600_000, "POST /api/warehouse_entries_orders");
    try {
      const client = await modernClient(http.url);
      const abort = new AbortController();
      const sent = entriesSent();
      const call = client.callTool(
        { name: "create_warehouse_entry", arguments: entry("HTTP-CANCEL") },
        { signal: abort.signal },
      );
      await vi.waitFor(() => expect(entriesSent()).toBe(sent + 1), HELD); // the call is running
      abort.abort();
      await expect(call).rejects.toThrow();
      const audited = () => lines.filter((l) => l.includes('"audit":true')).map((l) => JSON.parse(l).outcome);
      await vi.waitFor(() => expect(audited()).toEqual(["cancelled"]), HELD);
      await client.close();
    } finally {
      fx.sb.faults.latency(0, "POST /api/warehouse_entries_orders");
      await http.close();
    }
  }, 20_000);

  it("answers null or non-object arguments with a clear tool error in both eras", async () => {
    const http = await serve({});
    try {
      for (const bad of [null, [1], 7]) {
        const modern = await post2026(
          http.url,
          "tools/call",
          { name: "list_warehouse_groups_1", arguments: bad },
          {},
        );
        expect(modern.status).toBe(200);
        expect(modern.body.result.isError).toBe(true);
        expect(modern.body.result.content[0]?.text).toMatch(
          /"arguments" must be a JSON object.*Call it like \{/,
        );
        const res = await fetch(http.url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 2,
            method: "tools/call",
            params: { name: "list_warehouse_groups_1", arguments: bad },
          }),
        });
        const text = await res.text();
        expect(text).toContain('\\"arguments\\" must be a JSON object');
        expect(text).not.toContain("invalid_type");
      }
      // Arguments sent as one JSON string are decoded (mcp-notes: clients that stringify arguments).
      const stringified = await post2026(
        http.url,
        "tools/call",
        { name: "list_warehouse_groups_1", arguments: '{"limit": 1}' },
        {},
      );
      expect(stringified.body.result.structuredContent).toMatchObject({ returned: 1 });
    } finally {
      await http.close();
    }
  });
});

/** Open a POST whose body never completes; resolves once the server has admitted it. */
function holdOpen(
  url: string,
): Promise<{ socket: ReturnType<typeof netConnect>; response: Promise<string> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = netConnect(Number(port), hostname, () => {
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"jsonrpc"`,
      );
      setTimeout(() => resolve({ socket, response }), 100);
    });
    let data = "";
    const response = new Promise<string>((done) => {
      socket.on("data", (d) => (data += d));
      socket.on("close", () => done(data));
    });
  });
}

describe("transport bounds (issue 9)", () => {
  it("a burst beyond the in-flight cap gets 503 with Retry-After; work stays bounded", async () => {
    const http = await serve({ maxInFlight: 4, bodyTimeoutMs: 20_000 });
    // Slots are held by calls being served (slow bodies hold none: test/hosting/fairness.test.ts).
    // Held upstream until the test lets them go: the four slots stay taken (events, no guessed delay).
    fx.sb.faults.latency(600_000, "/api/warehouses_groups_1");
    const upstream = () => fx.sb.faults.requestCount["GET /api/warehouses_groups_1"] ?? 0;
    const before = upstream();
    const post = (body: unknown) =>
      fetch(http.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify(body),
      });
    const slow = { name: "list_warehouse_groups_1", arguments: { limit: 1 } };
    const held = [0, 1, 2, 3].map((id) => post({ jsonrpc: "2.0", id, method: "tools/call", params: slow }));
    try {
      const list = () => post({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
      await vi.waitFor(() => expect(upstream()).toBe(before + 4), HELD);
      const busy = await list();
      expect(busy.status).toBe(503);
      expect(busy.headers.get("retry-after")).toBe("1");
      expect(await busy.text()).toMatch(/Server busy: 4 requests already in progress/);
      fx.sb.faults.latency(0, "/api/warehouses_groups_1");
      for (const h of await Promise.all(held)) expect(h.status).toBe(200);
      fx.sb.faults.reset();

      const statuses = await Promise.all(Array.from({ length: 300 }, () => list().then((r) => r.status)));
      expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
      expect(http.stats().peakInFlight).toBeLessThanOrEqual(4);
      expect(http.stats().refused).toBe(statuses.filter((s) => s === 503).length + 1);
    } finally {
      fx.sb.faults.reset();
      await http.close();
    }
  });

  it("a request body that trickles in is cut off with 408 after the body time bound", async () => {
    const http = await serve({ bodyTimeoutMs: 1_000 });
    try {
      const { socket, response } = await holdOpen(http.url);
      const trickle = setInterval(() => socket.writable && socket.write(" "), 200);
      const answer = await response;
      clearInterval(trickle);
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(answer).toContain("Request body not received within 1000 ms");
      expect(http.stats().inFlight).toBe(0);
    } finally {
      await http.close();
    }
  }, 20_000);

  it("a write still running when the drain ends is answered 'outcome unknown', never an empty stream", async () => {
    const http = await serve({ drainMs: 300, abandonGraceMs: 2_000 });
    // Held upstream past the drain (released at the end): the write is still running when the drain ends.
    fx.sb.faults.latency(600_000, "POST /api/warehouse_entries_orders");
    try {
      const client = await modernClient(http.url);
      const sent = entriesSent();
      const call = client.callTool({ name: "create_warehouse_entry", arguments: entry("HTTP-DRAIN") });
      await vi.waitFor(() => expect(entriesSent()).toBe(sent + 1), HELD);
      await http.close();
      const result = await call;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(
        /shut down while create_warehouse_entry was running: the outcome is unknown/,
      );
      await client.close();
    } finally {
      fx.sb.faults.latency(0, "POST /api/warehouse_entries_orders");
    }
  }, 20_000);
});
