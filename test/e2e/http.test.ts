/** The built binary over stateless Streamable HTTP: concurrent clients, health, graceful shutdown with a call in flight. */
import { once } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { cleanEnv, runBin, startBin } from "./bin.js";

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
});
afterAll(() => sb.close());

async function clientFor(url: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: "e2e-http", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

describe("maintenance-mcp --http", () => {
  it("serves several concurrent clients (no sessions) and a health check", async () => {
    const { child, match } = await startBin(
      ["--http", "--port", "0"],
      cleanEnv(sb.env()),
      /listening on (http:\S+)/,
    );
    const url = match[1]!;
    try {
      const clients = await Promise.all([1, 2, 3].map(() => clientFor(url)));
      const results = await Promise.all(
        clients.map((c) => c.callTool({ name: "list_warehouse_groups_1", arguments: { limit: 2 } })),
      );
      for (const r of results) expect(r.structuredContent).toMatchObject({ returned: 2 });
      const health = await fetch(url.replace("/mcp", "/healthz"));
      expect(await health.json()).toMatchObject({ status: "ok", in_flight: 0 });
      await Promise.all(clients.map((c) => c.close()));
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });

  it("requires MCP_HTTP_TOKEN when set, compared as a bearer token", async () => {
    const token = "e2e-token-0123456789abcdef";
    const { child, match } = await startBin(
      ["--http", "--port", "0"],
      cleanEnv({ ...sb.env(), MCP_HTTP_TOKEN: token }),
      /listening on (http:\S+)/,
    );
    const url = match[1]!;
    try {
      await expect(clientFor(url)).rejects.toThrow();
      await expect(clientFor(url, { authorization: "Bearer wrong-token-0123456789" })).rejects.toThrow();
      const client = await clientFor(url, { authorization: `Bearer ${token}` });
      expect((await client.listTools()).tools).toHaveLength(5);
      await client.close();
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });

  it("exits 2 with a clear message when the port is taken", async () => {
    const { child, match } = await startBin(
      ["--http", "--port", "0"],
      cleanEnv(sb.env()),
      /listening on (http:\S+)/,
    );
    try {
      const port = new URL(match[1]!).port;
      const run = await runBin(["--http", "--port", port], cleanEnv(sb.env()));
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(new RegExp(`--port: ${port} is already in use`));
      expect(run.stdout).toBe("");
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });

  it("finishes an in-flight call on SIGTERM, then exits 0", async () => {
    const { child, match, output } = await startBin(
      ["--http", "--port", "0"],
      cleanEnv(sb.env()),
      /listening on (http:\S+)/,
    );
    const client = await clientFor(match[1]!);
    // Held upstream until the server has the signal (its log line), then released: no guessed delay.
    sb.faults.latency(600_000, "/api/warehouses_groups_1");
    try {
      const before = sb.faults.requestCount["GET /api/warehouses_groups_1"] ?? 0;
      const pending = client.callTool({ name: "list_warehouse_groups_1", arguments: { limit: 1 } });
      // SIGTERM once the call is in flight upstream (an event), never after a guessed delay.
      await vi.waitFor(
        () => expect(sb.faults.requestCount["GET /api/warehouses_groups_1"] ?? 0).toBe(before + 1),
        { timeout: 15_000, interval: 5 },
      );
      child.kill("SIGTERM");
      await vi.waitFor(() => expect(output.stderr).toMatch(/shutting down/), {
        timeout: 15_000,
        interval: 5,
      });
      sb.faults.latency(0, "/api/warehouses_groups_1");
      const result = await pending;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ returned: 1 });
      const [code] = await once(child, "exit");
      expect(code).toBe(0);
    } finally {
      sb.faults.reset();
    }
  });
});
