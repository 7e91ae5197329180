/**
 * The built binary with --confirm-writes, both protocol eras, both transports: a 2026-07-28 client
 * (v2 client package) and a 2025-11-25 client (1.x SDK) list the tools, read the MCP App view,
 * call each tool, confirm a write, and page with progress. Over stateless HTTP a 2025 client cannot be asked mid-call: it
 * gets the clear refusal instead.
 */
import { once } from "node:events";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as Stdio1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as Http1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxHandle, SEED, startSandbox } from "../../src/sandbox/index.js";
import { BIN, cleanEnv, startBin } from "./bin.js";

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
});
afterAll(() => sb.close());

/** What the tests need from either client generation. */
interface AnyClient {
  listTools(): Promise<{ tools: { name: string; _meta?: Record<string, unknown> }[] }>;
  listResources(): Promise<{ resources: { uri: string; mimeType?: string }[] }>;
  readResource(params: {
    uri: string;
  }): Promise<{ contents: { uri: string; mimeType?: string; text?: string }[] }>;
  call(
    name: string,
    args: Record<string, unknown>,
    onprogress?: (p: { progress: number }) => void,
  ): Promise<{ isError?: boolean; structuredContent?: unknown; content: unknown }>;
  close(): Promise<void>;
}

type Era = "2026-07-28" | "2025-11-25";

async function open(era: Era, transport: "stdio" | "http", url: string | undefined, asked: string[]) {
  const env = cleanEnv(sb.env());
  const approve = (message: string) => {
    asked.push(message);
    return { action: "accept" as const, content: { confirm: true } };
  };
  if (era === "2026-07-28") {
    const client = new Client(
      { name: "e2e-2026", version: "1" },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: era } } },
    );
    client.setRequestHandler("elicitation/create", async (r) => approve(r.params.message));
    await client.connect(
      transport === "http"
        ? new StreamableHTTPClientTransport(new URL(url!))
        : new StdioClientTransport({
            command: process.execPath,
            args: [BIN, "--confirm-writes"],
            env,
            stderr: "pipe",
          }),
    );
    expect(client.getNegotiatedProtocolVersion()).toBe(era);
    return {
      listTools: () => client.listTools(),
      listResources: () => client.listResources(),
      readResource: (params) => client.readResource(params),
      call: (name, args, onprogress) =>
        client.callTool({ name, arguments: args }, onprogress ? { onprogress } : undefined),
      close: () => client.close(),
    } as AnyClient;
  }
  const client = new Client1(
    { name: "e2e-2025", version: "1" },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (r) => approve(r.params.message));
  await client.connect(
    transport === "http"
      ? new Http1(new URL(url!))
      : new Stdio1({ command: process.execPath, args: [BIN, "--confirm-writes"], env, stderr: "pipe" }),
  );
  expect(client.getServerVersion()?.name).toBe("maintenance-mcp");
  return {
    listTools: () => client.listTools(),
    listResources: () => client.listResources(),
    readResource: (params) => client.readResource(params),
    call: (name, args, onprogress) =>
      client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : undefined),
    close: () => client.close(),
  } as AnyClient;
}

const CASES: [Era, "stdio" | "http"][] = [
  ["2026-07-28", "stdio"],
  ["2026-07-28", "http"],
  ["2025-11-25", "stdio"],
  ["2025-11-25", "http"],
];

describe.each(CASES)("a %s client over %s", (era, transport) => {
  // Each case adds a resource to its own task, so the upstream's duplicate check stays out of the way.
  const task = 101 + CASES.findIndex(([e, t]) => e === era && t === transport);
  it("lists the tools, reads the view, calls each, confirms a write, and pages with progress", async () => {
    const server =
      transport === "http"
        ? await startBin(
            ["--http", "--port", "0", "--confirm-writes"],
            cleanEnv(sb.env()),
            /listening on (http:\S+)/,
          )
        : undefined;
    const asked: string[] = [];
    const document = `E2E-${era}-${transport}`;
    try {
      const client = await open(era, transport, server?.match[1], asked);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        "add_task_resources",
        "create_warehouse_entry",
        "list_dags",
        "list_warehouse_groups_1",
        "query_budgets",
      ]);
      // interface.md §8: query_budgets names its view, which the server lists and serves.
      const view = "ui://maintenance-mcp/budget-review";
      expect(tools.find((t) => t.name === "query_budgets")?._meta).toMatchObject({
        ui: { resourceUri: view },
        "ui/resourceUri": view,
      });
      expect((await client.listResources()).resources).toEqual([
        expect.objectContaining({ uri: view, mimeType: "text/html;profile=mcp-app" }),
      ]);
      const [html] = (await client.readResource({ uri: view })).contents;
      expect(html).toMatchObject({ uri: view, mimeType: "text/html;profile=mcp-app" });
      expect(html?.text?.startsWith("<!doctype html>")).toBe(true);

      expect((await client.call("list_dags", {})).isError).toBeFalsy();
      expect((await client.call("query_budgets", {})).isError).toBeFalsy();
      const progress: number[] = [];
      const all = await client.call("list_warehouse_groups_1", { all: true }, (p) =>
        progress.push(p.progress),
      );
      expect(all.structuredContent).toMatchObject({ next_start: null });
      expect(progress.length).toBeGreaterThan(0);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));

      const write = await client.call("create_warehouse_entry", {
        warehouse_code: SEED.warehouses.main,
        movement_type: "purchase",
        document,
        code_user: SEED.users.withAccount,
        items: [{ code: SEED.itemCodes.sparePart, qty: 1, unit_cost: 3 }],
      });
      const resources = await client.call("add_task_resources", {
        id_group_task: 1,
        id_task: task,
        resources: [{ type_description: "SERVICES", id_service_type: 33 }],
      });
      await client.close();
      const written = sb.state.movements.filter((m) => m.movement.document === document).length;
      if (era === "2025-11-25" && transport === "http") {
        // Stateless HTTP has no return path for a 2025 server-to-client request: refused, not written.
        expect(write.isError).toBe(true);
        expect(JSON.stringify(write.content)).toMatch(/2025-11-25 over HTTP.*nothing was written/);
        expect(resources.isError).toBe(true);
        expect(asked).toHaveLength(0);
        expect(written).toBe(0);
      } else {
        expect(write.isError).toBeFalsy();
        expect(resources.isError).toBeFalsy();
        expect(asked).toHaveLength(2);
        expect(asked[0]).toContain(document);
        expect(written).toBe(1);
      }
    } finally {
      if (server) {
        server.child.kill("SIGTERM");
        await once(server.child, "exit");
      }
    }
  }, 30_000);
});
