/** A budget's date on the window's basis (src/domain/basis.ts) and the oldest pending budget (oldest-pending.ts). */
import { describe, expect, it } from "vitest";
import type { Budget } from "../../src/client/types.js";
import { alsoKeep, basisFilter, basisNotes, instantOf, monthOf } from "../../src/domain/basis.js";
import { BudgetSummary } from "../../src/domain/budget-summary.js";
import { price } from "../../src/domain/budget-view.js";
import { OldestPendingTracker, oldestPendingLine } from "../../src/domain/oldest-pending.js";
import { resolvePeriod } from "../../src/domain/period.js";

const NOW = new Date("2026-11-26T08:30:12Z");

function budget(fields: Partial<Record<keyof Budget, unknown>>): ReturnType<typeof price> {
  return price({
    folio: "1",
    wo_folio: "4001",
    status: 1,
    currency_description: "US Dollar",
    costs_center_description: "Maintenance",
    date_create: "2026-11-20T10:00:00.000000+00:00",
    approval_date: null,
    final_date: null,
    list_items: [],
    ...fields,
  } as unknown as Budget);
}

describe("instantOf", () => {
  it.each([
    ["2026-11-20T10:31:22.123000+00:00", Date.UTC(2026, 10, 20, 10, 31, 22, 123)],
    ["2026-11-20T10:31:22-03:00", Date.UTC(2026, 10, 20, 13, 31, 22)],
    ["2026-11-20 10:31:22", Date.UTC(2026, 10, 20, 10, 31, 22)],
    ["2026-11-20T10:31:22", Date.UTC(2026, 10, 20, 10, 31, 22)],
    ["2026-11-20", Date.UTC(2026, 10, 20)],
    ["2026-11-20T10:31:22Z", Date.UTC(2026, 10, 20, 10, 31, 22)],
    [" 2026-11-20 10:31:22 ", Date.UTC(2026, 10, 20, 10, 31, 22)],
    ["2026-13-20 10:31:22", undefined],
    ["2026-11-20T10:31:22.5+00:00", Date.UTC(2026, 10, 20, 10, 31, 22, 500)],
    ["soon", undefined],
  ])("%s", (text, ms) => {
    expect(instantOf(text)).toBe(ms);
  });
});

describe("basisFilter", () => {
  it("is undefined for the API's own dates: the API filtered already", () => {
    expect(basisFilter(resolvePeriod({ since: "P14D" }, NOW))).toBeUndefined();
  });

  it("budget_created keeps date_create in [since, until], until to the end of its second", () => {
    const window = resolvePeriod(
      { since: "2026-11-01", until: "2026-11-20", type_date: "budget_created" },
      NOW,
    );
    const f = basisFilter(window)!;
    expect(f.keep(budget({ date_create: "2026-11-01T00:00:00+00:00" }))).toBe(true);
    expect(f.keep(budget({ date_create: "2026-10-31T23:59:59.999+00:00" }))).toBe(false);
    expect(f.keep(budget({ date_create: "2026-11-20T23:59:59.999999+00:00" }))).toBe(true);
    expect(f.keep(budget({ date_create: "2026-11-21T00:00:00+00:00" }))).toBe(false);
    // Another offset: 2026-11-20T22:00-03:00 is 2026-11-21T01:00Z, after the window.
    expect(f.keep(budget({ date_create: "2026-11-20T22:00:00-03:00" }))).toBe(false);
    expect(f.keep(budget({ date_create: "n/a" }))).toBe(false);
    expect(f.unreadable).toBe(1);
    expect(basisNotes(undefined, window, f)).toEqual([
      {
        code: "dates_unreadable",
        params: { count: 1 },
        text: "1 budget(s) left out: their date_create is not a date, so the window cannot place them.",
      },
    ]);
    const both = alsoKeep((p) => p.budget.status === 2, f);
    expect(both(budget({ date_create: "2026-11-05T00:00:00Z" }))).toBe(false);
    expect(both(budget({ date_create: "2026-11-05T00:00:00Z", status: 2 }))).toBe(true);
  });
});

describe("monthOf and its note", () => {
  const p = budget({
    date_create: "2026-10-31T23:00:00+00:00",
    approval_date: "2026-11-02",
    final_date: null,
  });

  it("follows the date asked for", () => {
    expect(monthOf("approval_date")(p)).toBe("2026-11");
    expect(monthOf("creation_date")(p)).toBe("2026-10");
    expect(monthOf("budget_created")(p)).toBe("2026-10");
    expect(monthOf("final_date")(p)).toBeNull();
    expect(monthOf("final_date")(budget({ final_date: "2026-12-01 08:00:00" }))).toBe("2026-12");
  });

  it("a summary by month on approval_date groups by the approval month", () => {
    const s = new BudgetSummary(["month"], NOW, { net: false, month: monthOf("approval_date") });
    s.add(p);
    s.add(budget({ approval_date: null }));
    expect(s.rows(undefined, undefined).map((r) => r.month)).toEqual(["2026-11", null]);
  });

  it("says whose month it is, only when grouping by month", () => {
    const w = resolvePeriod({ since: "P90D" }, NOW);
    expect(basisNotes(["month"], w, undefined)).toEqual([
      {
        code: "month_basis",
        params: { type_date: "creation_date", month_of: "budget_created" },
        text: "month: the month the budget was created (its date_create), not the work order's (the window's date).",
      },
    ]);
    expect(basisNotes(["currency"], w, undefined)).toEqual([]);
  });
});

describe("OldestPendingTracker", () => {
  it("keeps the earliest pending budget, the API's order breaking ties; ignores the others", () => {
    const t = new OldestPendingTracker();
    expect(t.result(NOW)).toBeUndefined();
    t.add(budget({ folio: "9", status: 2, date_create: "2026-01-01T00:00:00Z" }), 0);
    t.add(budget({ folio: "5", date_create: "2026-11-01T00:00:00Z" }), 3);
    t.add(budget({ folio: "4", date_create: "2026-11-01T00:00:00Z" }), 1);
    t.add(budget({ folio: "6", date_create: "2026-11-10T00:00:00Z" }), 2);
    const summary = new BudgetSummary(["cost_center"], NOW, { net: false });
    const o = t.result(NOW, (p) => summary.groupOf(p))!;
    expect(o).toEqual({
      folio: "4",
      wo_folio: "4001",
      date_create: "2026-11-01",
      created_at: "2026-11-01T00:00:00Z",
      age_days: 25,
      group: { cost_center: "Maintenance", currency: "USD" },
      same_day: [{ folio: "5", wo_folio: "4001", created_at: "2026-11-01T00:00:00Z" }],
      same_day_count: 1,
    });
    expect(oldestPendingLine(o, "overall")).toBe(
      "Oldest pending budget overall: folio 4 (work order 4001), created 2026-11-01T00:00:00Z, 25 days ago; its group: cost_center Maintenance, currency USD; created the same day, later: folio 5 (work order 4001) at 00:00:00Z (the same second; the API lists it after).",
    );
  });
});
