/**
 * Server-side budget review (interface.md §6): the filters the API lacks (currency, cost
 * center, third party, total bounds), sorting, and summaries grouped by status, currency, cost
 * center, third party, month or work-order status. Currency is always part of a summary row,
 * so no amount ever adds two currencies.
 */

import { day, type PricedBudget } from "./budget-view.js";
import { labelOf, WORK_ORDER_STATUS } from "./labels.js";
import { currencyMatches, exact, normalizeName, sum, toNumber } from "./money.js";

export const SORTS = ["total_desc", "total_asc", "date_desc", "date_asc"] as const;
export type Sort = (typeof SORTS)[number];
export const GROUPS = [
  "status",
  "currency",
  "cost_center",
  "third_party",
  "month",
  "work_order_status",
] as const;
export type GroupKey = (typeof GROUPS)[number];

export interface ReviewFilters {
  currency?: string[] | undefined;
  cost_center?: string | undefined;
  third_party?: string | undefined;
  min_total?: number | undefined;
  max_total?: number | undefined;
}

/** Whether any filter, sort or grouping asks for the server-side review. */
export const wantsReview = (
  f: ReviewFilters & { sort?: Sort | undefined; group_by?: GroupKey[] | undefined },
) =>
  f.currency !== undefined ||
  f.cost_center !== undefined ||
  f.third_party !== undefined ||
  f.min_total !== undefined ||
  f.max_total !== undefined ||
  f.sort !== undefined ||
  (f.group_by?.length ?? 0) > 0;

/** A predicate over priced budgets for the given filters (all must hold). */
export function matcher(f: ReviewFilters): (p: PricedBudget) => boolean {
  const min = f.min_total === undefined ? undefined : exact(f.min_total);
  const max = f.max_total === undefined ? undefined : exact(f.max_total);
  const cc = f.cost_center === undefined ? undefined : normalizeName(f.cost_center);
  const tp = f.third_party?.trim().toLowerCase();
  return ({ budget: b, currency, total }) =>
    (f.currency === undefined || f.currency.some((c) => currencyMatches(c, currency))) &&
    (cc === undefined ||
      String(b.id_cost_center) === f.cost_center!.trim() ||
      normalizeName(b.costs_center_description ?? "") === cc) &&
    (tp === undefined ||
      (b.third_parties_code ?? "").toLowerCase() === tp ||
      (b.third_parties_name ?? "").toLowerCase().includes(tp)) &&
    (min === undefined || total >= min) &&
    (max === undefined || total <= max);
}

const cmp = (a: bigint | string, b: bigint | string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Sorted copy; ties keep the API's order. Amounts of different currencies are not comparable:
 * a total sort orders by currency code first, then by amount within each currency.
 */
export function sortBudgets(list: PricedBudget[], sort: Sort): PricedBudget[] {
  const cur = (a: PricedBudget, b: PricedBudget) => cmp(a.currency.code, b.currency.code);
  const by: Record<Sort, (a: PricedBudget, b: PricedBudget) => number> = {
    total_desc: (a, b) => cur(a, b) || cmp(b.total, a.total),
    total_asc: (a, b) => cur(a, b) || cmp(a.total, b.total),
    date_desc: (a, b) => cmp(b.budget.date_create, a.budget.date_create),
    date_asc: (a, b) => cmp(a.budget.date_create, b.budget.date_create),
  };
  return [...list].sort(by[sort]);
}

// A type alias, not an interface, so it fits the loose output schema (index signature).
export type SummaryRow = {
  status?: string | null;
  cost_center?: string | null;
  third_party?: string | null;
  month?: string;
  work_order_status?: string | null;
  currency: string;
  currency_unmapped?: true;
  count: number;
  items_total: number;
  oldest: string;
  newest: string;
  /** Days since the oldest pending budget of the row was created; absent when none is pending. */
  oldest_pending_days?: number;
};

const STATUS_NAMES: Readonly<Record<number, string>> = { 1: "pending", 2: "approved", 3: "rejected" };

const keyOf: Record<Exclude<GroupKey, "currency">, (p: PricedBudget) => string | null> = {
  // The names the status filter takes, so a row's status can be fed back as a filter.
  status: (p) => STATUS_NAMES[p.budget.status] ?? `unknown (${p.budget.status})`,
  cost_center: (p) => p.budget.costs_center_description,
  third_party: (p) => p.budget.third_parties_name,
  month: (p) => p.budget.date_create.slice(0, 7),
  work_order_status: (p) => labelOf(WORK_ORDER_STATUS, p.budget.id_status_work_order),
};

/** One row per group (currency always included), money-heavy rows first within a currency. */
export function summarize(list: PricedBudget[], groupBy: GroupKey[], now: Date): SummaryRow[] {
  const keys = [...new Set(groupBy)].filter((k): k is Exclude<GroupKey, "currency"> => k !== "currency");
  const groups = new Map<string, PricedBudget[]>();
  for (const p of list) {
    const id = JSON.stringify([p.currency.code, ...keys.map((k) => keyOf[k](p))]);
    const g = groups.get(id);
    if (g) g.push(p);
    else groups.set(id, [p]);
  }
  const rows = [...groups.values()].map((members) => {
    const first = members[0]!;
    const dates = members.map((m) => m.budget.date_create).sort();
    const pending = members.filter((m) => m.budget.status === 1).map((m) => Date.parse(m.budget.date_create));
    const total = sum(members.map((m) => m.total));
    const row: Record<string, unknown> = Object.fromEntries(keys.map((k) => [k, keyOf[k](first)]));
    return {
      ...row,
      currency: first.currency.code,
      ...(first.currency.mapped ? {} : { currency_unmapped: true as const }),
      count: members.length,
      items_total: toNumber(total, first.currency),
      oldest: day(dates[0]!)!,
      newest: day(dates.at(-1)!)!,
      ...(pending.length === 0
        ? {}
        : { oldest_pending_days: Math.floor((now.getTime() - Math.min(...pending)) / 86_400_000) }),
      _total: total,
    } as SummaryRow & { _total: bigint };
  });
  rows.sort((a, b) => cmp(a.currency, b.currency) || cmp(b._total, a._total));
  return rows.map(({ _total, ...r }) => r);
}
