import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../src/sandbox/index.js";
import { QueryBudgetsOutput } from "../../tools/query-budgets.js";
import { connect, textOf } from "../helpers/mcp.js";
import { firstLine } from "../helpers/results.js";
import { useSandbox } from "../helpers/sandbox.js";

// A fixed clock makes the seeded budget dates, and so the snapshots, reproducible.
const NOW = Date.parse("2026-06-15T12:00:00Z");
const fx = useSandbox({ clock: { now: () => NOW } });
let mcp: Awaited<ReturnType<typeof connect>>;
beforeAll(async () => {
  mcp = await connect({ clients: fx.clients(), now: () => new Date(NOW) });
});
afterAll(() => mcp.close());

const call = (
  args: Record<string, unknown>,
  onprogress?: (p: { progress: number; total?: number }) => void,
) =>
  mcp.client.callTool(
    { name: "query_budgets", arguments: args },
    undefined,
    onprogress ? { onprogress } : undefined,
  );
const gets = () =>
  Object.entries(fx.sb.faults.requestCount)
    .filter(([k]) => k.startsWith("GET /api/wo_budget"))
    .reduce((n, [, v]) => n + v, 0);

describe("query_budgets", () => {
  it("returns a compact page of the last 30 days with paging facts", async () => {
    const result = await call({});
    expect(result.isError).toBeFalsy();
    const out = QueryBudgetsOutput.parse(result.structuredContent);
    expect(out).toMatchObject({ view: "compact", start: 0, returned: 25, next_start: 25, omitted: 0 });
    expect(out.total).toBeGreaterThan(25);
    expect(Object.keys(out.budgets[0]!).sort()).toEqual(
      [
        "approval_date",
        "cost_center",
        "currency",
        "date_create",
        "discount",
        "folio",
        "line_count",
        "items_total",
        "status",
        "status_label",
        "third_party",
        "wo_folio",
        "work_order_status",
      ].sort(),
    );
    expect(out).toMatchObject({
      complete: false,
      today: "2026-06-15",
      period: {
        since: "2026-05-16T12:00:00Z",
        until: "2026-06-15T12:00:00Z",
        type_date: "creation_date",
        default: true,
      },
    });
    const lines = textOf(result).split("\n");
    expect(lines[0]).toBe(
      `[sandbox] 25 of ${out.total} budgets of the window, from start=0; the rest: start=25. Window: work orders created 2026-05-16T12:00:00Z to 2026-06-15T12:00:00Z (the default: last 30 days; the work order's date; the budget's own: type_date budget_created); today 2026-06-15.`,
    );
    expect(lines[1]).toMatch(
      /^items_total: the sum of a budget's line totals, before its discount and before taxes\./,
    );
    expect(lines.at(-1)).toBe("More: call again with start=25.");
    expect(lines[2]).toMatch(
      /^\d+ WO \S+ \| (pending approval|approved|rejected\/cancelled) \| .+ \| [A-Z]{3} [\d,.]+ \(\d+ lines?\)/,
    );
    expect(textOf(result)).not.toMatch(/\(1 lines\)|\$/);
  });

  it("pins what an agent reads for one budget: ISO code, exact total, line count", async () => {
    const result = await call({ id: 104 });
    expect(textOf(result)).toMatchInlineSnapshot(`
      "[sandbox] The only budget of folio 104. Window: every date (lookup by folio 104); today 2026-06-15.
      items_total: the sum of a budget's line totals, before its discount and before taxes. discount: as the API gives it; the API does not say whether it is a percentage or an amount.
      104 WO 4004 | pending approval | Maintenance | Industrial Supply Co. (SUP-001, supplier) | USD 0.30 (2 lines) discount 12.5 (net USD 0.26 if %, USD -12.20 if an amount, below zero: not its reading) | created 2026-06-07"
    `);
    expect(QueryBudgetsOutput.parse(result.structuredContent).budgets[0]).toMatchInlineSnapshot(`
      {
        "approval_date": null,
        "cost_center": "Maintenance",
        "currency": "USD",
        "date_create": "2026-06-07",
        "discount": 12.5,
        "folio": "104",
        "items_total": 0.3,
        "line_count": 2,
        "status": 1,
        "status_label": "pending approval",
        "third_party": "Industrial Supply Co.",
        "wo_folio": "4004",
        "work_order_status": "in review",
      }
    `);
  });

  it("pins a summary: one row per currency, codes and exact totals", async () => {
    const result = await call({ since: "2026-03-01", status: "approved", group_by: ["currency"] });
    expect(textOf(result)).toMatchInlineSnapshot(`
      "[sandbox] All 123 approved budgets of the window (123 scanned; the API reports 123), in 5 groups. Window: work orders created 2026-03-01T00:00:00Z to 2026-06-15T12:00:00Z (the work order's date; the budget's own: type_date budget_created); today 2026-06-15.
      items_total: the sum of a budget's line totals, before its discount and before taxes.
      items_total | count
      CLP 6,809,634 | 16
      "Crédito interno" (unmapped currency) 2,405.50 | 7
      EUR 29,143.25 | 49
      MXN 95,370.00 | 9
      USD 26,272.25 | 42
      Matched budgets were created (date_create) 2026-03-23 to 2026-06-15.
      Discounts: 55 of the 123 matching budgets have one; items_total after them, read as percentages: CLP 6,562,840, "Crédito interno" (unmapped currency) 2,389.11, EUR 27,939.58, MXN 89,583.09, USD 25,242.80; as amounts: CLP 6,809,574, "Crédito interno" (unmapped currency) 2,388.00, EUR 28,908.25, MXN 95,347.50, USD 26,114.75.
      All 123 approved budgets of the company were read (the API's count for every date).
      The same 123 budgets match by approval date and by the budget's own date.
      Currency "Crédito interno" has no ISO 4217 code: shown under that name, never added to another currency."
    `);
  });

  it("filters by status, friendly name or raw code alike", async () => {
    const named = QueryBudgetsOutput.parse((await call({ status: "pending", limit: 100 })).structuredContent);
    const coded = QueryBudgetsOutput.parse((await call({ status: 1, limit: 100 })).structuredContent);
    expect(named).toEqual(coded);
    expect(named.budgets.every((b) => b.status === 1 && b.status_label === "pending approval")).toBe(true);
  });

  it("looks one budget up by folio, in the full view with every field", async () => {
    const folio = String(SEED.budgets.firstFolio + 5);
    const out = QueryBudgetsOutput.parse((await call({ id: folio, view: "full" })).structuredContent);
    expect(out.returned).toBe(1);
    const budget = out.budgets[0] as Record<string, unknown>;
    expect(budget.folio).toBe(folio);
    for (const field of [
      "id_work_order",
      "third_parties_email",
      "list_items",
      "approval_date",
      "status_label",
      "work_order_status",
    ]) {
      expect(budget).toHaveProperty(field);
    }
  });

  it("keeps compact dates to the day, and full pages within a host's 80,000-character limit", async () => {
    const compact = QueryBudgetsOutput.parse((await call({ limit: 5 })).structuredContent);
    expect(compact.budgets.every((b) => /^\d{4}-\d{2}-\d{2}$/.test(String(b.date_create)))).toBe(true);

    const full = QueryBudgetsOutput.parse((await call({ view: "full" })).structuredContent);
    expect(full.returned).toBe(10);
    const since = new Date(NOW - 120 * 86_400_000).toISOString();
    const walked = await call({ view: "full", all: true, since });
    const out = QueryBudgetsOutput.parse(walked.structuredContent);
    expect(JSON.stringify(walked.structuredContent).length).toBeLessThanOrEqual(80_000);
    expect(textOf(walked).length).toBeLessThanOrEqual(80_000);
    expect(out.returned).toBeLessThan(100);
    expect(out.next_start).toBe(out.returned);
    expect(out.notes).toContainEqual({
      code: "result_cut_to_fit",
      params: { kept: out.returned, next_start: out.returned },
      text: expect.stringMatching(/Cut after \d+ records .* continue with start=\d+/),
    });
  });

  it("walks every page with progress when all=true", async () => {
    const progress: number[] = [];
    const since = new Date(NOW - 120 * 86_400_000).toISOString();
    const result = await call({ all: true, since }, (p) => progress.push(p.progress));
    const out = QueryBudgetsOutput.parse(result.structuredContent);
    expect(out.total).toBeGreaterThan(200);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.at(-1)).toBe(out.total);
    // Within the host's limit, or cut at a record boundary with the rest one call away.
    expect(JSON.stringify(result.structuredContent).length).toBeLessThanOrEqual(80_000);
    const folios = out.budgets.map((b) => b.folio);
    for (let next = out.next_start; next !== null; ) {
      const rest = QueryBudgetsOutput.parse(
        (await call({ all: true, since, start: next })).structuredContent,
      );
      folios.push(...rest.budgets.map((b) => b.folio));
      next = rest.next_start;
    }
    expect(folios).toHaveLength(out.total);
    expect(new Set(folios).size).toBe(out.total);
  });

  it("says what max_records left out and how to continue", async () => {
    const since = new Date(NOW - 120 * 86_400_000).toISOString();
    const out = QueryBudgetsOutput.parse(
      (await call({ all: true, since, max_records: 150 })).structuredContent,
    );
    expect(out.returned).toBe(150);
    expect(out.omitted).toBe(out.total - 150);
    expect(out.next_start).toBe(150);
  });

  it("tells the agent how to widen a query that matches nothing", async () => {
    const result = await call({ since: "2020-01-01", until: "2020-01-31" });
    expect(result.structuredContent).toMatchObject({ total: 0, returned: 0, budgets: [] });
    expect(textOf(result).split("\n")).toEqual([
      "[sandbox] No budget of the window. Window: work orders created 2020-01-01T00:00:00Z to 2020-01-31T23:59:59Z (the work order's date; the budget's own: type_date budget_created); today 2026-06-15.",
      "The company has no budget up to 2020-01-31T23:59:59Z (the API's count for every date).",
      "No budget matches by approval date and by the budget's own date either.",
      'Widen the window (since "all" is every date), or change type_date or status.',
    ]);
    expect(result.structuredContent).toMatchObject({ complete: true });
    const defaults = await call({ status: 1, type_date: "approval_date" });
    expect(textOf(defaults)).toMatch(
      /The window is the default \(the last 30 days of work-order creation\): widen it with since \(e\.g\. "P90D" or "all"\)/,
    );
    const lookup = await call({ id: "99999" });
    expect(textOf(lookup).split("\n")[1]).toBe("No budget for folio 99999, at any date: check the number.");
    // The work order exists: the status filter hid its budgets, and the hint says so.
    const existing = await call({ id: "109" });
    const wo = (existing.structuredContent as { budgets: { wo_folio: string; status: string }[] })
      .budgets[0]!;
    const other = wo.status === "rejected" ? "approved" : "rejected";
    const filtered = await call({ wo_folio: wo.wo_folio, status: other });
    expect(textOf(filtered).split("\n")[1]).toBe(
      `No budget for work order ${wo.wo_folio} matches status="${other}", at any date: drop that filter to see every budget it has.`,
    );
  });

  it("converts ISO dates to the API form (offsets encoded) and accepts a period", async () => {
    const result = await call({
      since: "2026-05-01T00:00:00+02:00",
      until: "2026-06-01",
      type_date: "creation_date",
    });
    expect(result.isError).toBeFalsy();
  });

  it.each([
    [
      { since: "last week" },
      /since: "last week" is not a date, a duration, a calendar word or "all"\. Today is 2026-06-15 \(now 2026-06-15T12:00:00Z\)\. since takes an ISO 8601 date or date-time .*, a duration back from now \(P90D, P3M, P1Y, PT12H\), a calendar word \(today, yesterday, this_month, last_month, .*\) or "all"/,
    ],
    [
      { since: "2026-06-10", until: "2026-06-01" },
      /since 2026-06-10T00:00:00Z is after until 2026-06-01T23:59:59Z: swap them or widen the period/,
    ],
    [
      { since: "2026-06-16" },
      /since 2026-06-16T00:00:00Z is after until, now 2026-06-15T12:00:00Z: since must not be in the future \(today is 2026-06-15\)/,
    ],
    [
      { until: "2026-05-01" },
      /since, 30 days ago by default, 2026-05-16T12:00:00Z is after until 2026-05-01T23:59:59Z: give a since before until/,
    ],
    [{ since: "P90X" }, /since: "P90X" is not an ISO 8601 duration of whole numbers\. Today is 2026-06-15/],
    [{ since: "P0.5D" }, /since: "P0.5D" is not an ISO 8601 duration of whole numbers/],
    [
      { until: "tomorrow" },
      /until: "tomorrow" is not a date, a calendar word or "now"\. Today is 2026-06-15 .* until takes an ISO 8601 date or date-time .*, a calendar word \(.*\) or "now"/,
    ],
    [{ since: "2026-02-30" }, /since: "2026-02-30" is not a real calendar date\. Today is 2026-06-15/],
    [{ min_total: 1e16 }, /min_total: must be between -10\^15 and 10\^15/],
    [{ max_total: 1e21 }, /max_total: must be between -10\^15 and 10\^15/],
    // Without MMS_BUDGET_DISCOUNT, amount is not offered (interface.md §8b): the error says how to enable it.
    [{ amount: "net", min_total: 10 }, /amount needs MMS_BUDGET_DISCOUNT=percent or amount .*drop amount/],
    [{ max_records: 20_000 }, /max_records 20000 is above 10000 for a list of records: add group_by/],
    [{ max_records: 100_001, group_by: ["currency"] }, /max_records/],
    [{ limit: 500 }, /limit/],
    [{ status: "open" }, /status/],
    [{ view: "tiny" }, /view/],
    [{ id: "105", wo_folio: "4001" }, /send id or wo_folio, not both/],
  ])("rejects %j before calling upstream", async (args, message) => {
    const before = gets();
    const result = await call(args);
    expect(result.isError).toBe(true);
    expect(firstLine(result)).toMatch(message);
    expect(gets()).toBe(before);
  });
});
