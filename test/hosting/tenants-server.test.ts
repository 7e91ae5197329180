/**
 * MCP_TENANTS_FILE through the built binary: each bearer token acts as its tenant (own upstream
 * credentials, token cache, idempotency namespace, tool set); an unknown token gets 401; logs name the
 * tenant, never a token. Tenants north and south are two sandbox credentials of different companies.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenSha256 } from "../../src/hosting/tenants.js";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { firstLine, type SpawnedServer, spawnBin, spawnHttpServer } from "../quality/helpers.js";

const TOKENS = {
  north: "north-bearer-token-0123456789abcdef",
  south: "south-bearer-token-0123456789abcdef",
  viewer: "viewer-bearer-token-0123456789abcdef",
};

let sb: SandboxHandle;
let server: SpawnedServer & { url: string };
let dir: string;

beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
  dir = mkdtempSync(join(tmpdir(), "mcp-tenants-"));
  const upstream = (clientId: string, secretVar: string) => ({
    MMS_BASE_URL: `${sb.url}/api`,
    MMS_AUTH_URL: sb.url,
    MMS_CLIENT_ID: clientId,
    MMS_CLIENT_SECRET: { env: secretVar },
  });
  const file = join(dir, "tenants.json");
  writeFileSync(
    file,
    JSON.stringify({
      tenants: [
        {
          name: "north",
          token_sha256: tokenSha256(TOKENS.north),
          upstream: upstream("demo-client", "NORTH_SECRET"),
        },
        {
          name: "south",
          token_sha256: tokenSha256(TOKENS.south),
          upstream: upstream("noaddon-client", "SOUTH_SECRET"),
        },
        {
          name: "viewer",
          token_sha256: tokenSha256(TOKENS.viewer),
          upstream: upstream("readonly-client", "VIEWER_SECRET"),
          read_only: true,
        },
      ],
    }),
  );
  server = await spawnHttpServer([], {
    MCP_TENANTS_FILE: file,
    NORTH_SECRET: "demo-secret",
    SOUTH_SECRET: "noaddon-secret",
    VIEWER_SECRET: "readonly-secret",
    LOG_LEVEL: "info",
  });
}, 20_000);

afterAll(async () => {
  await server?.stop();
  await sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function clientAs(token: string): Promise<Client> {
  const client = new Client({ name: "tenant-test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

const entry = (warehouse: string, user: string, item: string, document: string, key: string) => ({
  warehouse_code: warehouse,
  movement_type: "purchase",
  document,
  code_user: user,
  items: [{ code: item, qty: 1, unit_cost: 10 }],
  idempotency_key: key,
});

describe("MCP_TENANTS_FILE", () => {
  it("answers 401 to a token that matches no tenant, and to none", async () => {
    for (const headers of [{ authorization: "Bearer not-a-tenant-token" }, {}] as Record<string, string>[]) {
      const res = await fetch(server.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      expect(res.status).toBe(401);
      const body = (await res.json()) as { error: { message: string } };
      expect(body.error.message).toMatch(
        headers.authorization ? /matches no tenant .*MCP_TENANTS_FILE/ : /no Authorization: Bearer header/,
      );
      expect(body.error.message).toMatch(
        /one per tenant \(MCP_TENANTS_FILE\), not OAuth: send the header Authorization: Bearer/,
      );
    }
  });

  it("each tenant writes with its own upstream credentials and idempotency namespace", async () => {
    const [north, south] = [await clientAs(TOKENS.north), await clientAs(TOKENS.south)];
    try {
      const key = "same-key-in-two-tenants";
      const a = await call(
        north,
        "create_warehouse_entry",
        entry("WH-MAIN", "HR-001", "SP-1003", "T-NORTH-1", key),
      );
      expect(a.isError, firstLine(a)).toBeFalsy();
      // The same key in another tenant is another key: no replay of north's entry, no conflict.
      const b = await call(
        south,
        "create_warehouse_entry",
        entry("WH-C2", "HR-201", "TL-2001", "T-SOUTH-1", key),
      );
      expect(b.isError, firstLine(b)).toBeFalsy();
      const idOf = (r: CallToolResult) => (r.structuredContent as { movement: { id: number } }).movement.id;
      expect(idOf(b)).not.toBe(idOf(a));
      // Each tenant's retry replays its own first outcome.
      const bAgain = await call(
        south,
        "create_warehouse_entry",
        entry("WH-C2", "HR-201", "TL-2001", "T-SOUTH-1", key),
      );
      expect(idOf(bAgain)).toBe(idOf(b));
      expect((bAgain.structuredContent as { replayed?: boolean }).replayed).toBe(true);
      // South cannot reach north's company: its credentials do not see WH-MAIN.
      const cross = await call(
        south,
        "create_warehouse_entry",
        entry("WH-MAIN", "HR-001", "SP-1003", "T-SOUTH-X", "k2"),
      );
      expect(cross.isError).toBe(true);

      const stored = (doc: string) =>
        sb.state.movements.filter((m) => m.movement.document === doc).map((m) => m.companyId);
      expect(stored("T-NORTH-1")).toEqual([1]);
      expect(stored("T-SOUTH-1")).toEqual([2]);
      expect(stored("T-SOUTH-X")).toEqual([]);

      // Reads see each tenant's own company.
      const groups = async (c: Client) =>
        JSON.stringify((await call(c, "list_warehouse_groups_1", { limit: 50 })).structuredContent);
      expect(await groups(north)).not.toBe(await groups(south));

      // Each tenant fetched its own upstream token (own token cache): one per client id.
      const clientIds = Object.values(sb.state.tokens).map((t) => t.clientId);
      expect(clientIds.filter((c) => c === "demo-client")).toHaveLength(1);
      expect(clientIds.filter((c) => c === "noaddon-client")).toHaveLength(1);
    } finally {
      await Promise.all([north.close(), south.close()]);
    }
  });

  it("a read_only tenant is offered, and may call, only the readers", async () => {
    const viewer = await clientAs(TOKENS.viewer);
    try {
      const names = (await viewer.listTools()).tools.map((t) => t.name).sort();
      expect(names).not.toContain("create_warehouse_entry");
      expect(names).not.toContain("add_task_resources");
      expect(names).toContain("query_budgets");
      const refused = await viewer
        .callTool({
          name: "create_warehouse_entry",
          arguments: entry("WH-MAIN", "HR-001", "SP-1003", "T-V", "k"),
        })
        .then(
          (r) => firstLine(r),
          (e: unknown) => String(e),
        );
      expect(refused).toMatch(/create_warehouse_entry/);
      expect(sb.state.movements.some((m) => m.movement.document === "T-V")).toBe(false);
      const north = await clientAs(TOKENS.north);
      expect((await north.listTools()).tools.map((t) => t.name)).toContain("create_warehouse_entry");
      await north.close();
    } finally {
      await viewer.close();
    }
  });

  it("logs name the tenant and never a bearer token, upstream token or secret", () => {
    const log = server.stderr();
    expect(log).toMatch(/"tenant":"north"/);
    expect(log).toMatch(/"tenant":"south"/);
    const secrets = [
      ...Object.values(TOKENS),
      "demo-secret",
      "noaddon-secret",
      "readonly-secret",
      ...Object.keys(sb.state.tokens),
    ];
    for (const s of secrets) expect(log.includes(s), `log holds ${s.slice(0, 6)}…`).toBe(false);
  });

  it("a bad tenants file, or one combined with --sandbox, stops the start with exit 2 and no secret", async () => {
    const bad = join(dir, "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({
        tenants: [
          {
            name: "inline",
            token_sha256: tokenSha256("x"),
            upstream: {
              MMS_BASE_URL: `${sb.url}/api`,
              MMS_CLIENT_ID: "c",
              MMS_CLIENT_SECRET: "inline-secret-value",
            },
          },
        ],
      }),
    );
    const run = spawnBin(["--http", "--port", "0"], { MCP_TENANTS_FILE: bad });
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toMatch(/tenants\[0\] "inline" upstream\.MMS_CLIENT_SECRET/);
    expect(run.stderr()).not.toContain("inline-secret-value");
    // The tenants file is described in docs/hosting.md; the README does not describe it.
    expect(run.stderr()).toContain('See docs/hosting.md, "Tenants file".');
    expect(run.stderr()).not.toContain("See README");
    const sandboxed = spawnBin(["--http", "--port", "0", "--sandbox"], { MCP_TENANTS_FILE: bad });
    expect(await sandboxed.exited).toBe(2);
    expect(sandboxed.stderr()).toMatch(/MCP_TENANTS_FILE cannot be combined with --sandbox/);
  });
});
