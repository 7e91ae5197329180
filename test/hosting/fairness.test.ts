/**
 * interface.md §7b "Fairness" and "Inputs", reproduced on loopback against a two-tenant server with
 * small limits: one tenant's slow bodies, its flood of calls up to and past its own limit, JSON-RPC
 * batches and headers that disagree with the body. Every load loop is bounded in count and time.
 */
import { connect, type Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SEED } from "../../src/sandbox/index.js";
import { MODERN, raw2026 } from "../helpers/raw-2026.js";
import { useSandbox } from "../helpers/sandbox.js";
import { startTenantsServer, TENANT_TOKENS, type TenantsServer } from "./tenants-http.js";

const fx = useSandbox();
const LIMITS = { maxInFlight: 6, tenantMaxInFlight: 3, bodyTimeoutMs: 5_000 };
const HELD = { timeout: 15_000, interval: 5 };
let server: TenantsServer;

beforeAll(async () => {
  server = await startTenantsServer(fx.sb, { http: LIMITS });
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => fx.sb.faults.reset());

type Tenant = keyof typeof TENANT_TOKENS;

interface Answer {
  status: number;
  retryAfter: string | null;
  body: {
    error?: { code: number; message: string };
    result?: { isError?: boolean; structuredContent?: unknown };
  };
}

/** One 2025-era JSON-RPC POST (no envelope), as a legacy client sends it. */
async function post(tenant: Tenant, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(server.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${TENANT_TOKENS[tenant]}`,
      ...headers,
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  const json = res.headers.get("content-type")?.includes("json")
    ? text
    : ((text.match(/^data: (.*)$/gm) ?? []).at(-1)?.slice(6) ?? "{}");
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: JSON.parse(json) };
}

const listGroups = (id = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "list_warehouse_groups_1", arguments: { limit: 1 } },
});

const write = (document: string, id = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: {
    name: "create_warehouse_entry",
    arguments: {
      warehouse_code: SEED.warehouses.main,
      movement_type: "purchase",
      document,
      code_user: SEED.users.withAccount,
      items: [{ code: SEED.itemCodes.sparePart, qty: 1, unit_cost: 1 }],
    },
  },
});

/** A request whose headers and first body bytes are sent, and whose body never completes. */
function slowBody(tenant: Tenant): Promise<Socket> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1", () => {
      socket.write(
        [
          "POST /mcp HTTP/1.1",
          `Host: 127.0.0.1:${port}`,
          "Content-Type: application/json",
          "Accept: application/json, text/event-stream",
          `Authorization: Bearer ${TENANT_TOKENS[tenant]}`,
          "Content-Length: 100000",
          "",
          '{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {',
        ].join("\r\n"),
      );
      resolve(socket);
    });
    socket.on("error", reject);
  });
}

describe("fairness between tenants", () => {
  it("one tenant's slow bodies hold no slot: the other's calls, and its own, go through", async () => {
    // More stalled bodies than the process has slots (6): before, they took every slot for 30 s.
    const stalled = await Promise.all(Array.from({ length: 10 }, () => slowBody("north")));
    try {
      for (let i = 0; i < 4; i++) {
        const answer = await post("south", listGroups(i));
        expect(answer.status).toBe(200);
        expect(answer.body.result?.isError).toBeUndefined();
      }
      expect((await post("north", listGroups())).status).toBe(200);
      expect(server.http.stats().inFlight).toBe(0);
    } finally {
      for (const s of stalled) s.destroy();
    }
  });

  it("a flood up to and past one tenant's limit: it gets 429 for its excess, the other tenant is served", async () => {
    // Every admitted call is held upstream until the test lets them go (events, no guessed delay).
    const upstream = () => fx.sb.faults.requestCount["GET /api/warehouses_groups_1"] ?? 0;
    const before = upstream();
    fx.sb.faults.latency(600_000, "/api/warehouses_groups_1");
    let answered = 0;
    const flood = Array.from({ length: 8 }, (_, i) =>
      post("north", listGroups(i)).finally(() => {
        answered += 1;
      }),
    );
    // The flood is admitted up to the limit (held upstream) and the rest refused; then the other tenant
    // calls while it runs, and is admitted too.
    await vi.waitFor(() => {
      expect(upstream()).toBe(before + LIMITS.tenantMaxInFlight);
      expect(answered).toBe(8 - LIMITS.tenantMaxInFlight);
    }, HELD);
    const pendingOther = post("south", listGroups());
    await vi.waitFor(() => expect(upstream()).toBe(before + LIMITS.tenantMaxInFlight + 1), HELD);
    fx.sb.faults.latency(0, "/api/warehouses_groups_1");
    const other = await pendingOther;
    const answers = await Promise.all(flood);

    expect(other.status).toBe(200);
    expect(other.body.result?.isError).toBeUndefined();
    const served = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(served).toHaveLength(LIMITS.tenantMaxInFlight);
    expect(refused).toHaveLength(8 - LIMITS.tenantMaxInFlight);
    expect(refused[0]!.retryAfter).toBe("1");
    // The refusal speaks of the caller's own use only.
    expect(refused[0]!.body.error?.message).toMatchInlineSnapshot(
      `"Too many requests in progress for your tenant: 3 already running (MCP_TENANT_MAX_IN_FLIGHT); wait for one to finish, or retry after 1 s"`,
    );
    const stats = server.http.stats();
    expect(stats.tenants.north).toMatchObject({ inFlight: 0, peakInFlight: 3 });
    expect(stats.tenants.south?.refused).toBe(0);
  });
});

describe("JSON-RPC batches are refused in both eras", () => {
  it("a 2025-era batch of writes: 400, -32600, and nothing runs", async () => {
    const before = fx.sb.state.movements.length;
    const answer = await post("north", [write("BATCH-1", 1), write("BATCH-2", 2), write("BATCH-3", 3)]);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toEqual({
      code: -32600,
      message:
        "JSON-RPC batches are not accepted (this body is an array of 3): send one JSON-RPC request per HTTP request",
    });
    expect(fx.sb.state.movements.length).toBe(before);
  });

  it("a 2026-era batch: 400, -32600", async () => {
    const modern = (id: number) => ({
      ...listGroups(id),
      params: {
        ...listGroups(id).params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    });
    const answer = await post("north", [modern(1), modern(2)], {
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe(-32600);
  });
});

describe("Mcp-Method and Mcp-Name must agree with the body, in both eras", () => {
  it("2025 era: a mismatched Mcp-Method or Mcp-Name is refused with -32020, and the call does not run", async () => {
    const before = fx.sb.state.movements.length;
    const method = await post("north", write("MISMATCH-1"), { "mcp-method": "tools/list" });
    expect(method.status).toBe(400);
    expect(method.body.error?.code).toBe(-32020);
    expect(method.body.error?.message).toContain("the Mcp-Method header names another method than the body");
    const name = await post("north", write("MISMATCH-2"), { "mcp-name": "list_warehouse_groups_1" });
    expect(name.status).toBe(400);
    expect(name.body.error?.message).toContain(
      "the Mcp-Name header names another name than the body's params.name",
    );
    const encoded = `=?base64?${Buffer.from("list_dags").toString("base64")}?=`;
    expect((await post("north", write("MISMATCH-3"), { "mcp-name": encoded })).status).toBe(400);
    expect(fx.sb.state.movements.length).toBe(before);
  });

  it("2025 era: matching headers (plain or base64) pass", async () => {
    const plain = await post("north", listGroups(), {
      "mcp-method": "tools/call",
      "mcp-name": "list_warehouse_groups_1",
    });
    expect(plain.status).toBe(200);
    const encoded = `=?base64?${Buffer.from("list_warehouse_groups_1").toString("base64")}?=`;
    expect((await post("north", listGroups(), { "mcp-name": encoded })).status).toBe(200);
  });

  it("2026 era: a mismatched Mcp-Method is refused with -32020", async () => {
    const answer = await raw2026<{ error?: { code: number } }>(
      server.url,
      "tools/call",
      { name: "list_warehouse_groups_1", arguments: { limit: 1 } },
      { headers: { authorization: `Bearer ${TENANT_TOKENS.north}`, "mcp-method": "tools/list" } },
    );
    expect(answer.status).toBe(400);
    expect(answer.body?.error?.code).toBe(-32020);
  });
});
