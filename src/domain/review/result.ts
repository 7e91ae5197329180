/**
 * A review's figures from the budgets it read (interface.md §6, §6c): a summary (group_by), cut
 * to fit the host, or a top N of records in the asked order. The same code serves a walk just
 * read and a snapshot read earlier: the result depends on the records, not on where they came from.
 */
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
}

function matchEach(ask: ReviewAsk, records: readonly Kept[], each: (r: Kept) => void): Matched {
  const keep = matcher(ask);
  const seen: Matched = { matched: 0, codes: new Set(), unmapped: new Set() };
  for (const r of records) {
    if (!keep(r.p)) continue;
    seen.matched += 1;
    seen.codes.add(r.p.currency.code);
    if (!r.p.currency.mapped) seen.unmapped.add(r.p.currency.code);
    each(r);
  }
  return seen;
}

export interface SummaryFigures extends Matched {
  parts: SummaryParts;
  dates: { oldest: string; newest: string } | undefined;
}

/** Groups, subtotals and the pending queue of the matching records, bounded to fit one result. */
export function summarize(
  ask: ReviewAsk,
  records: readonly Kept[],
  options: { now: Date; discount: DiscountKind | undefined },
): SummaryFigures {
  const summary = new BudgetSummary(ask.group_by!, options.now, { net: options.discount !== undefined });
  const seen = matchEach(ask, records, (r) => summary.add(r.p));
  const parts = boundSummary(summary.rows(ask.sort, ask.amount), summary.subtotals(), summary.pendingAge());
  return { ...seen, parts, dates: summary.dateRange() };
}

export interface TopFigures extends Matched {
  /** The records shown, from `start`, cut to fit. */
  kept: Shaped[];
  cut: boolean;
}

/** The matching records in the asked order, from `start`, cut at a record boundary to fit. */
export function topRecords(
  ask: ReviewAsk,
  records: readonly Kept[],
  options: { view: View; defaultLimit: number },
): TopFigures {
  const start = ask.start ?? 0;
  const top = new TopN<Ranked>(
    start + (ask.all ? MAX_KEPT : (ask.limit ?? options.defaultLimit)),
    rankOrder(ask.sort, ask.amount),
  );
  const seen = matchEach(ask, records, (r) => top.add(r));
  const window = top.result().slice(start);
  const shaped = shapeAll(
    options.view,
    window.map((r) => r.p),
  );
  return { ...seen, ...fitRecords(shaped, options.view) };
}
