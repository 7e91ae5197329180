/**
 * Warehouse entries (api-spec §4.3): the four kinds, source-derived supplier/cost center/currency
 * and overrides, every error rule, stock and weighted average cost (flowing into a later task
 * resource), pending/returnable bookkeeping, and 20 parallel entries never over-receiving a PO.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxHandle, SEED } from "../../src/sandbox/index.js";
import { bearer, type Envelope, fixedClock, HAWK_OTHER, hawk, start, token } from "./helpers.js";

let sb: SandboxHandle;
let tok: string;
const clock = fixedClock();

beforeAll(async () => {
  sb = await start({ clock });
  tok = await token(sb);
});
afterAll(() => sb.close());

type Movement = Record<string, unknown> & { movement_details: Record<string, unknown>[] };
const entry = (body: unknown, wh = "WH-MAIN", t = tok) =>
  bearer<Envelope<Movement & Record<string, unknown>[]>>(
    sb,
    t,
    "POST",
    `/api/warehouse_entries_orders/${encodeURIComponent(wh)}`,
    body,
  );
const base = { code_user: SEED.users.withAccount };
const stock = (wh: string, code: string) => sb.state.warehouses.find((w) => w.code === wh)!.stock[code];
const source = (folio: string) => sb.state.sources.find((s) => s.folio === folio)!;

describe("new purchase", () => {
  it("answers the full movement; default tax; numbers as text accepted; stock updated", async () => {
    const before = stock("WH-MAIN", "CS-1005")!;
    const r = await entry({
      ...base,
      movement_type: 1,
      document: "INV-77",
      items: [{ code: "CS-1005", qty: "10", unit_cost: "2.5" }],
    });
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(1);
    const m = r.body.data as Movement;
    expect(Object.keys(m)).toEqual([
      "id",
      "folio_target",
      "date",
      "description",
      "document",
      "id_third_party",
      "third_parties_name",
      "third_parties_code",
      "id_cost_center",
      "costs_center_value",
      "costs_center_description",
      "folio_source",
      "date_create",
      "id_priority",
      "priorities_description",
      "id_currency",
      "currency_description",
      "currency_symbol",
      "movements_states_description",
      "movement_details",
    ]);
    expect(typeof m.folio_target).toBe("string");
    expect(m.date_create).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/);
    expect(m).toMatchObject({ id_currency: 1, currency_description: "US Dollar", currency_symbol: "$" });
    expect(m.movement_details).toEqual([
      {
        id_item: 1005,
        items_description: "Cleaning solvent 1L",
        code: "CS-1005",
        units_description: "Litre",
        qty: 10,
        unit_cost: 2.5,
        total_cost: 25,
        tax_name: "IVA 19%",
        tax_rate: 19,
      },
    ]);
    expect(stock("WH-MAIN", "CS-1005")).toBe(before + 10);
    expect(sb.state.movements.at(-1)!.movement).toEqual(m);
  });

  it("explicit tax_name, cost center by description, warehouse code percent-decoded", async () => {
    const r = await entry(
      {
        ...base,
        movement_type: "1",
        document: "INV-78",
        description_cost_center: "Operations",
        items: [{ code: "SP-1006", qty: 1, unit_cost: 18, tax_name: "EXEMPT" }],
      },
      "WH-NORTH",
    );
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id_cost_center: "702", costs_center_value: "CC-200" });
    expect((r.body.data as Movement).movement_details[0]).toMatchObject({ tax_name: "EXEMPT", tax_rate: 0 });
  });

  it("updates the weighted average cost, which a later INVENTORY task resource uses", async () => {
    // TL-1001: average 45.5 over 14 units in stock (12 + 2); 6 more at 60.5 → (14·45.5 + 6·60.5) / 20 = 50.
    const r = await entry({
      ...base,
      movement_type: 1,
      document: "INV-79",
      items: [{ code: "TL-1001", qty: 6, unit_cost: 60.5 }],
    });
    expect(r.status).toBe(200);
    expect(sb.state.items.find((i) => i.id === 1001)!.averageCost).toBe(50);
    const res = await bearer<Envelope<{ unit_cost: number }[]>>(
      sb,
      tok,
      "POST",
      "/api/group_tasks/1/tasks/102/resources",
      {
        resources: [{ type_description: "INVENTORY", id_item: 1001 }],
      },
    );
    expect(res.status).toBe(201);
    expect(res.body.data[0]!.unit_cost).toBe(50);
  });
});

describe("from a purchase order", () => {
  it("partial: unit cost and supplier/cost center/currency from the PO; pending reduced", async () => {
    const r = await entry({
      ...base,
      movement_type: 1,
      is_from_movement: true,
      document: SEED.purchaseOrders.euro,
      items: [{ code: "SP-1003", qty: "5" }],
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      folio_source: "5002",
      id_third_party: "502",
      third_parties_code: "SUP-002",
      id_cost_center: "702",
      id_currency: 2,
      currency_symbol: "€",
    });
    expect((r.body.data as Movement).movement_details[0]).toMatchObject({
      qty: 5,
      unit_cost: 13,
      total_cost: 65,
    });
    expect(source("5002").lines[0]!.done).toBe(5);
  });

  it("over the pending quantity → 422 with the index", async () => {
    const r = await entry({
      ...base,
      movement_type: 1,
      is_from_movement: "true",
      document: "5002",
      items: [{ code: "SP-1003", qty: 16 }],
    });
    expect(r.status).toBe(422);
    expect(r.body.data).toEqual([
      {
        index: 0,
        error: "qty 16 of item SP-1003 exceeds the pending quantity 15 on the purchase order 5002",
      },
    ]);
  });

  it("total (items omitted) receives everything pending; overrides win; a second total → 422", async () => {
    const r = await entry({
      ...base,
      movement_type: 1,
      is_from_movement: true,
      document: SEED.purchaseOrders.open,
      code_supplier: "SUP-002",
      value_cost_center: "CC-300",
    });
    expect(r.status).toBe(200);
    const m = r.body.data as Movement;
    expect(m).toMatchObject({
      folio_source: "5001",
      third_parties_code: "SUP-002",
      costs_center_value: "CC-300",
    });
    expect(m.movement_details.map((d) => [d.code, d.qty, d.unit_cost])).toEqual([
      ["TL-1001", 10, 40],
      ["SP-1003", 100, 11.5],
      ["CS-1005", 50, 2],
    ]);
    expect(source("5001").lines.every((l) => l.done === l.qty)).toBe(true);
    const again = await entry({ ...base, movement_type: 1, is_from_movement: true, document: "5001" });
    expect(again.status).toBe(422);
    expect(again.body.data).toEqual([{ ERROR: "The purchase order 5001 has nothing left to receive" }]);
  });

  it("unknown PO → 404; PO of another warehouse → 422; item not on the PO → 422", async () => {
    const unknown = await entry({ ...base, movement_type: 1, is_from_movement: true, document: "0000" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.data).toEqual([{ ERROR: "Purchase order 0000 does not exist" }]);
    const other = await entry({
      ...base,
      movement_type: 1,
      is_from_movement: true,
      document: SEED.purchaseOrders.north,
    });
    expect(other.status).toBe(422);
    const notOn = await entry({
      ...base,
      movement_type: 1,
      is_from_movement: true,
      document: "5002",
      items: [{ code: "TL-1002", qty: 1 }],
    });
    expect(notOn.body.data).toEqual([{ index: 0, error: "item TL-1002 is not on the purchase order 5002" }]);
  });

  it("20 parallel entries on the same PO never over-receive it", async () => {
    const po = SEED.purchaseOrders.concurrency; // SP-1003 x10
    const stockBefore = stock("WH-MAIN", "SP-1003")!;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        entry({
          ...base,
          movement_type: 1,
          is_from_movement: true,
          document: po,
          items: [{ code: "SP-1003", qty: i % 2 === 0 ? 1 : 2 }],
        }),
      ),
    );
    const received = answers
      .filter((a) => a.status === 200)
      .reduce((sum, a) => sum + ((a.body.data as Movement).movement_details[0]!.qty as number), 0);
    expect(answers.every((a) => a.status === 200 || a.status === 422)).toBe(true);
    expect(received).toBeLessThanOrEqual(10);
    expect(source(po).lines[0]!.done).toBe(received);
    expect(stock("WH-MAIN", "SP-1003")).toBe(stockBefore + received);
    expect(source(po).lines[0]!.done).toBeGreaterThanOrEqual(9);
  });
});

describe("return of an exit", () => {
  it("partial: unit cost from the exit, returnable reduced; above returnable → 422", async () => {
    const r = await entry({
      ...base,
      movement_type: "2",
      document: SEED.exits.returnable,
      items: [{ code: "SP-1003", qty: 4, unit_cost: 999 }],
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      folio_source: "7001",
      id_cost_center: "701",
      third_parties_code: "CUS-001",
    });
    expect((r.body.data as Movement).movement_details[0]).toMatchObject({ qty: 4, unit_cost: 12.75 });
    const over = await entry({
      ...base,
      movement_type: 2,
      document: "EX-7001",
      items: [{ code: "SP-1003", qty: 7 }],
    });
    expect(over.status).toBe(422);
    expect(over.body.data).toEqual([
      { index: 0, error: "qty 7 of item SP-1003 exceeds the returnable quantity 6 on the exit EX-7001" },
    ]);
  });

  it("total return takes what is left; unknown exit → 404; fully returned → 422", async () => {
    const r = await entry({ ...base, movement_type: 2, document: "EX-7001" });
    expect(r.status).toBe(200);
    expect((r.body.data as Movement).movement_details.map((d) => [d.code, d.qty])).toEqual([
      ["TL-1001", 4],
      ["SP-1003", 6],
    ]);
    expect((await entry({ ...base, movement_type: 2, document: "EX-0000" })).status).toBe(404);
    const done = await entry({ ...base, movement_type: 2, document: SEED.exits.fullyReturned });
    expect(done.status).toBe(422);
  });

  it("serial item: serials must be the exit's; count must match qty", async () => {
    const wrong = await entry({
      ...base,
      movement_type: 2,
      document: SEED.exits.serial,
      items: [{ code: "SP-1004", qty: 1, serial_numbers: ["SN-9999"] }],
    });
    expect(wrong.body.data).toEqual([
      { index: 0, error: "serial number SN-9999 is not returnable on the exit EX-7002" },
    ]);
    const count = await entry({
      ...base,
      movement_type: 2,
      document: SEED.exits.serial,
      items: [{ code: "SP-1004", qty: 2, serial_numbers: ["SN-0001"] }],
    });
    expect(count.body.data).toEqual([{ index: 0, error: "item SP-1004 needs 2 serial numbers, got 1" }]);
    const ok = await entry({
      ...base,
      movement_type: 2,
      document: SEED.exits.serial,
      items: [{ code: "SP-1004", qty: 1, serial_numbers: ["SN-0001"] }],
    });
    expect(ok.status).toBe(200);
    expect(sb.state.warehouses.find((w) => w.code === "WH-MAIN")!.serials["SP-1004"]).toContain("SN-0001");
  });
});

describe("errors", () => {
  it("unknown warehouse → 404; integrated warehouse → 422; other company's warehouse → 404", async () => {
    const body = {
      ...base,
      movement_type: 1,
      document: "X",
      items: [{ code: "SP-1003", qty: 1, unit_cost: 1 }],
    };
    const unknown = await entry(body, "WH-NOPE");
    expect(unknown.status).toBe(404);
    expect(unknown.body.data).toEqual([{ ERROR: "Warehouse WH-NOPE does not exist" }]);
    expect((await entry(body, "WH-INTEG")).status).toBe(422);
    expect((await entry(body, "WH-C2")).status).toBe(404);
    expect((await entry(body, "../x")).status).toBe(404);
  });

  it("header errors are all listed: movement_type, document, user, supplier, cost center", async () => {
    const r = await entry({
      movement_type: 3,
      code_user: SEED.users.withoutAccount,
      code_supplier: SEED.nonSupplier,
      value_cost_center: "CC-999",
      items: [{ code: "SP-1003", qty: 1, unit_cost: 1 }],
    });
    expect(r.status).toBe(422);
    expect(r.body.data).toEqual([
      { ERROR: "movement_type must be 1 (purchase) or 2 (return)" },
      { ERROR: "document is required" },
      { ERROR: "code_user HR-003 has no user account" },
      { ERROR: "code_supplier CUS-001 is not a supplier" },
      { ERROR: "value_cost_center CC-999 does not exist" },
    ]);
    const unknownUser = await entry({ movement_type: 1, document: "D", code_user: "HR-404", items: [] });
    expect(unknownUser.body.data).toEqual([
      { ERROR: "code_user HR-404 does not exist" },
      { ERROR: "items is required for a new purchase (1 or more)" },
    ]);
  });

  it("item errors list every failing index", async () => {
    const r = await entry({
      ...base,
      movement_type: 1,
      document: "INV-80",
      items: [
        { code: "SP-1003", qty: 1, unit_cost: 10 }, // 0 ok
        { code: "SP-1006", qty: 1, unit_cost: 10 }, // 1 not associated with WH-MAIN
        { code: "SP-1003", qty: 0, unit_cost: 10 }, // 2 repeated code
        { code: "TL-1002", qty: 0, unit_cost: 10 }, // 3 qty <= 0
        { code: "TL-1002", qty: "abc", unit_cost: 10 }, // 4 repeated
        { code: "CS-1005", qty: 1 }, // 5 unit_cost missing
        { code: "SP-1004", qty: 1, unit_cost: 300 }, // 6 serial missing
        { code: "TL-1001", qty: 1, unit_cost: 1, serial_numbers: ["A"] }, // 7 serials on non-serial item
        { code: "NOPE", qty: 1, unit_cost: 1 }, // 8 unknown item
      ],
    });
    expect(r.status).toBe(422);
    expect(r.body.data).toEqual([
      { index: 1, error: "item SP-1006 is not associated with warehouse WH-MAIN" },
      { index: 2, error: "item SP-1003 is repeated in this request (index 0)" },
      { index: 3, error: "qty must be a number greater than 0" },
      { index: 4, error: "item TL-1002 is repeated in this request (index 3)" },
      { index: 5, error: "unit_cost is required" },
      { index: 6, error: "serial_numbers are required for item SP-1004" },
      { index: 7, error: "item TL-1001 is not serial-controlled: serial_numbers are not allowed" },
      { index: 8, error: "item NOPE does not exist" },
    ]);
  });

  it("invalid qty text → 422; serial already in stock → 422; nothing written on failure", async () => {
    const movements = sb.state.movements.length;
    const qty = await entry({
      ...base,
      movement_type: 1,
      document: "INV-81",
      items: [{ code: "SP-1003", qty: "two", unit_cost: 1 }],
    });
    expect(qty.body.data).toEqual([{ index: 0, error: "qty must be a number greater than 0" }]);
    const serial = await entry({
      ...base,
      movement_type: 1,
      is_from_movement: true,
      document: SEED.purchaseOrders.serial,
      items: [{ code: "SP-1004", qty: 1, serial_numbers: ["SN-0003"] }],
    });
    expect(serial.body.data).toEqual([
      { index: 0, error: "serial number SN-0003 of item SP-1004 is already in stock" },
    ]);
    expect(sb.state.movements.length).toBe(movements);
  });

  it("readonly client → 403; body not JSON → 400", async () => {
    const ro = await entry(
      { ...base, movement_type: 1, document: "X" },
      "WH-MAIN",
      await token(sb, "readonly"),
    );
    expect(ro.status).toBe(403);
    expect((await entry("{oops")).status).toBe(400);
  });

  it("company 2 (Hawk) enters into its own warehouse with its own default tax", async () => {
    const r = await hawk<Envelope<Movement>>(
      sb,
      "POST",
      "/api/warehouse_entries_orders/WH-C2",
      {
        movement_type: 1,
        document: "B-1",
        code_user: "HR-201",
        items: [{ code: "TL-2001", qty: 1, unit_cost: 70 }],
      },
      { clock, credentials: HAWK_OTHER },
    );
    expect(r.status).toBe(200);
    expect(r.body.data.movement_details[0]).toMatchObject({ tax_name: "VAT 21%", tax_rate: 21 });
    expect(r.body.data.id_currency).toBe(2);
  });
});
