/**
 * Every company sees only its own data: tasks, items, warehouses, budgets, classifications and
 * DAGs (company 2 through the noaddon client and its Hawk credentials).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxHandle, SEED } from "../../src/sandbox/index.js";
import { bearer, type Envelope, fixedClock, HAWK_OTHER, hawk, start, token } from "./helpers.js";

let sb: SandboxHandle;
let c1: string;
let c2: string;
const clock = fixedClock();
const SINCE = encodeURIComponent("2020-01-01T00:00:00Z");

beforeAll(async () => {
  sb = await start({ clock });
  c1 = await token(sb, "demo");
  c2 = await token(sb, "noaddon");
});
afterAll(() => sb.close());

describe("company isolation", () => {
  it("budgets: company 2 sees its own 12, and its own folio 100", async () => {
    const r = await bearer<Envelope<{ id_company: number; folio: string; id: number }[]>>(
      sb,
      c2,
      "GET",
      `/api/wo_budget?since=${SINCE}`,
    );
    expect(r.body.total).toBe(SEED.budgets.otherCount);
    expect(r.body.data.every((b) => b.id_company === 2)).toBe(true);
    const mine = await bearer<Envelope<{ id: number }[]>>(sb, c1, "GET", "/api/wo_budget/100");
    const theirs = await bearer<Envelope<{ id: number }[]>>(sb, c2, "GET", "/api/wo_budget/100");
    expect(mine.body.data[0]!.id).not.toBe(theirs.body.data[0]!.id);
    const other = await bearer<Envelope<unknown[]>>(sb, c2, "GET", "/api/wo_budget/250");
    expect(other.body.total).toBe(0);
  });

  it("classifications: company 2 only sees its own; company 1 ids are invisible to it", async () => {
    const r = await hawk<Envelope<{ id_company: number }[]>>(
      sb,
      "GET",
      "/api/warehouses_groups_1?only_enabled=false",
      undefined,
      { clock, credentials: HAWK_OTHER },
    );
    expect(r.body.total).toBe(SEED.warehouseGroups1.otherCount);
    expect(r.body.data.every((g) => g.id_company === 2)).toBe(true);
    const cross = await bearer<Envelope<null>>(
      sb,
      c2,
      "GET",
      `/api/warehouses_groups_1?id=${SEED.warehouseGroups1.firstMainId}`,
    );
    expect(cross.body).toEqual({ success: true, message: "200", data: null, total: 0 });
  });

  it("DAGs: each company gets its own list and id_company", async () => {
    const one = await bearer<{ id_company: string; dags: { dag_id: string }[] }>(
      sb,
      c1,
      "GET",
      "/hub/api/v1/dags",
    );
    const two = await bearer<{ id_company: string; total: number; dags: { dag_id: string }[] }>(
      sb,
      c2,
      "GET",
      "/hub/api/v1/dags",
    );
    expect(two.body.id_company).toBe("2");
    expect(two.body.total).toBe(1);
    expect(one.body.dags.map((d) => d.dag_id)).not.toContain(two.body.dags[0]!.dag_id);
  });

  it("warehouses, users and items of company 1 do not exist for company 2", async () => {
    const r = await bearer<Envelope<unknown[]>>(sb, c2, "POST", "/api/warehouse_entries_orders/WH-MAIN", {
      movement_type: 1,
      document: "X",
      code_user: "HR-201",
      items: [{ code: "SP-1003", qty: 1, unit_cost: 1 }],
    });
    expect(r.status).toBe(404);
    const items = await bearer<Envelope<unknown[]>>(sb, c2, "POST", "/api/warehouse_entries_orders/WH-C2", {
      movement_type: 1,
      document: "X",
      code_user: SEED.users.withAccount,
      code_supplier: SEED.suppliers.main,
      items: [{ code: "SP-1003", qty: 1, unit_cost: 1 }],
    });
    expect(items.body.data).toEqual([
      { ERROR: "code_user HR-001 does not exist" },
      { ERROR: "code_supplier SUP-001 does not exist" },
    ]);
    const po = await bearer<Envelope<unknown[]>>(sb, c2, "POST", "/api/warehouse_entries_orders/WH-C2", {
      movement_type: 1,
      is_from_movement: true,
      document: SEED.purchaseOrders.open,
      code_user: "HR-201",
    });
    expect(po.status).toBe(404);
  });

  it("task resources: company 1 cannot reference company 2's item", async () => {
    const r = await bearer<Envelope<unknown[]>>(sb, c1, "POST", "/api/group_tasks/1/tasks/101/resources", {
      resources: [{ type_description: "INVENTORY", id_item: SEED.items.otherCompanyTool }],
    });
    expect(r.status).toBe(422);
    expect(r.body.data).toEqual([{ index: 0, error: "id_item 2001 does not exist" }]);
  });
});
