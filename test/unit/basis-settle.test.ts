/**
 * The approval basis settled from the review's own records (src/domain/basis-line.ts): when every
 * budget of the company was read, a budget approved on a day strictly inside the window is in it and
 * one approved outside is not, with no read; one approved on an edge day (the records carry the day
 * only) sends the API's own read. The reads are a fake that counts what was asked of it.
 */
import { describe, expect, it } from "vitest";
import type { Budget } from "../../src/client/types.js";
import { type BasisDeps, type OtherWindow, settleBases } from "../../src/domain/basis-line.js";
import { price } from "../../src/domain/budget-view.js";
import { resolvePeriod, type TypeDate } from "../../src/domain/period.js";
import type { Read } from "../../src/domain/review/read.js";
import type { Kept } from "../../src/domain/review/records.js";
import { matching } from "../../src/domain/review/result.js";

const NOW = new Date("2026-11-26T08:30:12Z");
const ASK = { since: "2026-03-01", until: "2026-09-30" };

function kept(seq: number, approval: string | null): Kept {
  const b = {
    id: seq,
    folio: String(100 + seq),
    wo_folio: String(4000 + seq),
    status: approval === null ? 1 : 2,
    discount: null,
    date_create: "2026-05-01T10:00:00.000000+00:00",
    approval_date: approval,
    currency_description: "US Dollar",
    list_items: [{ total_cost: 10 }],
  } as unknown as Budget;
  return { p: price(b), seq };
}

/** A fake read: the company count (one record) and the API's own approval window, each counted. */
function deps(records: Kept[], approvedByApi: Kept[]) {
  const asked: string[] = [];
  const other: BasisDeps["other"] = (ask: { type_date: TypeDate; since?: string }) => ({
    key: `${ask.type_date}:${ask.since ?? ""}`,
    described: ask.type_date,
    window: resolvePeriod({ ...ASK, ...ask }, NOW),
    fetchPage: async () => ({ data: [], total: 0 }) as never,
  });
  const read = async (w: OtherWindow, max: number): Promise<Read> => {
    asked.push(w.key);
    const list = max === 1 ? records.slice(0, 1) : approvedByApi;
    const state = {
      apiTotal: max === 1 ? records.length : approvedByApi.length,
      totalIsPageLength: false,
      records: list,
      window: w.window,
      distinct: list.length,
      faults: new Map(),
      finished: () => true,
      capped: () => false,
    };
    return { state, stop: { kind: "done" }, readNow: true } as unknown as Read;
  };
  return { asked, deps: { other, read, maxRecords: 10_000, status: undefined } };
}

function here(records: Kept[]) {
  const window = resolvePeriod(ASK, NOW);
  return {
    window,
    records,
    matched: matching({}, records, window),
    apiTotal: records.length,
    totalIsPageLength: false,
  };
}

describe("the approval basis from the records", () => {
  it("every budget read, none approved on an edge day: settled with no read of that window", async () => {
    const records = [kept(0, "2026-03-02"), kept(1, "2026-09-29"), kept(2, "2026-10-02"), kept(3, null)];
    const { asked, deps: d } = deps(records, []);
    const facts = await settleBases({}, here(records), d);
    // The only read is the company's count (one record, since "all").
    expect(asked).toEqual(["creation_date:all"]);
    expect(facts.company).toEqual({ budgets: 4, all_read: true });
    const approval = facts.bases.find((b) => b.type_date === "approval_date");
    expect(approval).toMatchObject({
      settled: true,
      same: false,
      matched: 2,
      only_here: { count: 2, folios: ["102", "103"] },
      only_there: { count: 0, folios: [] },
    });
  });

  it("a budget approved on the window's first or last day: the API's own read decides", async () => {
    for (const edge of ["2026-03-01", "2026-09-30"]) {
      const records = [kept(0, "2026-05-02"), kept(1, edge)];
      const { asked, deps: d } = deps(records, [records[0]!]);
      const facts = await settleBases({}, here(records), d);
      expect(asked).toEqual(["creation_date:all", "approval_date:"]);
      expect(facts.bases.find((b) => b.type_date === "approval_date")).toMatchObject({
        settled: true,
        same: false,
        matched: 1,
        only_here: { count: 1, folios: ["101"] },
      });
    }
  });

  it("not every budget read: the approval window is read as before", async () => {
    const records = [kept(0, "2026-05-02")];
    const { asked, deps: d } = deps(records, [records[0]!]);
    // The API counts more budgets than the review read: not all of the company.
    const facts = await settleBases({}, { ...here(records), apiTotal: 5 }, d);
    expect(facts.company?.all_read).toBe(false);
    expect(asked).toContain("approval_date:");
    expect(facts.bases.find((b) => b.type_date === "approval_date")).toMatchObject({
      same: true,
      matched: 1,
    });
  });
});
