/** The Streamable HTTP transport in-process: session bounds and idle expiry. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { IdempotencyStore } from "../../src/idempotency.js";
import { createLogger } from "../../src/logger.js";
import { createServer, selectTools } from "../../src/server.js";
import { type HttpOptions, startHttp } from "../../src/transports/http.js";
import { useSandbox } from "../helpers/sandbox.js";

const fx = useSandbox();
const quiet = createLogger({ level: "error", sink: () => {} });

async function serve(options: Partial<HttpOptions>) {
  const clients = fx.clients();
  const { tools } = selectTools({ readOnly: true, hubAvailable: true });
  const deps = {
    clients,
    logger: quiet,
    idempotency: new IdempotencyStore(),
    sandbox: true,
    version: "test",
  };
  return startHttp(() => createServer(deps, { tools, confirmWrites: false }), {
    host: "127.0.0.1",
    port: 0,
    token: undefined,
    logger: quiet,
    version: "test",
    ...options,
  });
}

async function connect(url: string) {
  const client = new Client({ name: "http-test", version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

describe("Streamable HTTP sessions", () => {
  it("refuses a new session beyond maxSessions with 503, and serves the open ones", async () => {
    const http = await serve({ maxSessions: 2 });
    try {
      const open = [await connect(http.url), await connect(http.url)];
      await expect(connect(http.url)).rejects.toThrow(/503|Too many open sessions/);
      const result = await open[0]!.client.callTool({
        name: "list_warehouse_groups_1",
        arguments: { limit: 1 },
      });
      expect(result.structuredContent).toMatchObject({ returned: 1 });
      await Promise.all(open.map((o) => o.client.close()));
    } finally {
      await http.close();
    }
  });

  it("closes sessions left idle, after which their id is unknown (404)", async () => {
    const http = await serve({ sessionIdleMs: 100 });
    try {
      const { transport } = await connect(http.url);
      const sessionId = transport.sessionId!;
      await new Promise((r) => setTimeout(r, 350));
      const res = await fetch(http.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": sessionId,
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list", params: {} }),
      });
      expect(res.status).toBe(404);
      const health = (await (await fetch(http.url.replace("/mcp", "/healthz"))).json()) as {
        sessions: number;
      };
      expect(health.sessions).toBe(0);
    } finally {
      await http.close();
    }
  });
});
