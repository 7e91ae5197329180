/**
 * A review's figures from the budgets it read (interface.md §6, §6c): a summary (group_by), cut
 * to fit the host, or a top N of records in the asked order. The same code serves a walk just
 * read and a snapshot read earlier: the result depends on the records, not on where they came from.
 */
import { alsoKeep, type BasisFilter, basisFilter, monthOf } from "../basis.js";
import type { Ranking, Shaped, View } from "../budget-result.js";
import { fitRecords, shapeAll } from "../budget-result.js";
import {
  cmp,
  type GroupKey,
  matcher,
  type Ranked,
  type ReviewFilters,
  rankOrder,
  type Sort,
  TopN,
} from "../budget-review.js";
import { BudgetSummary } from "../budget-summary.js";
import type { DiscountKind } from "../budget-view.js";
import { DiscountReadings } from "../discount-readings.js";
import { type OldestPending, OldestPendingTracker } from "../oldest-pending.js";
import type { ResolvedPeriod } from "../period.js";
import { type Tie, tieOf } from "../ranking-ties.js";
import { ThirdPartyCodes } from "../third-party.js";
import { type RepeatedFigures, WorkOrderBudgets } from "../work-orders.js";
import { boundSummary, type SummaryParts } from "./bounds.js";
import type { Kept } from "./records.js";

/** The most records a review keeps for one page of results: one result carries far fewer (80,000 characters). */
const MAX_KEPT = 1_000;

export interface ReviewAsk extends ReviewFilters {
  sort?: Sort | undefined;
  group_by?: GroupKey[] | undefined;
  start?: number | undefined;
  limit?: number | undefined;
  all?: boolean | undefined;
}

/** What the matching pass found beside the figures. */
export interface Matched {
  matched: number;
  /** Currency codes of the matches, and those with no ISO code. */
  codes: Set<string>;
  unmapped: Set<string>;
  /** The oldest pending budget of the matches (interface.md §6d). */
  oldest: OldestPendingTracker;
  /** The budget_created filter, when the window is on the budget's own date (its count of unreadable dates). */
  basis: BasisFilter | undefined;
  /** The matches' totals after their discount, read both ways (for a server that does not know which). */
  discounts: DiscountReadings;
}

function matchEach(
  ask: ReviewAsk,
  records: readonly Kept[],
  window: ResolvedPeriod | undefined,
  each: (r: Kept) => void,
): Matched {
  const basis = window && basisFilter(window);
  const keep = alsoKeep(matcher(ask), basis);
  const seen: Matched = {
    matched: 0,
    codes: new Set(),
    unmapped: new Set(),
    oldest: new OldestPendingTracker(),
    basis,
    discounts: new DiscountReadings(),
  };
  for (const r of records) {
    if (!keep(r.p)) continue;
    seen.matched += 1;
    seen.codes.add(r.p.currency.code);
    if (!r.p.currency.mapped) seen.unmapped.add(r.p.currency.code);
    seen.oldest.add(r.p, r.seq);
    seen.discounts.add(r.p);
    each(r);
  }
  return seen;
}

export interface SummaryFigures extends Matched {
  parts: SummaryParts;
  dates: { oldest: string; newest: string } | undefined;
  oldestPending: OldestPending | undefined;
  /** group_by work_order: the work orders with more than one budget. */
  repeated: RepeatedFigures | undefined;
}

/** Groups, subtotals and the pending queue of the matching records, bounded to fit one result. */
export function summarize(
  ask: ReviewAsk,
  records: readonly Kept[],
  options: { now: Date; discount: DiscountKind | undefined; window?: ResolvedPeriod },
): SummaryFigures {
  const month = monthOf(options.window?.period.type_date ?? "creation_date");
  const summary = new BudgetSummary(ask.group_by!, options.now, {
    net: options.discount !== undefined,
    month,
  });
  const workOrders = ask.group_by!.includes("work_order") ? new WorkOrderBudgets() : undefined;
  const codes = ask.group_by!.includes("third_party") ? new ThirdPartyCodes() : undefined;
  const seen = matchEach(ask, records, options.window, (r) => {
    summary.add(r.p);
    workOrders?.add(r.p);
    codes?.add(r.p.budget);
  });
  const rows = summary.rows(ask.sort, ask.amount);
  const subtotals = summary.subtotals();
  // Before the bounds: a row's size counts its code and role.
  codes?.decorate(rows);
  codes?.decorate(subtotals ?? []);
  const parts = boundSummary(rows, subtotals, summary.pendingAge());
  const oldestPending = seen.oldest.result(options.now, (p) => summary.groupOf(p));
  return { ...seen, parts, dates: summary.dateRange(), oldestPending, repeated: workOrders?.result() };
}

export interface TopFigures extends Matched {
  /** The records shown, from `start`, cut to fit. */
  kept: Shaped[];
  cut: boolean;
  oldestPending: OldestPending | undefined;
  /** A total sort: the ranking of each currency, in the order shown (most matches first). */
  rankings?: Ranking[];
  /** A total sort: how many of each currency's ranking are shown (from `start`). */
  perCurrency?: number;
  /** A sorted list: where the next budget ties the last one shown (per currency for a total sort). */
  ties?: Tie[];
}

/** One currency's part of a ranking by amount (interface.md §8b "Largest means largest in each currency"). */
export type { Ranking };

const ranksByTotal = (sort: Sort | undefined) => sort === "total_desc" || sort === "total_asc";

/**
 * The matching records in the asked order, from `start`, cut at a record boundary to fit; a total
 * sort ranks within each currency (rankedByCurrency).
 */
export function topRecords(
  ask: ReviewAsk,
  records: readonly Kept[],
  options: { view: View; defaultLimit: number; window?: ResolvedPeriod; now?: Date },
): TopFigures {
  if (ranksByTotal(ask.sort)) return rankedByCurrency(ask, records, options);
  const start = ask.start ?? 0;
  const n = ask.all ? MAX_KEPT : (ask.limit ?? options.defaultLimit);
  // One more than shown: the next budget, to say whether it ties the last one shown.
  const top = new TopN<Ranked>(start + n + 1, rankOrder(ask.sort, ask.amount));
  const seen = matchEach(ask, records, options.window, (r) => top.add(r));
  const window = top.result().slice(start);
  const shaped = shapeAll(
    options.view,
    window.slice(0, n).map((r) => r.p),
  );
  const fit = fitRecords(shaped, options.view);
  const tie = tieOf(ask.sort, ask.amount, window[fit.kept.length - 1], window[fit.kept.length]);
  return {
    ...seen,
    ...fit,
    oldestPending: seen.oldest.result(options.now ?? new Date()),
    ...(tie ? { ties: [tie] } : {}),
  };
}

/** Every record that matches the review's filters (what its history keeps), in the order read. */
export function matching(ask: ReviewAsk, records: readonly Kept[], window: ResolvedPeriod): Kept[] {
  // The matches alone: none of matchEach's figures (oldest, discounts) is wanted here, and the basis
  // check calls this for each basis over every record.
  const keep = alsoKeep(matcher(ask), basisFilter(window));
  return records.filter((r) => keep(r.p));
}

/**
 * A ranking by amount never compares currencies: the top N of each currency (N = limit, from
 * `start` in each), currency by currency, the currency with the most matches first. When they do
 * not all fit, every currency keeps the same number, so `start` goes on in each alike.
 */
function rankedByCurrency(
  ask: ReviewAsk,
  records: readonly Kept[],
  options: { view: View; defaultLimit: number; window?: ResolvedPeriod; now?: Date },
): TopFigures {
  const start = ask.start ?? 0;
  const n = ask.all ? MAX_KEPT : (ask.limit ?? options.defaultLimit);
  const order = rankOrder(ask.sort, ask.amount);
  const tops = new Map<string, { top: TopN<Ranked>; matched: number; r: Ranked }>();
  const seen = matchEach(ask, records, options.window, (r) => {
    const code = r.p.currency.code;
    // One more than shown: the next budget, to say whether it ties the last one shown.
    const entry = tops.get(code) ?? { top: new TopN<Ranked>(start + n + 1, order), matched: 0, r };
    tops.set(code, entry);
    entry.matched += 1;
    entry.top.add(r);
  });
  const parts = [...tops.values()]
    .sort((a, b) => b.matched - a.matched || cmp(a.r.p.currency.code, b.r.p.currency.code))
    .map((e) => {
      const list = e.top.result().slice(start);
      return {
        ...e,
        list,
        shaped: shapeAll(
          options.view,
          list.slice(0, n).map((r) => r.p),
        ),
      };
    });
  const levels = levelsThatFit(
    parts.map((p) => p.shaped),
    options.view,
  );
  const rankings = parts.map(({ r, matched, shaped }) => ({
    currency: r.p.currency.code,
    ...(r.p.currency.mapped ? {} : { currency_unmapped: true as const }),
    matched,
    returned: Math.min(levels, shaped.length),
  }));
  const ties = parts
    .map((p) => {
      const shown = Math.min(levels, p.shaped.length);
      return tieOf(ask.sort, ask.amount, p.list[shown - 1], p.list[shown]);
    })
    .filter((t) => t !== undefined);
  return {
    ...seen,
    ...(ties.length > 0 ? { ties } : {}),
    kept: parts.flatMap((p) => p.shaped.slice(0, levels)),
    cut: parts.some((p) => p.shaped.length > levels),
    oldestPending: seen.oldest.result(options.now ?? new Date()),
    rankings,
    perCurrency: levels,
  };
}

/** How many of each list fit one result together (every list cut at the same rank, at least one). */
function levelsThatFit(lists: readonly Shaped[][], view: View): number {
  const deepest = Math.max(0, ...lists.map((l) => l.length));
  const byLevel: Shaped[] = [];
  const ends: number[] = [];
  for (let level = 0; level < deepest; level++) {
    for (const list of lists) if (level < list.length) byLevel.push(list[level]!);
    ends.push(byLevel.length);
  }
  const fit = fitRecords(byLevel, view).kept.length;
  const full = ends.filter((end) => end <= fit).length;
  return Math.max(full, Math.min(1, deepest));
}
