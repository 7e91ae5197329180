/**
 * Work-order budgets (api-spec §4.4): every field of §2.3, id/folio lookups (path and query),
 * wo_folio, status, since/until formats (and the unencoded "+" trap), type_date, defaults of
 * the 30-day period on the injectable clock, pagination with total = matches.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxHandle } from "../../src/sandbox/index.js";
import { bearer, type Envelope, fixedClock, hawk, start, token } from "./helpers.js";

let sb: SandboxHandle;
let tok: string;
const clock = fixedClock(Date.UTC(2025, 2, 10, 15, 30, 0));
const DAY = 86_400_000;

beforeAll(async () => {
  sb = await start({ clock });
  tok = await token(sb);
});
afterAll(() => sb.close());

type Budget = Record<string, unknown>;
const get = (q: string) => bearer<Envelope<Budget[]>>(sb, tok, "GET", `/api/wo_budget${q}`);
const company1 = () => sb.state.budgets.filter((b) => b.companyId === 1);

const FIELDS = [
  "id",
  "id_company",
  "id_work_order",
  "id_third_parties_log",
  "id_cost_center",
  "folio",
  "id_currency",
  "exchange_value",
  "reference",
  "id_priority",
  "note",
  "id_item_log",
  "date_create",
  "id_condition",
  "status",
  "approved_by",
  "note_status",
  "discount",
  "created_by",
  "third_parties_name",
  "third_parties_code",
  "third_parties_address",
  "third_parties_email",
  "third_parties_city",
  "third_parties_country",
  "third_parties_telephone_1",
  "third_parties_telephone_2",
  "costs_center_description",
  "items_description",
  "items_groups_description",
  "items_groups_1_description",
  "items_groups_2_description",
  "conditions_description",
  "currency_description",
  "symbol",
  "wo_folio",
  "id_status_work_order",
  "final_date",
  "user_assigned",
  "parent_description",
  "list_items",
  "approval_date",
];

describe("seed", () => {
  it("has ≥ 250 budgets for company 1 over ~90 days, many in the last 30, all statuses and several currencies", () => {
    const all = company1();
    expect(all.length).toBeGreaterThanOrEqual(250);
    const recent = all.filter((b) => b.dates.creation_date >= clock.now() - 30 * DAY);
    expect(recent.length).toBeGreaterThan(80);
    expect(Math.min(...all.map((b) => b.dates.creation_date))).toBeLessThan(clock.now() - 80 * DAY);
    expect(new Set(all.map((b) => b.record.status))).toEqual(new Set([1, 2, 3]));
    expect(new Set(all.map((b) => b.record.id_currency)).size).toBeGreaterThanOrEqual(3);
    expect(new Set(all.map((b) => b.record.id_status_work_order)).size).toBe(4);
    expect(all.some((b) => typeof b.record.discount === "string")).toBe(true);
    const lines = all.map((b) => (b.record.list_items as unknown[]).length);
    expect(lines.filter((n) => n === 0).length).toBeGreaterThan(0);
    expect(lines.filter((n) => n > 0).length).toBeGreaterThan(all.length * 0.9);
    // Names in English and Spanish, one no ISO code stands for, and "$" for three currencies.
    const names = new Set(all.map((b) => b.record.currency_description));
    for (const n of [
      "US Dollar",
      "Euro",
      "Chilean Peso",
      "Peso chileno",
      "Peso mexicano",
      "Crédito interno",
    ]) {
      expect(names).toContain(n);
    }
    expect(new Set(all.filter((b) => b.record.symbol === "$").map((b) => b.record.id_currency)).size).toBe(3);
    expect(all.some((b) => Number(b.record.discount) > 0)).toBe(true);
    const wo = all.map((b) => b.record.wo_folio);
    expect(new Set(wo).size).toBeLessThan(wo.length);
  });
});

describe("list", () => {
  it("defaults: last 30 days by work-order creation, 100 per page, total = matches", async () => {
    const expected = company1()
      .filter((b) => b.dates.creation_date >= clock.now() - 30 * DAY && b.dates.creation_date <= clock.now())
      .sort((a, b) => a.record.id - b.record.id);
    const r = await get("");
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.total).toBe(expected.length);
    expect(r.body.data.map((b) => b.id)).toEqual(expected.slice(0, 100).map((b) => b.record.id));
    expect(Object.keys(r.body.data[0]!)).toEqual(FIELDS);
    const li = (r.body.data[0]!.list_items as Record<string, unknown>[])[0]!;
    expect(Object.keys(li).sort()).toEqual(
      [
        "id_company",
        "type_resource",
        "qty",
        "unit_cost_company",
        "total_cost_company",
        "unit_cost",
        "total_cost",
        "id_taxes",
        "hrl_description",
        "items_log_description",
        "stl_description",
      ].sort(),
    );
  });

  it("pages with start/limit; total stays the number of matches", async () => {
    const since = encodeURIComponent("2024-01-01T00:00:00-03");
    const all = company1().length;
    const p1 = await get(`?since=${since}&limit=100`);
    const p3 = await get(`?since=${since}&start=200&limit=100`);
    expect(p1.body.total).toBe(all);
    expect(p3.body.total).toBe(all);
    expect(p1.body.data).toHaveLength(100);
    expect(p3.body.data).toHaveLength(all - 200);
    const past = await get(`?since=${since}&start=${all}`);
    expect(past.body).toEqual({ success: true, message: "200", data: [], total: all });
  });

  it("status filter", async () => {
    const since = encodeURIComponent("2024-01-01T00:00:00Z");
    for (const s of [1, 2, 3]) {
      const r = await get(`?since=${since}&status=${s}`);
      expect(r.body.total).toBe(company1().filter((b) => b.record.status === s).length);
      expect(r.body.data.every((b) => b.status === s)).toBe(true);
    }
  });

  it("since/until accept ±HH, ±HH:MM and Z and are inclusive", async () => {
    const target = company1()[10]!;
    const at = new Date(target.dates.creation_date);
    const iso = at.toISOString().slice(0, 19); // exact second, but creation has ms: widen by one second
    const plus1 = new Date(target.dates.creation_date + 1000).toISOString().slice(0, 19);
    const r = await get(`?since=${iso}Z&until=${encodeURIComponent(`${plus1}+00:00`)}`);
    expect(r.body.data.map((b) => b.id)).toContain(target.record.id);
    // The same instant written at -03.
    const local = new Date(target.dates.creation_date - 3 * 3_600_000 + 1000).toISOString().slice(0, 19);
    const r2 = await get(`?since=${iso}Z&until=${local}-03`);
    expect(r2.body.data.map((b) => b.id)).toContain(target.record.id);
  });

  it("type_date selects the date; unknown type_date → 422", async () => {
    const since = encodeURIComponent("2024-01-01T00:00:00+00");
    const r = await get(`?since=${since}&type_date=approval_date`);
    expect(r.body.total).toBe(company1().filter((b) => b.dates.approval_date !== null).length);
    const f = await get(`?since=${since}&type_date=final_date`);
    const now = clock.now();
    expect(f.body.total).toBe(
      company1().filter((b) => b.dates.final_date !== null && b.dates.final_date <= now).length,
    );
    const i = await get(
      `?since=${since}&type_date=initial_date&until=${encodeURIComponent("2030-01-01T00:00:00+00")}`,
    );
    expect(i.body.total).toBe(company1().length);
    const bad = await get("?type_date=due_date");
    expect(bad.status).toBe(422);
    expect(bad.body.data).toEqual([
      { ERROR: "type_date must be one of creation_date, initial_date, final_date, approval_date" },
    ]);
  });

  it("malformed dates → 422 (never 500), including an unencoded '+' that arrives as a space", async () => {
    for (const q of [
      "2024-01-01",
      "2024-13-01T00:00:00-03",
      "yesterday",
      "2024-01-01T00:00:00",
      "2024-02-30T00:00:00Z",
    ]) {
      const r = await get(`?since=${encodeURIComponent(q)}`);
      expect(r.status, q).toBe(422);
    }
    const plus = await get("?since=2024-01-01T00:00:00+03");
    expect(plus.status).toBe(422);
    expect(plus.body.data[0]!.ERROR).toMatch(/%2B/);
    const order = await get(
      `?since=${encodeURIComponent("2025-01-02T00:00:00Z")}&until=${encodeURIComponent("2025-01-01T00:00:00Z")}`,
    );
    expect(order.status).toBe(422);
  });

  it("start/limit validation: limit above 100, zero, negative or non-integer → 422", async () => {
    for (const q of ["?limit=101", "?limit=0", "?limit=-1", "?limit=1.5", "?start=-1", "?start=abc"]) {
      const r = await get(q);
      expect(r.status, q).toBe(422);
      expect(r.body.success).toBe(false);
    }
  });

  it("status other than 1/2/3 → 422", async () => {
    expect((await get("?status=4")).status).toBe(422);
  });
});

describe("lookups", () => {
  it("by folio, in the path and as ?id=, outside the default period", async () => {
    const old = company1().find((b) => b.dates.creation_date < clock.now() - 60 * DAY)!;
    const byPath = await get(`/${old.record.folio}`);
    expect(byPath.body).toMatchObject({ success: true, total: 1 });
    expect(byPath.body.data[0]).toEqual(old.record);
    const byQuery = await get(`?id=${old.record.folio}`);
    expect(byQuery.body.data).toEqual(byPath.body.data);
  });

  it("id wins over wo_folio; wo_folio alone returns every budget of the work order", async () => {
    const b = company1()[0]!;
    const other = company1().find((x) => x.record.wo_folio !== b.record.wo_folio)!;
    const r = await get(`?id=${b.record.folio}&wo_folio=${other.record.wo_folio}`);
    expect(r.body.data.map((x) => x.id)).toEqual([b.record.id]);
    const wo = await get(`?wo_folio=${b.record.wo_folio}`);
    const expected = company1().filter((x) => x.record.wo_folio === b.record.wo_folio);
    expect(expected.length).toBe(2);
    expect(wo.body.total).toBe(2);
  });

  it("a folio that does not exist → success true, total 0, data []", async () => {
    const r = await get("/999999");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, message: "200", data: [], total: 0 });
  });

  it("works with Hawk (query string signed exactly)", async () => {
    const offset = clock.now() - Date.now();
    const r = await hawk<Envelope<Budget[]>>(
      sb,
      "GET",
      `/api/wo_budget/?since=${encodeURIComponent("2024-01-01T00:00:00-05")}&until=${encodeURIComponent("2030-01-31T23:59:59-05")}&limit=3`,
      undefined,
      { localtimeOffsetMsec: offset },
    );
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(company1().length);
  });

  it("the default period follows the clock", async () => {
    const before = (await get("")).body.total;
    clock.advance(200 * DAY);
    const later = await bearer<Envelope<Budget[]>>(sb, await token(sb), "GET", "/api/wo_budget");
    clock.advance(-200 * DAY);
    expect(before).toBeGreaterThan(0);
    expect(later.body).toEqual({ success: true, message: "200", data: [], total: 0 });
  });
});
