/**
 * interface.md §6g "Writes": a dry run's first line says what only the real call can check (the
 * warehouse, items, user and supplier exist; a task resource's item is a tool or spare part) and
 * whether a real call with the same idempotency_key is safe to repeat; the writers' descriptions say
 * the API has no look-ups. Then the real calls against the sandbox show both claims hold: the API
 * refuses what the dry run passed, and a repeat with the key writes nothing new.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../src/sandbox/index.js";
import { connect, textOf } from "../helpers/mcp.js";
import { firstLine } from "../helpers/results.js";
import { useSandbox } from "../helpers/sandbox.js";

const fx = useSandbox();
let mcp: Awaited<ReturnType<typeof connect>>;
beforeAll(async () => {
  mcp = await connect({ clients: fx.clients() });
});
afterAll(() => mcp.close());

const call = (name: string, args: Record<string, unknown>) => mcp.client.callTool({ name, arguments: args });
const ENTRY_POSTS = "POST /api/warehouse_entries_orders/WH-MAIN";
const posts = (key: string) => fx.sb.faults.requestCount[key] ?? 0;

/** A purchase the dry run passes and the API refuses: the item is not in the warehouse. */
const unknownItemPurchase = (key: string) => ({
  warehouse_code: SEED.warehouses.main,
  movement_type: "purchase",
  document: "INV-6G-1",
  code_user: SEED.users.withAccount,
  code_supplier: SEED.suppliers.main,
  items: [{ code: "NO-SUCH-ITEM", qty: 1, unit_cost: 5 }],
  idempotency_key: key,
});

describe("the dry run's first line (interface.md §6g)", () => {
  it("a warehouse entry: names the warehouse, item, user and supplier only the real call checks, and a safe repeat", async () => {
    const before = posts(ENTRY_POSTS);
    const dry = await call("create_warehouse_entry", { ...unknownItemPurchase("6g-entry-1"), dry_run: true });
    expect(dry.isError).toBeFalsy();
    expect(firstLine(dry)).toBe(
      '[sandbox] Dry run: nothing sent. Only the real call can check (the API has no look-ups): warehouse WH-MAIN exists and is not integrated, and has NO-SUCH-ITEM; user HR-001 exists and has a user account; SUP-001 exists and is a supplier; the credential may create warehouse entries. A real call with idempotency_key "6g-entry-1" writes once and is safe to repeat.',
    );
    expect(posts(ENTRY_POSTS)).toBe(before);

    // The real call checks what the dry run could not: the API refuses the unknown item.
    const real = await call("create_warehouse_entry", unknownItemPurchase("6g-entry-1"));
    expect(real.isError).toBe(true);
    expect(textOf(real)).toContain("NO-SUCH-ITEM");
  });

  it("a task resource: names the item's kind as the real call's check, and a key already used as a safe repeat", async () => {
    const args = {
      id_group_task: SEED.taskPlans.main,
      id_task: SEED.tasks.main3,
      resources: [{ type_description: "INVENTORY", id_item: SEED.items.notToolOrSpare }],
      idempotency_key: "6g-res-1",
    };
    const dry = await call("add_task_resources", { ...args, dry_run: true });
    expect(firstLine(dry)).toContain(
      `Only the real call can check (the API has no look-ups): task plan 1 exists and task ${SEED.tasks.main3} is in it; id_item ${SEED.items.notToolOrSpare} is a tool or spare part;`,
    );
    expect(firstLine(dry)).toMatch(
      /A real call with idempotency_key "6g-res-1" writes once and is safe to repeat\.$/,
    );
    const real = await call("add_task_resources", args);
    expect(real.isError).toBe(true);
    expect(textOf(real)).toContain(`${SEED.items.notToolOrSpare}`);
  });

  it("after a write with the key: the dry run says a repeat writes nothing new, and the repeat does not", async () => {
    const args = {
      id_group_task: SEED.taskPlans.main,
      id_task: SEED.tasks.main,
      resources: [{ type_description: "INVENTORY", id_item: SEED.items.tool }],
      idempotency_key: "6g-res-2",
    };
    const first = await call("add_task_resources", args);
    expect(first.isError).toBeFalsy();
    const path = `POST /api/group_tasks/${SEED.taskPlans.main}/tasks/${SEED.tasks.main}/resources`;
    const sent = posts(path);
    const dry = await call("add_task_resources", { ...args, dry_run: true });
    expect(firstLine(dry)).toMatch(
      /A real call with idempotency_key "6g-res-2" is safe to repeat: the key was already used for this request, so it writes nothing new\.$/,
    );
    const again = await call("add_task_resources", args);
    expect(again.structuredContent).toMatchObject({ replayed: true });
    expect(posts(path)).toBe(sent);
  });

  it("without a key: the first line asks for one", async () => {
    const { idempotency_key: _k, ...args } = unknownItemPurchase("unused");
    const dry = await call("create_warehouse_entry", { ...args, dry_run: true });
    expect(firstLine(dry)).toMatch(/Send an idempotency_key: then a real call is safe to repeat\.$/);
  });

  it("the writers' descriptions say a dry run checks only the input, the API having no look-ups", async () => {
    const { tools } = await mcp.client.listTools();
    const writers = tools.filter((t) => t.annotations?.readOnlyHint === false);
    expect(writers.map((t) => t.name).sort()).toEqual(["add_task_resources", "create_warehouse_entry"]);
    for (const tool of writers) {
      const dryRun = (tool.inputSchema.properties as Record<string, { description?: string }>).dry_run;
      expect(dryRun?.description).toBe("Local checks only (no API look-ups); sends nothing.");
    }
  });
});
