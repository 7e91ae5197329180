/**
 * A review's figures from the budgets it read (interface.md §6, §6c): a summary (group_by), cut
 * to fit the host, or a top N of records in the asked order. The same code serves a walk just
 * read and a snapshot read earlier: the result depends on the records, not on where they came from.
 */
import { alsoKeep, type BasisFilter, basisFilter, monthOf } from "../basis.js";
import type { Shaped, View } from "../budget-result.js";
import { fitRecords, shapeAll } from "../budget-result.js";
import {
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
import { type OldestPending, OldestPendingTracker } from "../oldest-pending.js";
import type { ResolvedPeriod } from "../period.js";
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
  };
  for (const r of records) {
    if (!keep(r.p)) continue;
    seen.matched += 1;
    seen.codes.add(r.p.currency.code);
    if (!r.p.currency.mapped) seen.unmapped.add(r.p.currency.code);
    seen.oldest.add(r.p, r.seq);
    each(r);
  }
  return seen;
}

export interface SummaryFigures extends Matched {
  parts: SummaryParts;
  dates: { oldest: string; newest: string } | undefined;
  oldestPending: OldestPending | undefined;
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
  const seen = matchEach(ask, records, options.window, (r) => summary.add(r.p));
  const parts = boundSummary(summary.rows(ask.sort, ask.amount), summary.subtotals(), summary.pendingAge());
  const oldestPending = seen.oldest.result(options.now, (p) => summary.groupOf(p));
  return { ...seen, parts, dates: summary.dateRange(), oldestPending };
}

export interface TopFigures extends Matched {
  /** The records shown, from `start`, cut to fit. */
  kept: Shaped[];
  cut: boolean;
  oldestPending: OldestPending | undefined;
}

/** The matching records in the asked order, from `start`, cut at a record boundary to fit. */
export function topRecords(
  ask: ReviewAsk,
  records: readonly Kept[],
  options: { view: View; defaultLimit: number; window?: ResolvedPeriod; now?: Date },
): TopFigures {
  const start = ask.start ?? 0;
  const top = new TopN<Ranked>(
    start + (ask.all ? MAX_KEPT : (ask.limit ?? options.defaultLimit)),
    rankOrder(ask.sort, ask.amount),
  );
  const seen = matchEach(ask, records, options.window, (r) => top.add(r));
  const window = top.result().slice(start);
  const shaped = shapeAll(
    options.view,
    window.map((r) => r.p),
  );
  return {
    ...seen,
    ...fitRecords(shaped, options.view),
    oldestPending: seen.oldest.result(options.now ?? new Date()),
  };
}

/** Every record that matches the review's filters (what its history keeps), in the order read. */
export function matching(ask: ReviewAsk, records: readonly Kept[], window: ResolvedPeriod): Kept[] {
  const out: Kept[] = [];
  matchEach(ask, records, window, (r) => out.push(r));
  return out;
}
