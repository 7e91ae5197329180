import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../src/sandbox/index.js";
import { CreateWarehouseEntryOutput } from "../../tools/create-warehouse-entry.js";
import { connect, textOf } from "../helpers/mcp.js";
import { firstLine } from "../helpers/results.js";
import { useSandbox } from "../helpers/sandbox.js";

const fx = useSandbox();
let mcp: Awaited<ReturnType<typeof connect>>;
beforeAll(async () => {
  mcp = await connect({ clients: fx.clients() });
});
afterAll(() => mcp.close());

const call = (args: Record<string, unknown>) =>
  mcp.client.callTool({ name: "create_warehouse_entry", arguments: args });
const entryPosts = (code: string = SEED.warehouses.main) =>
  fx.sb.faults.requestCount[`POST /api/warehouse_entries_orders/${encodeURIComponent(code)}`] ?? 0;

const purchase = {
  warehouse_code: SEED.warehouses.main,
  movement_type: "purchase",
  document: "INV-2026-001",
  code_user: SEED.users.withAccount,
  code_supplier: SEED.suppliers.main,
  value_cost_center: SEED.costCenters.maintenance.value,
  items: [{ code: SEED.itemCodes.toolNoCost, qty: 2, unit_cost: 80 }],
};

describe("create_warehouse_entry", () => {
  it("registers a new purchase and returns the full movement", async () => {
    const result = await call(purchase);
    expect(result.isError).toBeFalsy();
    const out = CreateWarehouseEntryOutput.parse(result.structuredContent);
    expect(out.movement).toMatchObject({
      movements_states_description: "IN",
      document: "INV-2026-001",
      third_parties_code: SEED.suppliers.main,
      folio_source: null,
      movement_details: [{ code: SEED.itemCodes.toolNoCost, qty: 2, unit_cost: 80, total_cost: 160 }],
    });
    expect(typeof out.movement?.folio_target).toBe("string");
    expect(firstLine(result)).toMatch(
      /^\[sandbox\] Created: entry \S+ \(id \d+\) IN on \d{4}-\d{2}-\d{2}, document INV-2026-001/,
    );
  });

  it("pins the text an agent reads: ISO currency code on every amount, tax basis, one line per item", async () => {
    const result = await call({ ...purchase, document: "INV-2026-PIN" });
    expect(result.structuredContent).toMatchObject({ movement: { currency_code: "USD" } });
    // Ids and the entry date come from the sandbox's counters and clock; the rest is pinned.
    const text = textOf(result)
      .replace(/entry \S+ \(id \d+\)/, "entry <folio> (id <id>)")
      .replace(/on \d{4}-\d{2}-\d{2}/, "on <date>");
    expect(text).toMatchInlineSnapshot(`
      "[sandbox] Created: entry <folio> (id <id>) IN on <date>, document INV-2026-PIN; supplier Industrial Supply Co. (SUP-001); 1 item(s), total USD 160.00 before tax (tax USD 30.40 from the line rates).
      - TL-1002 Feeler gauge set: 2 Set x USD 80 (IVA 19%)"
    `);
    const dry = await call({ ...purchase, dry_run: true });
    expect(textOf(dry)).toMatchInlineSnapshot(
      `
      "[sandbox] Dry run: nothing sent. Only the real call can check (the API has no look-ups): warehouse WH-MAIN exists and is not integrated, and has TL-1002; user HR-001 exists and has a user account; SUP-001 exists and is a supplier; cost center CC-100 exists; the credential may create warehouse entries. Send an idempotency_key: then a real call is safe to repeat.
      The real call would create a new purchase of 1 item into warehouse WH-MAIN; third party: supplier SUP-001.
      Checked here, passed: document and code_user given; warehouse_code WH-MAIN is one path segment; items given, each with unit_cost (a new purchase); 1 item: qty above 0, at most 6 decimals.
      Confirmation: none is asked (the server runs without --confirm-writes).
      No idempotency_key: if the real call fails unclearly, a retry could write twice; send one.
      Would send POST /api/warehouse_entries_orders/WH-MAIN {"movement_type":"1","is_from_movement":false,"document":"INV-2026-001","code_user":"HR-001","code_supplier":"SUP-001","value_cost_center":"CC-100","items":[{"code":"TL-1002","qty":"2","unit_cost":80}]}"
    `,
    );
  });

  it("updates the item's average cost, which a later task resource then uses", async () => {
    // TL-1002 had no cost; after the purchase above its weighted average is 80.
    const result = await mcp.client.callTool({
      name: "add_task_resources",
      arguments: {
        id_group_task: SEED.taskPlans.main,
        id_task: SEED.tasks.main3,
        resources: [{ type_description: "INVENTORY", id_item: SEED.items.toolNoCost }],
      },
    });
    expect(result.structuredContent).toMatchObject({ resources: [{ unit_cost: 80 }] });
  });

  it("dry_run returns the exact request, what it checked and what it could not, and sends nothing", async () => {
    const before = entryPosts();
    const result = await call({ ...purchase, movement_type: 1, dry_run: true });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      dry_run: true,
      sandbox: true,
      request: {
        method: "POST",
        path: "/api/warehouse_entries_orders/WH-MAIN",
        body: {
          movement_type: "1",
          is_from_movement: false,
          document: "INV-2026-001",
          code_user: "HR-001",
          code_supplier: "SUP-001",
          value_cost_center: "CC-100",
          items: [{ code: "TL-1002", qty: "2", unit_cost: 80 }],
        },
      },
      plan: "create a new purchase of 1 item into warehouse WH-MAIN; third party: supplier SUP-001",
      third_party_role: "supplier",
      checked: [
        "document and code_user given",
        "warehouse_code WH-MAIN is one path segment",
        "items given, each with unit_cost (a new purchase)",
        "1 item: qty above 0, at most 6 decimals",
      ],
      not_checked: [
        "warehouse WH-MAIN exists and is not integrated, and has TL-1002",
        "user HR-001 exists and has a user account",
        "SUP-001 exists and is a supplier",
        "cost center CC-100 exists",
        "the credential may create warehouse entries",
      ],
      confirmation: "not_asked",
    });
    expect(entryPosts()).toBe(before);
  });

  it("dry run of a customer return: the plan names the customer by role; nothing is sent", async () => {
    const before = entryPosts();
    const result = await call({
      warehouse_code: SEED.warehouses.main,
      movement_type: "return",
      document: SEED.exits.returnable,
      code_user: SEED.users.withAccount,
      items: [{ code: SEED.itemCodes.tool, qty: 1 }],
      dry_run: true,
      idempotency_key: "return-andes-1",
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      third_party_role: "customer",
      idempotency: { key: "return-andes-1", state: "unused" },
    });
    expect(textOf(result)).toMatchInlineSnapshot(`
      "[sandbox] Dry run: nothing sent. Only the real call can check (the API has no look-ups): warehouse WH-MAIN exists and is not integrated, and has TL-1001; exit EX-7001 is from WH-MAIN and has TL-1001 not yet returned, in that quantity; user HR-001 exists and has a user account; the credential may create warehouse entries. A real call with idempotency_key "return-andes-1" writes once and is safe to repeat.
      The real call would create a return of exit EX-7001 into warehouse WH-MAIN, partial (1 item); third party: the exit's customer.
      Checked here, passed: document and code_user given; warehouse_code WH-MAIN is one path segment; 1 item: qty above 0, at most 6 decimals; the idempotency store is healthy and has room for the key.
      Confirmation: none is asked (the server runs without --confirm-writes).
      idempotency_key "return-andes-1": not used yet (the store is healthy and has room for it); if the API accepts the call it writes once, and a retry with the key returns that result.
      Would send POST /api/warehouse_entries_orders/WH-MAIN {"movement_type":"2","is_from_movement":false,"document":"EX-7001","code_user":"HR-001","items":[{"code":"TL-1001","qty":"1"}]}"
    `);
    expect(entryPosts()).toBe(before);
  });

  it("a return names its third party as the customer, in text and structured content; a purchase as the supplier", async () => {
    const returned = await call({
      warehouse_code: SEED.warehouses.main,
      movement_type: "return",
      document: SEED.exits.returnable,
      code_user: SEED.users.withAccount,
      items: [{ code: SEED.itemCodes.tool, qty: 1 }],
    });
    expect(returned.isError).toBeFalsy();
    expect(returned.structuredContent).toMatchObject({
      third_party_role: "customer",
      movement: { third_parties_code: SEED.nonSupplier, third_parties_name: "Andes Mining (customer)" },
    });
    expect(firstLine(returned)).toMatch(/; customer Andes Mining \(customer\) \(CUS-001\);/);
    expect(textOf(returned)).not.toMatch(/supplier/);

    const bought = await call({ ...purchase, document: "INV-ROLE-1" });
    expect(bought.structuredContent).toMatchObject({
      third_party_role: "supplier",
      movement: { third_parties_code: SEED.suppliers.main },
    });
    // A return with code_supplier: the supplier named replaces the exit's customer (api-spec §4.3 rule 4).
    const toSupplier = await call({
      warehouse_code: SEED.warehouses.main,
      movement_type: "return",
      document: SEED.exits.returnable,
      code_user: SEED.users.withAccount,
      code_supplier: SEED.suppliers.second,
      items: [{ code: SEED.itemCodes.tool, qty: 1 }],
    });
    expect(toSupplier.structuredContent).toMatchObject({
      third_party_role: "supplier",
      movement: { third_parties_code: SEED.suppliers.second },
    });
    // A return of an exit without a third party: said so, never a blank "supplier -".
    const noParty = await call({
      warehouse_code: SEED.warehouses.main,
      movement_type: "return",
      document: SEED.exits.serial,
      code_user: SEED.users.withAccount,
      items: [{ code: SEED.itemCodes.serialSparePart, qty: 1, serial_numbers: ["SN-0001"] }],
    });
    expect(noParty.structuredContent).not.toHaveProperty("third_party_role");
    expect(firstLine(noParty)).toMatch(/; no third party;/);
  });

  it("dry run with idempotency_key: never takes the key, then reports a replay, and refuses the key for another request", async () => {
    const args = { ...purchase, document: "INV-DRY-KEY", idempotency_key: "dry-key-1" };
    const before = entryPosts();
    const dry = await call({ ...args, dry_run: true });
    expect(dry.structuredContent).toMatchObject({ idempotency: { key: "dry-key-1", state: "unused" } });
    expect(textOf(dry)).toMatch(
      /idempotency_key "dry-key-1": not used yet \(the store is healthy and has room for it\); if the API accepts the call it writes once/,
    );
    // The dry run did not claim the key: the real call writes.
    const real = await call(args);
    expect(real.structuredContent).toMatchObject({ dry_run: false, replayed: false });
    expect(entryPosts()).toBe(before + 1);
    const folio = (real.structuredContent as { movement: { folio_target: string; id: number } }).movement;

    const again = await call({ ...args, dry_run: true });
    expect(again.structuredContent).toMatchObject({
      idempotency: { state: "replay", detail: `entry ${folio.folio_target} (id ${folio.id})` },
    });
    expect(textOf(again)).toMatch(
      /already used for this same request \(entry \S+ \(id \d+\)\); the real call writes nothing new/,
    );

    const other = await call({ ...args, document: "INV-OTHER", dry_run: true });
    expect(other.isError).toBe(true);
    expect(firstLine(other)).toBe(
      '[sandbox] Invalid input: idempotency_key "dry-key-1" was already used for a different request; use a new key for a new write',
    );
    expect(entryPosts()).toBe(before + 1);
  });

  it("dry run with idempotency_key: a call still running, and a first call without a confirmed outcome", async () => {
    const route = `POST /api/warehouse_entries_orders/${SEED.warehouses.main}`;
    const args = { ...purchase, document: "INV-DRY-SLOW", idempotency_key: "dry-key-slow" };
    fx.sb.faults.latency(400, route);
    try {
      const running = call(args);
      // The real call claims the key before it sends; poll until the dry run sees it.
      let dry = await call({ ...args, dry_run: true });
      for (
        let i = 0;
        i < 20 &&
        (dry.structuredContent as { idempotency: { state: string } }).idempotency.state === "unused";
        i++
      ) {
        await new Promise((r) => setTimeout(r, 10));
        dry = await call({ ...args, dry_run: true });
      }
      expect(dry.structuredContent).toMatchObject({ idempotency: { state: "in_progress" } });
      expect(textOf(dry)).toMatch(
        /its first call has not reported an outcome yet; the real call sends nothing and says whether it is still running/,
      );
      expect((await running).isError).toBeFalsy();
    } finally {
      fx.sb.faults.latency(0, route);
    }

    fx.sb.faults.resetNext(route, 1);
    const lost = { ...purchase, document: "INV-DRY-LOST", idempotency_key: "dry-key-lost" };
    expect((await call(lost)).isError).toBe(true);
    const dry = await call({ ...lost, dry_run: true });
    expect(dry.structuredContent).toMatchObject({ idempotency: { state: "outcome_unknown" } });
    expect(textOf(dry)).toMatch(
      /ended without a confirmed outcome \(.+\); the real call sends nothing: check upstream/,
    );
  });

  it("dry run fails on the same local rules as the real call, and sends nothing", async () => {
    const before = entryPosts();
    const result = await call({ ...purchase, items: undefined, dry_run: true });
    expect(result.isError).toBe(true);
    expect(firstLine(result)).toMatch(/items: required for a new purchase/);
    expect(entryPosts()).toBe(before);
  });

  it("idempotency_key: a retried call returns the first result and writes once", async () => {
    const before = entryPosts();
    const args = { ...purchase, document: "INV-IDEM-1", idempotency_key: "inv-idem-1" };
    const [first, second] = [await call(args), await call(args)];
    expect(first.isError).toBeFalsy();
    expect(second.structuredContent).toMatchObject({ replayed: true });
    expect((second.structuredContent as { movement: unknown }).movement).toEqual(
      (first.structuredContent as { movement: unknown }).movement,
    );
    expect(firstLine(second)).toMatch(
      /Already created earlier \(idempotency_key replay, nothing new written\)/,
    );
    expect(entryPosts()).toBe(before + 1);

    const reused = await call({ ...args, note: "different" });
    expect(reused.isError).toBe(true);
    expect(firstLine(reused)).toMatch(
      /idempotency_key "inv-idem-1" was already used for a different request/,
    );
    expect(entryPosts()).toBe(before + 1);
  });

  it("receives everything pending on a purchase order when items are omitted", async () => {
    const result = await call({
      warehouse_code: SEED.warehouses.main,
      movement_type: "purchase",
      is_from_movement: true,
      document: SEED.purchaseOrders.euro,
      code_user: SEED.users.withAccount,
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      movement: {
        folio_source: expect.any(String),
        third_parties_code: SEED.suppliers.second,
        currency_symbol: expect.any(String),
        movement_details: [{ code: SEED.itemCodes.sparePart, qty: 20, unit_cost: 13 }],
      },
    });
    const again = await call({
      warehouse_code: SEED.warehouses.main,
      movement_type: "purchase",
      is_from_movement: true,
      document: SEED.purchaseOrders.euro,
      code_user: SEED.users.withAccount,
    });
    expect(again.isError).toBe(true);
  });

  it("returns part of an exit", async () => {
    const result = await call({
      warehouse_code: SEED.warehouses.main,
      movement_type: "return",
      document: SEED.exits.returnable,
      code_user: SEED.users.withAccount,
      items: [{ code: SEED.itemCodes.sparePart, qty: 3 }],
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      movement: { movement_details: [{ code: SEED.itemCodes.sparePart, qty: 3, unit_cost: 12.75 }] },
    });
  });

  it.each([
    [{ items: undefined }, /items: required for a new purchase/],
    [{ items: [{ code: "SP-1003", qty: 1 }] }, /\[0\] item SP-1003: unit_cost is required on a new purchase/],
    [
      { items: [{ code: "SP-1004", qty: 2, unit_cost: 1, serial_numbers: ["A"] }] },
      /1 serial number\(s\) for qty 2/,
    ],
    [
      {
        items: [
          { code: "SP-1004", qty: 1, unit_cost: 1, serial_numbers: ["SN-9"] },
          { code: "SP-1004", qty: 1, unit_cost: 1, serial_numbers: ["SN-9"] },
        ],
      },
      /\[1\] item SP-1004: serial number SN-9 is also on item 0; each unit once/,
    ],
    [{ items: [{ code: "SP-1003", qty: 0, unit_cost: 1 }] }, /items\.0\.qty/],
    [{ movement_type: "sale" }, /movement_type/],
    [{ document: "  " }, /document: must not be empty/],
    [{ surprise: 1 }, /surprise/],
  ])("rejects %j locally without calling upstream", async (patch, message) => {
    const before = entryPosts();
    const result = await call({ ...purchase, ...patch });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(firstLine(result)).toMatch(message);
    expect(entryPosts()).toBe(before);
  });

  it.each([
    ["an unknown warehouse", { warehouse_code: "WH-NOPE" }, /404/],
    ["an integrated warehouse", { warehouse_code: SEED.warehouses.integrated }, /422/],
    ["a user without an account", { code_user: SEED.users.withoutAccount }, /422/],
    ["a third party that is not a supplier", { code_supplier: SEED.nonSupplier }, /422/],
  ])("explains %s", async (_, patch, status) => {
    const result = await call({ ...purchase, ...patch });
    expect(result.isError).toBe(true);
    expect(firstLine(result)).toMatch(status);
  });

  it("keeps a hostile warehouse code inside one path segment", async () => {
    const code = "../group_tasks/1?x=#";
    const dry = await call({ ...purchase, warehouse_code: code, dry_run: true });
    expect(dry.structuredContent).toMatchObject({
      request: { path: `/api/warehouse_entries_orders/${encodeURIComponent(code)}` },
    });
    const sent = await call({ ...purchase, warehouse_code: code });
    expect(firstLine(sent)).toMatch(/404/);
    expect(entryPosts(code)).toBe(1);
    const dots = await call({ ...purchase, warehouse_code: "..", dry_run: true });
    expect(dots.isError).toBe(true);
    expect(firstLine(dots)).toMatch(/warehouse_code: must be a warehouse code, not "\." or "\.\."/);
  });
});
