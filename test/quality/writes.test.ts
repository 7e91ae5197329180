/**
 * Writes (issue 11 item 7, issue 9 item 12): quantities and costs bounded and sent as plain
 * decimals, never in exponent form; totals said to be before tax, with the tax amount; the tax
 * label without the doubled rate; add_task_resources with dry_run and idempotency_key, with the
 * semantics of create_warehouse_entry. Through the SDK client against the sandbox.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { MovementDetail } from "../../src/client/types.js";
import { decimalProblem, plainDecimal } from "../../src/domain/plain-decimal.js";
import { movementTotals, taxLabel } from "../../src/domain/warehouse-entry.js";
import { SEED } from "../../src/sandbox/index.js";
import { connect } from "../helpers/mcp.js";
import { useSandbox } from "../helpers/sandbox.js";
import { allText, countOf, detailsOf, firstLine, movementsWithDocument, purchaseArgs } from "./helpers.js";

const fx = useSandbox({ faults: true });
let mcp: Awaited<ReturnType<typeof connect>>;
beforeAll(async () => {
  mcp = await connect({ clients: fx.clients() });
});
afterAll(() => mcp.close());
beforeEach(() => fx.sb.faults.reset());

const ENTRY = "POST /api/warehouse_entries_orders/WH-MAIN";
const RESOURCES = `POST /api/group_tasks/${SEED.taskPlans.main}/tasks/${SEED.tasks.main4}/resources`;
const call = async (name: string, args: Record<string, unknown>) =>
  (await mcp.client.callTool({ name, arguments: args })) as CallToolResult;
const item = (qty: number, unit_cost = 10) => ({ code: "SP-1003", qty, unit_cost });

describe("plain decimals within the API's bounds", () => {
  it.each([
    [1e-6, "0.000001"],
    [0.1, "0.1"],
    [4, "4"],
    [123456.5, "123456.5"],
    [1e11, "100000000000"],
    [999999999.123456, "999999999.123456"],
    [999999999999.5, "999999999999.5"],
    [123456789012.123, "123456789012.123"],
  ])("%s is sent as %s", (n, text) => {
    expect(decimalProblem(n)).toBeUndefined();
    expect(plainDecimal(n)).toBe(text);
  });

  it.each([
    [1e-7, /1e-7 has more than 6 decimal places: the smallest step is 0.000001/],
    [0.1 + 0.2, /has more than 6 decimal places/],
    [1e12, /1000000000000 is too large: quantities and costs must be below 1000000000000 \(10\^12\)/],
    [1e308, /1e\+308 is too large/],
    [0.0000001, /1e-7 has more than 6 decimal places/],
    [12345678901.12345, /has 16 significant digits: at most 15 are kept exactly/],
    [Number.POSITIVE_INFINITY, /finite/],
  ])("%s is refused", (n, message) => {
    expect(decimalProblem(n)).toMatch(message);
  });

  it("a dry run shows qty as a plain decimal string and costs as plain JSON numbers", async () => {
    const r = await call("create_warehouse_entry", {
      ...purchaseArgs("WR-DRY"),
      items: [item(0.000001, 0.000001), item(100000000000, 999999999999.5)],
      dry_run: true,
    });
    expect(r.isError, allText(r)).toBeFalsy();
    const sent = allText(r)
      .split("\n")
      .find((l) => l.includes("Would send POST"));
    expect(sent).toContain('"qty":"0.000001","unit_cost":0.000001');
    expect(sent).toContain('"qty":"100000000000","unit_cost":999999999999.5');
    expect(allText(r)).not.toMatch(/\de[+-]?\d/);
    expect(countOf(fx.sb, ENTRY)).toBe(0);
  });

  for (const [what, items, message] of [
    ["qty 1e-7", [item(1e-7)], /items\.0\.qty: 1e-7 has more than 6 decimal places/],
    ["qty 1e12", [item(1e12)], /items\.0\.qty: 1000000000000 is too large/],
    ["qty 1e308", [item(1, 1), item(1e308)], /items\.1\.qty: 1e\+308 is too large/],
    ["unit_cost 1e21", [item(1, 1e21)], /items\.0\.unit_cost: 1e\+21 is too large/],
  ] as const) {
    it(`${what} is refused before sending, naming the field and the bound`, async () => {
      const r = await call("create_warehouse_entry", { ...purchaseArgs(`WR-${what}`), items });
      expect(r.isError).toBe(true);
      expect(firstLine(r)).toMatch(message);
      expect(firstLine(r)).toMatch(/Nothing was sent/);
      expect(countOf(fx.sb, ENTRY)).toBe(0);
    });
  }

  it("a fractional qty is written as the exact decimal", async () => {
    const r = await call("create_warehouse_entry", { ...purchaseArgs("WR-FRACTION"), items: [item(2.5, 4)] });
    expect(r.isError, allText(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      movement: { movement_details: [{ qty: 2.5, total_cost: 10 }] },
    });
  });
});

describe("totals and taxes in the result", () => {
  it("says the total is before tax, gives the tax, and names the tax once", async () => {
    const r = await call("create_warehouse_entry", {
      ...purchaseArgs("WR-TAX"),
      items: [item(4, 12.5), { code: "TL-1001", qty: 1, unit_cost: 100 }],
    });
    expect(r.isError, allText(r)).toBeFalsy();
    const text = allText(r);
    expect(text).toMatch(
      /2 item\(s\), total USD 150\.00 before tax \(tax USD 28\.50 from the line rates\)\./,
    );
    expect(text).toMatch(/SP-1003 .*: 4 .* x USD 12\.5 \(IVA 19%\)$/m);
    expect(text).not.toMatch(/19% 19%/);
  });

  const line = (qty: number, unit: number, total: number, rate: number): MovementDetail => ({
    id_item: 1,
    items_description: "x",
    code: "C",
    units_description: "u",
    qty,
    unit_cost: unit,
    total_cost: total,
    tax_name: "T",
    tax_rate: rate,
  });

  it("reads each basis from the lines, and says so when it cannot", () => {
    expect(movementTotals([line(2, 50, 100, 19), line(1, 10, 10, 0)])).toEqual({
      total: 110,
      basis: "before_tax",
      tax: 19,
    });
    expect(movementTotals([line(2, 50, 119, 19)])).toEqual({ total: 119, basis: "with_tax", tax: 19 });
    expect(movementTotals([line(2, 50, 107, 19)])).toEqual({ total: 107, basis: "unknown", tax: undefined });
  });

  it.each([
    ["IVA 19%", 19, "IVA 19%"],
    ["IVA", 19, "IVA 19%"],
    ["VAT 21 %", 21, "VAT 21 %"],
    ["EXEMPT", 0, "EXEMPT 0%"],
    ["Reduced 5.5%", 5.5, "Reduced 5.5%"],
  ])("tax label of %s at %s%%: %s", (name, rate, label) => {
    expect(taxLabel(name, rate)).toBe(label);
  });
});

describe("add_task_resources: dry_run and idempotency_key like create_warehouse_entry", () => {
  const args = (extra: Record<string, unknown> = {}) => ({
    id_group_task: SEED.taskPlans.main,
    id_task: SEED.tasks.main4,
    resources: [
      { type_description: "SERVICES", id_service_type: SEED.serviceTypes.inspection, note: "yearly" },
    ],
    ...extra,
  });

  it("dry_run returns the exact request and sends nothing", async () => {
    const r = await call("add_task_resources", args({ dry_run: true }));
    expect(r.isError, allText(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      dry_run: true,
      request: {
        method: "POST",
        path: `/api/group_tasks/1/tasks/104/resources`,
        body: { resources: [{ type_description: "SERVICES", id_service_type: 33, note: "yearly" }] },
      },
    });
    expect(firstLine(r)).toBe(
      "[sandbox] Dry run: nothing sent. Only the real call can check (the API has no look-ups): task plan 1 exists and task 104 is in it; id_service_type 33 exists; none is on the task already; the credential may edit task plans and the company has the advanced-APIs add-on. Send an idempotency_key: then a real call is safe to repeat.",
    );
    expect(allText(r)).toContain("The real call would add 1 resource(s) to task 104 of task plan 1.");
    expect(countOf(fx.sb, RESOURCES)).toBe(0);
  });

  it("the same key replays the first result without a second write; other arguments are refused", async () => {
    const first = await call("add_task_resources", args({ idempotency_key: "wr-res-1" }));
    expect(first.isError, allText(first)).toBeFalsy();
    const again = await call("add_task_resources", args({ idempotency_key: "wr-res-1" }));
    expect(again.isError, allText(again)).toBeFalsy();
    expect(again.structuredContent).toMatchObject({ replayed: true, total: 1 });
    expect((again.structuredContent as { resources: { id: number }[] }).resources[0]!.id).toBe(
      (first.structuredContent as { resources: { id: number }[] }).resources[0]!.id,
    );
    expect(firstLine(again)).toMatch(/Already added earlier \(idempotency_key replay, nothing new written\)/);
    const other = await call(
      "add_task_resources",
      args({
        idempotency_key: "wr-res-1",
        resources: [{ type_description: "SERVICES", id_service_type: 31 }],
      }),
    );
    expect(other.isError).toBe(true);
    expect(firstLine(other)).toMatch(/already used for a different request/);
    expect(countOf(fx.sb, RESOURCES)).toBe(1);
    expect(fx.sb.state.taskResources.filter((t) => t.taskId === SEED.tasks.main4)).toHaveLength(1);
  });

  it("a 500 on a keyed call keeps the key: the retry reports the unknown outcome and sends nothing", async () => {
    fx.sb.faults.failNext("POST /api/group_tasks", 1, { status: 500, body: "<html>oops</html>" });
    const resources = [{ type_description: "HUMAN_RESOURCES", id_hourly_rate: SEED.hourlyRates.engineer }];
    const first = await call("add_task_resources", args({ idempotency_key: "wr-res-500", resources }));
    expect(first.isError).toBe(true);
    expect(detailsOf(first)).toMatchObject({ retryable: false, details: { outcome: "unknown" } });
    const again = await call("add_task_resources", args({ idempotency_key: "wr-res-500", resources }));
    expect(firstLine(again)).toMatch(/without a confirmed outcome/);
    expect(countOf(fx.sb, RESOURCES)).toBe(1);
  });

  it("create_warehouse_entry and add_task_resources keep separate keys", async () => {
    const w = await call(
      "create_warehouse_entry",
      purchaseArgs("WR-SCOPE", { idempotency_key: "wr-shared" }),
    );
    const t = await call("add_task_resources", args({ idempotency_key: "wr-shared" }));
    expect(w.isError, allText(w)).toBeFalsy();
    expect(allText(t)).not.toMatch(/different request/);
    expect(movementsWithDocument(fx.sb, "WR-SCOPE")).toBe(1);
  });
});
