/**
 * The view's reading of query_budgets results and the arguments its controls send (src/ui/contract.ts,
 * pure: no DOM), table-driven; exact sums (src/ui/decimal.ts). The browser tests (test/ui/) show the
 * same against real results; these pin the edge cases one result rarely has at once.
 */
import { describe, expect, it } from "vitest";
import {
  argumentsFor,
  choicesOf,
  filtersOf,
  freshArguments,
  type Review,
  readResult,
  resumeArguments,
} from "../../src/ui/contract.js";
import { decimal, plus } from "../../src/ui/decimal.js";

const sum = (...xs: number[]) => xs.map(decimal).reduce(plus, decimal(0)).value();
const review = (sc: unknown) => readResult(sc) as Review;

describe("exact sums", () => {
  it.each([
    [[0.1, 0.2], 0.3],
    [[12446.75, 16118.3, 64889, 0.05], 93454.1],
    [[1.005, -0.005], 1],
    [[377869, 2], 377871],
  ])("%j adds up to %d", (xs, total) => {
    expect(sum(...xs)).toBe(total);
  });
});

describe("reading a result", () => {
  it("says when a result is no query_budgets result", () => {
    expect(readResult(undefined)).toEqual({ problem: "no-budget-data" });
    expect(readResult({ tools: [] })).toEqual({ problem: "no-budget-data" });
  });

  it("takes the first group key from the rows' key order (the call's order), currency aside", () => {
    const rows = [{ month: "2026-11", cost_center: "Projects", currency: "USD", count: 1, items_total: 1 }];
    expect(review({ budgets: [], groups: rows }).groupKey).toBe("month");
  });

  it("leaves out the pending queue when the review is of pending budgets by age (the chart already is it)", () => {
    const pendingAge = [{ currency: "USD", buckets: [{ age: "0-7", count: 2, items_total: 3 }] }];
    const groups = [{ age: "0-7", currency: "USD", count: 2, items_total: 3 }];
    expect(review({ budgets: [], groups, pending_age: pendingAge, review: { matched: 2 } }).age).toEqual([]);
    expect(review({ budgets: [], groups, pending_age: pendingAge, review: { matched: 5 } }).age).toHaveLength(
      1,
    );
  });

  it("draws one chart per currency by the first key that is not currency, adding rows of a second key exactly", () => {
    const r = review({
      budgets: [],
      groups: [
        {
          cost_center: "Projects",
          month: "2026-10",
          currency: "USD",
          count: 2,
          items_total: 0.1,
          oldest_pending_days: 40,
        },
        {
          cost_center: "Projects",
          month: "2026-11",
          currency: "USD",
          count: 1,
          items_total: 0.2,
          oldest_pending_days: 3,
        },
        { cost_center: null, month: "2026-11", currency: "USD", count: 1, items_total: 5 },
        {
          cost_center: "Projects",
          month: "2026-11",
          currency: "Crédito interno",
          currency_unmapped: true,
          count: 1,
          items_total: 7,
        },
      ],
      review: { scanned: 9, matched: 5, period: "last 30 days (default) by creation_date", capped: false },
    });
    expect(r).toMatchObject({
      kind: "review",
      complete: true,
      groupKey: "cost_center",
      scanned: 9,
      matched: 5,
    });
    expect(r.period).toEqual({ text: "last 30 days (default) by creation_date" });
    expect(r.totals).toEqual([
      { currency: "Crédito interno", mapped: false, count: 1, total: 7 },
      { currency: "USD", mapped: true, count: 4, total: 5.3, oldestPendingDays: 40 },
    ]);
    expect(r.charts.find((c) => c.currency === "USD")?.bars).toEqual([
      { label: "Projects", count: 3, total: 0.3 },
      { label: null, count: 1, total: 5 },
    ]);
  });

  it("reads the window, today and completeness the result states (issue 21's fields) before deriving them", () => {
    const r = review({
      budgets: [],
      groups: [{ currency: "EUR", count: 1, items_total: 1 }],
      review: { scanned: 10_000, matched: 10_000, capped: true },
      complete: false,
      period: { since: "2026-10-27T00:00:00Z", until: null, type_date: "approval_date", default: false },
      today: "2026-11-26",
    });
    expect(r).toMatchObject({ complete: false, today: "2026-11-26", charts: [] });
    expect(r.groupKey).toBeUndefined();
    expect(r.partial).toBe("capped");
    expect(r.period).toEqual({ since: "2026-10-27T00:00:00Z", typeDate: "approval_date", isDefault: false });
    expect(review({ budgets: [], groups: [], review: { capped: true } }).complete).toBe(false);
  });

  it("reads the pending queue by age in bucket order, a missing bucket as zero", () => {
    const r = review({
      budgets: [],
      groups: [],
      pending_age: [
        {
          currency: "USD",
          buckets: [
            { age: "over 90", count: 1, items_total: 9 },
            { age: "0-7", count: 2, items_total: 3.5 },
          ],
        },
      ],
    });
    expect(r.age).toEqual([
      {
        currency: "USD",
        mapped: true,
        buckets: [
          { age: "0-7", count: 2, total: 3.5 },
          { age: "8-30", count: 0, total: 0 },
          { age: "31-60", count: 0, total: 0 },
          { age: "61-90", count: 0, total: 0 },
          { age: "over 90", count: 1, total: 9 },
        ],
      },
    ]);
  });

  it("reads a list's records per currency, largest first, in the compact and full views alike", () => {
    const r = review({
      total: 40,
      returned: 3,
      start: 0,
      next_start: 3,
      omitted: 0,
      budgets: [
        {
          folio: "1",
          wo_folio: "9",
          third_party: "A",
          currency: "USD",
          items_total: 5,
          status_label: "pending",
        },
        { folio: "2", wo_folio: null, third_parties_name: "B", currency: "USD", items_total: 50 },
        { folio: "3", wo_folio: "8", third_party: "C", currency: "CLP", items_total: 7000 },
      ],
    });
    expect(r).toMatchObject({ kind: "list", complete: false, returned: 3, total: 40, nextStart: 3 });
    expect(r.partial).toBe("list");
    expect(r.largest.map((g) => [g.currency, g.rows.map((x) => x.folio), g.total])).toEqual([
      ["CLP", ["3"], 7000],
      ["USD", ["2", "1"], 55],
    ]);
    expect(r.largest[1]!.rows[0]).toMatchObject({ thirdParty: "B", workOrder: null });
  });
});

describe("the controls", () => {
  it.each([
    [{}, { status: "", period: "30", group: "" }],
    [
      { status: 1, group_by: ["currency", "month"] },
      { status: "pending", period: "30", group: "month" },
    ],
    [
      { status: "cancelled", group_by: ["currency"], since: "P90D" },
      { status: "rejected", period: "90", group: "currency" },
    ],
    [
      { since: "P7D", until: "now" },
      { status: "", period: "7", group: "" },
    ],
    [
      { since: "all", group_by: ["age"] },
      { status: "", period: "all", group: "age" },
    ],
    [{ since: "P30D" }, { status: "", period: "30", group: "" }],
    [{ since: "P3M" }, { status: "", period: "current", group: "" }],
    [{ since: "2026-01-01" }, { status: "", period: "current", group: "" }],
    [
      { status: "approved", group_by: ["nonsense"], until: "now" },
      { status: "approved", period: "current", group: "" },
    ],
  ])("start from the call %j", (args, choices) => {
    expect(choicesOf(args)).toEqual(choices);
  });

  const asked = {
    currency: ["USD"],
    cost_center: "Projects",
    sort: "total_desc",
    start: 25,
    limit: 5,
    view: "full",
  };
  it.each([
    [
      { status: "pending", period: "30", group: "cost_center" },
      { status: "pending", group_by: ["cost_center"] },
    ],
    [
      { status: "", period: "90", group: "month" },
      { since: "P90D", group_by: ["month"] },
    ],
    [
      { status: "", period: "all", group: "age" },
      { since: "all", group_by: ["age"] },
    ],
    [
      { status: "approved", period: "7", group: "" },
      { status: "approved", since: "P7D", sort: "total_desc", all: true },
    ],
  ] as const)("keep the call's filters and send %j as %j", (choices, sent) => {
    expect(argumentsFor(asked, choices)).toEqual({
      currency: ["USD"],
      cost_center: "Projects",
      ...sent,
    });
  });

  it("keep the call's own window when the period control says so", () => {
    const args = { since: "2026-01-01", until: "2026-06-30", group_by: ["status"] };
    expect(argumentsFor(args, { status: "", period: "current", group: "status" })).toEqual(args);
  });

  it("never carry a resume token or a fresh read into a control's call", () => {
    const args = { status: "pending", group_by: ["currency"], resume: "t1", fresh: true };
    expect(argumentsFor(args, { status: "pending", period: "30", group: "status" })).toEqual({
      status: "pending",
      group_by: ["status"],
    });
  });
});

describe("a partial review that resumes, and a result from the server's snapshot (interface.md §6c)", () => {
  const partial = {
    budgets: [],
    groups: [{ currency: "USD", count: 1, items_total: 1 }],
    review: { scanned: 400, matched: 12 },
    complete: false,
    resume: "opaque-token",
    as_of: "2026-11-26T10:42:07Z",
  };

  it("reads the token and the snapshot's instant, and says the review can go on", () => {
    expect(review(partial)).toMatchObject({
      complete: false,
      partial: "resumable",
      resume: "opaque-token",
      asOf: "2026-11-26T10:42:07Z",
    });
  });

  it.each([
    ["no token", { resume: undefined }],
    ["an empty token", { resume: "" }],
    ["a token that is no string", { resume: 42 }],
    ["a complete result (nothing to continue)", { complete: true }],
  ])("offers no continuation for %s", (_, change) => {
    const r = review({ ...partial, ...change });
    expect(r.resume).toBeUndefined();
    expect(r.partial).not.toBe("resumable");
  });

  it.each([
    ["absent", undefined],
    ["not a date", "soon"],
    ["a number", 1_764_153_727_000],
  ])("shows no as-of line when as_of is %s", (_, asOf) => {
    expect(review({ ...partial, as_of: asOf }).asOf).toBeUndefined();
  });

  it("calls a partial review that is not capped and has no token a partial for the reasons its notes give", () => {
    expect(review({ ...partial, resume: undefined }).partial).toBe("see-notes");
    expect(review({ ...partial, resume: undefined, review: { capped: true } }).partial).toBe("capped");
  });

  it("continues with the same arguments and the token; reads again with fresh, never both", () => {
    const args = { status: "pending", group_by: ["cost_center"], since: "P365D", resume: "old", fresh: true };
    expect(resumeArguments(args, "new")).toEqual({
      status: "pending",
      group_by: ["cost_center"],
      since: "P365D",
      resume: "new",
    });
    expect(freshArguments(args)).toEqual({
      status: "pending",
      group_by: ["cost_center"],
      since: "P365D",
      fresh: true,
    });
  });
});

describe("the call's filters the head names", () => {
  it("labels each argument it keeps, bounds by their amount field, in a fixed order", () => {
    expect(
      filtersOf({
        wo_folio: 9,
        max_total: 10,
        min_total: 1,
        amount: "net",
        third_party: "Acme",
        currency: ["EUR", "USD"],
        status: "pending",
      }),
    ).toEqual([
      { key: "currency", value: "EUR, USD" },
      { key: "third_party", value: "Acme" },
      { bound: "≥", field: "net_total", value: "1" },
      { bound: "≤", field: "net_total", value: "10" },
      { key: "wo_folio", value: "9" },
    ]);
  });
});

describe("the server's notes (interface.md §8b)", () => {
  const base = { budgets: [], groups: [{ currency: "USD", count: 1, items_total: 1 }] };

  it("reads coded notes with their params, and the plain sentences of older servers", () => {
    const notes = review({
      ...base,
      notes: [
        { code: "review_capped", text: "max_records=50 stopped…", params: { scanned: 50, max_records: 50 } },
        "Currency “Crédito interno” has no ISO 4217 code: …",
        { code: "some_future_code", text: "A note this view has no words for." },
      ],
    }).notes;
    expect(notes).toEqual([
      { code: "review_capped", text: "max_records=50 stopped…", params: { scanned: 50, max_records: 50 } },
      { text: "Currency “Crédito interno” has no ISO 4217 code: …", params: {} },
      { code: "some_future_code", text: "A note this view has no words for.", params: {} },
    ]);
  });

  it("drops what is no note and params that are no string or finite number", () => {
    const notes = review({
      ...base,
      notes: [
        42,
        null,
        { code: "x" },
        { code: "no_match_scanned", text: "None…", params: { scanned: Number.NaN, at: { a: 1 }, ok: "y" } },
      ],
    }).notes;
    expect(notes).toEqual([{ code: "no_match_scanned", text: "None…", params: { ok: "y" } }]);
  });
});
