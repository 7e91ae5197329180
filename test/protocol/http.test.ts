/** The Streamable HTTP transport in-process: session bounds, idle expiry, confirmation over the stream. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { IdempotencyStore } from "../../src/idempotency.js";
import { createLogger } from "../../src/logger.js";
import { SEED } from "../../src/sandbox/index.js";
import { createServer, selectTools } from "../../src/server.js";
import { type HttpOptions, startHttp } from "../../src/transports/http.js";
import { useSandbox } from "../helpers/sandbox.js";

const fx = useSandbox();
const quiet = createLogger({ level: "error", sink: () => {} });

async function serve(options: Partial<HttpOptions>, confirmWrites = false) {
  const clients = fx.clients();
  const { tools } = selectTools({ readOnly: false, hubAvailable: true });
  const deps = {
    clients,
    logger: quiet,
    idempotency: new IdempotencyStore(),
    sandbox: true,
    version: "test",
  };
  return startHttp(() => createServer(deps, { tools, confirmWrites }), {
    host: "127.0.0.1",
    port: 0,
    token: undefined,
    logger: quiet,
    version: "test",
    ...options,
  });
}

async function connect(url: string, elicit?: (message: string) => boolean) {
  const client = new Client(
    { name: "http-test", version: "1" },
    { capabilities: elicit ? { elicitation: { form: {} } } : {} },
  );
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => ({
      action: "accept",
      content: { confirm: elicit(request.params.message) },
    }));
  }
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

  it("asks for confirmation over the HTTP stream and writes only what the user approved", async () => {
    const http = await serve({}, true);
    const asked: string[] = [];
    try {
      const { client } = await connect(http.url, (message) => {
        asked.push(message);
        return message.includes("HTTP-YES");
      });
      const entry = (document: string) => ({
        warehouse_code: SEED.warehouses.main,
        movement_type: "purchase",
        document,
        code_user: SEED.users.withAccount,
        items: [{ code: SEED.itemCodes.sparePart, qty: 1, unit_cost: 5 }],
      });
      const yes = await client.callTool({ name: "create_warehouse_entry", arguments: entry("HTTP-YES") });
      const no = await client.callTool({ name: "create_warehouse_entry", arguments: entry("HTTP-NO") });
      await client.close();
      expect(asked).toHaveLength(2);
      expect(yes.isError).toBeFalsy();
      expect(no.isError).toBe(true);
      const documents = fx.sb.state.movements.map((m) => m.movement.document);
      expect(documents).toContain("HTTP-YES");
      expect(documents).not.toContain("HTTP-NO");
    } finally {
      await http.close();
    }
  });
});
