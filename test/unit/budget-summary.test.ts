import { describe, expect, it } from "vitest";
import type { Budget } from "../../src/client/types.js";
import { type GroupKey, rankOrder, TopN } from "../../src/domain/budget-review.js";
import { BudgetSummary } from "../../src/domain/budget-summary.js";
import { netOf, price } from "../../src/domain/budget-view.js";
import { exact } from "../../src/domain/money.js";

const NOW = new Date("2026-11-26T08:30:00Z");
const DAY = 86_400_000;
const CURRENCIES = ["US Dollar", "Euro", "Peso chileno"];
const CENTERS = ["Maintenance", "Operations", "Projects"];

/** A budget with what the summary reads; `i` spreads currencies, cost centers, statuses and ages. */
function budget(i: number): Budget {
  return {
    folio: String(i),
    status: (i % 3) + 1,
    costs_center_description: CENTERS[i % 3],
    third_parties_name: i % 2 === 0 ? "Andes Mining" : "EuroParts GmbH",
    currency_description: CURRENCIES[Math.floor(i / 3) % 3],
    date_create: new Date(NOW.getTime() - (i % 120) * DAY).toISOString(),
    id_status_work_order: 1,
    discount: 10,
    list_items: [{ total_cost: 0.1 }, { total_cost: i % 7 }],
  } as unknown as Budget;
}

function summarize(n: number, groupBy: GroupKey[]) {
  const s = new BudgetSummary(groupBy, NOW, { net: false });
  for (let i = 0; i < n; i++) s.add(price(budget(i)));
  return s;
}

describe("BudgetSummary", () => {
  it("holds one entry per group, however many budgets stream through", () => {
    const small = summarize(3_000, ["cost_center"]);
    const large = summarize(30_000, ["cost_center"]);
    // 3 cost centers x 3 currencies, 3 subtotals, 3 pending currencies.
    expect(small.entries).toBe(15);
    expect(large.entries).toBe(small.entries);
    expect(large.rows(undefined, "items").reduce((n, r) => n + r.count, 0)).toBe(30_000);
  });

  it("sums exactly, orders rows by the keys in the order given, and subtotals the first key", () => {
    const s = summarize(90, ["cost_center"]);
    const rows = s.rows(undefined, "items");
    expect(rows.map((r) => `${r.cost_center} ${r.currency}`)).toEqual([
      "Maintenance CLP",
      "Maintenance EUR",
      "Maintenance USD",
      "Operations CLP",
      "Operations EUR",
      "Operations USD",
      "Projects CLP",
      "Projects EUR",
      "Projects USD",
    ]);
    let cents = 0;
    for (let i = 0; i < 90; i += 3) if (Math.floor(i / 3) % 3 === 0) cents += 10 + (i % 7) * 100;
    expect(
      Math.round(
        rows.find((r) => r.cost_center === "Maintenance" && r.currency === "USD")!.items_total * 100,
      ),
    ).toBe(cents);
    const subtotals = s.subtotals()!;
    expect(subtotals.map((t) => [t.cost_center, t.count, t.totals.map((m) => m.currency)])).toEqual([
      ["Maintenance", 30, ["CLP", "EUR", "USD"]],
      ["Operations", 30, ["CLP", "EUR", "USD"]],
      ["Projects", 30, ["CLP", "EUR", "USD"]],
    ]);
    expect(summarize(90, ["currency"]).subtotals()).toBeUndefined();
  });

  it("orders status by workflow, months chronologically, and by amount within each currency when sorted", () => {
    const s = summarize(300, ["status", "month"]);
    const rows = s.rows(undefined, "items");
    expect([...new Set(rows.map((r) => r.status))]).toEqual(["pending", "approved", "rejected"]);
    const pendingMonths = rows
      .filter((r) => r.status === "pending" && r.currency === "USD")
      .map((r) => r.month);
    expect(pendingMonths).toEqual([...pendingMonths].sort());
    // Ranked within each currency, currency by currency: the one with the most budgets first.
    const sorted = s.rows("total_desc", "items");
    const counts = new Map<string, number>();
    for (const r of sorted) counts.set(r.currency, (counts.get(r.currency) ?? 0) + r.count);
    const sections = [...new Set(sorted.map((r) => r.currency))];
    expect(sections.length).toBeGreaterThan(1);
    expect(sections.map((c) => counts.get(c)!)).toEqual(
      sections.map((c) => counts.get(c)!).sort((a, b) => b - a),
    );
    for (let i = 1; i < sorted.length; i++) {
      const [a, b] = [sorted[i - 1]!, sorted[i]!];
      if (a.currency === b.currency) expect(a.items_total).toBeGreaterThanOrEqual(b.items_total);
      else expect(sorted.slice(i).some((r) => r.currency === a.currency)).toBe(false);
    }
  });

  it("buckets ages at today and gives the pending queue per currency with all five buckets", () => {
    const s = summarize(120, ["age"]);
    expect([...new Set(s.rows(undefined, "items").map((r) => r.age))]).toEqual([
      "0-7",
      "8-30",
      "31-60",
      "61-90",
      "over 90",
    ]);
    const queue = s.pendingAge()!;
    expect(queue.map((q) => q.currency)).toEqual(["CLP", "EUR", "USD"]);
    for (const q of queue)
      expect(q.buckets.map((b) => b.age)).toEqual(["0-7", "8-30", "31-60", "61-90", "over 90"]);
    const pending = Array.from({ length: 120 }, (_, i) => i).filter((i) => i % 3 === 0);
    expect(queue.reduce((n, q) => n + q.buckets.reduce((m, b) => m + b.count, 0), 0)).toBe(pending.length);
    const usdOver90 = pending.filter((i) => Math.floor(i / 3) % 3 === 0 && i % 120 > 90).length;
    expect(queue.find((q) => q.currency === "USD")!.buckets[4]!.count).toBe(usdOver90);
  });
});

describe("TopN", () => {
  it("keeps at most 2n + 64 items while streaming, and returns the n first in order, ties in API order", () => {
    const top = new TopN(3, rankOrder("total_desc", "items"));
    let held = 0;
    for (let i = 0; i < 10_000; i++) {
      top.add({ p: price(budget(i)), seq: i });
      held = Math.max(held, top.held);
    }
    expect(held).toBeLessThanOrEqual(2 * 3 + 64);
    const best = top.result();
    expect(best.map((r) => r.p.currency.code)).toEqual(["CLP", "CLP", "CLP"]);
    expect(best.map((r) => r.seq)).toEqual([...best.map((r) => r.seq)].sort((a, b) => a - b));
  });
});

describe("netOf", () => {
  it("reads a discount as a percentage or as an amount, exactly", () => {
    expect(netOf(exact(200), 12.5, "percent")).toBe(exact(175));
    expect(netOf(exact(0.3), 10, "percent")).toBe(exact(0.27));
    expect(netOf(exact(200), 12.5, "amount")).toBe(exact(187.5));
    expect(netOf(exact(200), null, "amount")).toBe(exact(200));
  });
});
