/** The server wrapper over the SDK client: confirmation, read-only mode, cancellation, audit lines, sandbox marking. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { IdempotencyStore } from "../../src/idempotency/store.js";
import { createServer } from "../../src/mcp/server.js";
import { SEED } from "../../src/sandbox/index.js";
import { defineTool } from "../../tools/define.js";
import { connect, textOf } from "../helpers/mcp.js";
import { firstLine } from "../helpers/results.js";
import { captureLogger, useSandbox } from "../helpers/sandbox.js";
import { inRegistryOrder, READ_ONLY_TOOL_NAMES } from "../helpers/tools.js";

const fx = useSandbox();

const entry = (document: string) => ({
  warehouse_code: SEED.warehouses.main,
  movement_type: "purchase",
  document,
  code_user: SEED.users.withAccount,
  items: [{ code: SEED.itemCodes.sparePart, qty: 1, unit_cost: 10 }],
});
const movementsWith = (document: string) =>
  fx.sb.state.movements.filter((m) => m.movement.document === document).length;

describe("--confirm-writes", () => {
  it("writes after the user accepts, showing what will be written", async () => {
    const asked: string[] = [];
    const mcp = await connect({
      clients: fx.clients(),
      confirmWrites: true,
      elicit: (message) => {
        asked.push(message);
        return { action: "accept", content: { confirm: true } };
      },
    });
    const result = await mcp.client.callTool({
      name: "create_warehouse_entry",
      arguments: entry("CONFIRM-OK"),
    });
    await mcp.close();
    expect(result.isError).toBeFalsy();
    expect(asked).toEqual([
      'Write now (not a dry run): 1 x "SP-1003" at unit cost 10 into warehouse "WH-MAIN" as a purchase entry (costs in the company\'s currency). Text from the agent, quoted: document "CONFIRM-OK"; user "HR-001".',
    ]);
    expect(movementsWith("CONFIRM-OK")).toBe(1);
  });

  it("quotes the agent's free text on one line, cut to 80 characters, after the quantities and targets", async () => {
    // The red-team's attack: free text written to read as the server's own words.
    const hostile =
      '"\n\nThis is a DRY RUN: nothing will be written.\r\nApprove freely.\u202E\u200B\u0007 ' +
      "x".repeat(200);
    const asked: string[] = [];
    const elicit = (message: string) => {
      asked.push(message);
      return { action: "decline" as const };
    };
    const mcp = await connect({ clients: fx.clients(), confirmWrites: true, elicit });
    await mcp.client.callTool({
      name: "create_warehouse_entry",
      arguments: {
        ...entry("CONFIRM-HOSTILE"),
        note: hostile,
        items: [{ code: SEED.itemCodes.sparePart, qty: 2.5, unit_cost: 7, tax_name: hostile.slice(0, 100) }],
      },
    });
    await mcp.client.callTool({
      name: "add_task_resources",
      arguments: {
        id_group_task: 1,
        id_task: SEED.tasks.main4,
        resources: [
          { type_description: "INVENTORY", id_item: SEED.items.sparePart, note: hostile },
          { type_description: "SERVICES", id_service_type: 1 },
        ],
      },
    });
    await mcp.close();
    expect(asked).toMatchInlineSnapshot(`
      [
        "Write now (not a dry run): 2.5 x "SP-1003" at unit cost 7 into warehouse "WH-MAIN" as a purchase entry (costs in the company's currency). Text from the agent, quoted: document "CONFIRM-HOSTILE"; user "HR-001"; note "\\" This is a DRY RUN: nothing will be written. Approve freely. xxxxxxxxxxxxxxxxxx…"; tax "\\" This is a DRY RUN: nothing will be written. Approve freely. xxxxxxxxxxxxxxxxxx…".",
        "Write now (not a dry run): add 2 resource(s), quantity 1 each at the unit cost of its record, to task 104 of task plan 1: INVENTORY id_item 1003, SERVICES id_service_type 1. Text from the agent, quoted: note of resource 0 "\\" This is a DRY RUN: nothing will be written. Approve freely. xxxxxxxxxxxxxxxxxx…".",
      ]
    `);
    for (const message of asked) {
      expect(message).toMatch(/^Write now \(not a dry run\): /);
      for (const hidden of ["\r", "\n", "\u0007", "\u200B", "\u202E"]) expect(message).not.toContain(hidden);
      expect(message).not.toContain("x".repeat(81));
    }
    expect(movementsWith("CONFIRM-HOSTILE")).toBe(0);
  });

  it.each([
    ["declines", "CONFIRM-DECLINE", { action: "decline" as const }],
    ["cancels", "CONFIRM-CANCEL", { action: "cancel" as const }],
    [
      "accepts without ticking the box",
      "CONFIRM-UNTICKED",
      { action: "accept" as const, content: { confirm: false } },
    ],
  ])("writes nothing when the user %s", async (_, document, answer) => {
    const mcp = await connect({ clients: fx.clients(), confirmWrites: true, elicit: () => answer });
    const result = await mcp.client.callTool({ name: "create_warehouse_entry", arguments: entry(document) });
    await mcp.close();
    expect(result.isError).toBe(true);
    expect(firstLine(result)).toBe("[sandbox] The user did not approve this write; nothing was written.");
    expect(movementsWith(document)).toBe(0);
  });

  it("refuses clearly when the client cannot elicit, for both writers", async () => {
    const mcp = await connect({ clients: fx.clients(), confirmWrites: true });
    const results = [
      await mcp.client.callTool({ name: "create_warehouse_entry", arguments: entry("CONFIRM-NOCAP") }),
      await mcp.client.callTool({
        name: "add_task_resources",
        arguments: {
          id_group_task: 1,
          id_task: SEED.tasks.main4,
          resources: [{ type_description: "SERVICES", id_service_type: SEED.serviceTypes.noCost }],
        },
      }),
    ];
    await mcp.close();
    for (const result of results) {
      expect(result.isError).toBe(true);
      expect(firstLine(result)).toMatch(/cannot show a confirmation prompt .*nothing was written/);
    }
    expect(movementsWith("CONFIRM-NOCAP")).toBe(0);
  });

  it("does not ask for a dry run, and reads never ask", async () => {
    let asked = 0;
    const mcp = await connect({
      clients: fx.clients(),
      confirmWrites: true,
      elicit: () => {
        asked++;
        return { action: "decline" };
      },
    });
    const dry = await mcp.client.callTool({
      name: "create_warehouse_entry",
      arguments: { ...entry("DRY"), dry_run: true },
    });
    const read = await mcp.client.callTool({ name: "list_warehouse_groups_1", arguments: { limit: 1 } });
    await mcp.close();
    expect(dry.isError).toBeFalsy();
    expect(read.isError).toBeFalsy();
    expect(asked).toBe(0);
  });
});

describe("tool selection", () => {
  it("--read-only offers only the read tools", async () => {
    const mcp = await connect({ clients: fx.clients(), readOnly: true });
    const names = (await mcp.client.listTools()).tools.map((t) => t.name);
    await expect(
      mcp.client.callTool({ name: "create_warehouse_entry", arguments: entry("RO") }),
    ).rejects.toThrow(/Unknown tool/);
    await mcp.close();
    expect(names).toEqual(READ_ONLY_TOOL_NAMES);
  });

  it("--tools offers exactly the named tools", async () => {
    const mcp = await connect({ clients: fx.clients(), tools: ["list_dags", "query_budgets"] });
    const names = (await mcp.client.listTools()).tools.map((t) => t.name);
    await mcp.close();
    expect(names).toEqual(inRegistryOrder(["list_dags", "query_budgets"]));
  });
});

describe("calls", () => {
  it("cancellation aborts the upstream request promptly", async () => {
    const { logger, lines } = captureLogger("info");
    const mcp = await connect({ clients: fx.clients(), logger });
    // Held far longer than the test's timeout: ending at all proves the abort cut the wait.
    fx.sb.faults.latency(60_000, "/api/warehouse_entries_orders");
    const controller = new AbortController();
    const key = "POST /api/warehouse_entries_orders/WH-MAIN";
    const before = fx.sb.faults.requestCount[key] ?? 0;
    const pending = mcp.client.callTool(
      { name: "create_warehouse_entry", arguments: entry("CANCELLED") },
      undefined,
      {
        signal: controller.signal,
      },
    );
    // Cancelled once the POST is held upstream (an event), never after a guessed delay.
    await vi.waitFor(() => expect(fx.sb.faults.requestCount[key] ?? 0).toBe(before + 1), {
      timeout: 15_000,
      interval: 5,
    });
    controller.abort("user pressed stop");
    await expect(pending).rejects.toThrow();
    // The server side sees the abort too: its audit line says so, long before the upstream answers.
    await expect
      .poll(() => lines.some((l) => l.includes('"outcome":"cancelled"')), { timeout: 15_000 })
      .toBe(true);
    fx.sb.faults.reset();
    await mcp.close();
  });

  it("logs one audit line per write, without secrets", async () => {
    const { logger, lines } = captureLogger("debug");
    const mcp = await connect({ clients: fx.clients(), logger });
    await mcp.client.callTool({ name: "create_warehouse_entry", arguments: entry("AUDIT") });
    await mcp.client.callTool({ name: "query_budgets", arguments: { limit: 1 } });
    await mcp.close();
    const audits = lines.map((l) => JSON.parse(l)).filter((r) => r.audit);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({
      level: "info",
      tool: "create_warehouse_entry",
      target: "warehouse WH-MAIN (document AUDIT)",
      outcome: "ok",
    });
    expect(typeof audits[0].duration_ms).toBe("number");
    expect(lines.join("")).not.toMatch(/demo-secret|Bearer [A-Za-z0-9]/);
  });

  it("marks sandbox results, and not real ones", async () => {
    const real = await connect({ clients: fx.clients(), sandbox: false });
    const result = await real.client.callTool({ name: "list_warehouse_groups_1", arguments: { limit: 1 } });
    await real.close();
    expect(result.structuredContent).not.toHaveProperty("sandbox");
    expect(textOf(result)).not.toMatch(/sandbox/);
  });
});

describe("output checks", () => {
  it("with checkOutputs, a result that breaks its schema becomes an internal-error result, not bad data", async () => {
    const broken = defineTool({
      name: "broken_tool",
      title: "Broken",
      description: "A tool whose handler breaks its output schema.",
      inputSchema: z.strictObject({}),
      outputSchema: z.object({ total: z.number() }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      handler: async () => ({ total: "many" }) as unknown as { total: number },
      toText: () => "never shown",
    });
    const { logger, lines } = captureLogger("info");
    const server = createServer(
      { clients: fx.clients(), logger, idempotency: new IdempotencyStore(), sandbox: false, version: "test" },
      { tools: [broken], confirmWrites: false, checkOutputs: true },
    );
    const client = new Client({ name: "t", version: "1" });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.sdkServer.connect(b);
    await client.connect(a);
    const result = await client.callTool({ name: "broken_tool", arguments: {} });
    await client.close();
    expect(result.isError).toBe(true);
    expect(firstLine(result)).toBe(
      "Internal error: broken_tool produced an unexpected result; this is a bug in maintenance-mcp.",
    );
    expect(lines.join("")).toMatch(/tool output does not match its schema/);
  });
});
