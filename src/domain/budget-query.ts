/**
 * What `query_budgets` does between its schema and the API (interface.md §6, §6b): one page of
 * records, or a review that streams every page of the window (bounded by max_records, with
 * progress) through filters into a summary or a top N, holding neither every page nor every
 * match. Every result states its window, today's date and whether it is complete; records are cut
 * at a record boundary to fit the host, with where to go on.
 */
import type { Budget, Page } from "../client/types.js";
import { alsoKeep, basisFilter, basisNotes, monthOf } from "./basis.js";
import {
  CONTEXT,
  fitRecords,
  type QueryBudgetsResult,
  type ResultContext,
  recordCost,
  shapeAll,
  type View,
} from "./budget-result.js";
import {
  type GroupKey,
  matcher,
  type Ranked,
  type ReviewFilters,
  rankOrder,
  type Sort,
  TopN,
} from "./budget-review.js";
import { BudgetSummary } from "./budget-summary.js";
import { type DiscountKind, price } from "./budget-view.js";
import { fitEstimate } from "./fit.js";
import { currencyOf } from "./money.js";
import { OldestPendingTracker } from "./oldest-pending.js";
import { collectPages, DEFAULT_MAX_RECORDS, walkPages } from "./paging.js";
import type { ResolvedPeriod } from "./period.js";
import { quote } from "./upstream-text.js";

export { budgetsText, type QueryBudgetsResult, type Shaped, type View } from "./budget-result.js";

export interface BudgetsInput extends ReviewFilters {
  id?: string | undefined;
  /** As the caller wrote it ("rejected", 3...); the API's code is sent separately. */
  status?: string | number | undefined;
  wo_folio?: string | undefined;
  sort?: Sort | undefined;
  group_by?: GroupKey[] | undefined;
  start?: number | undefined;
  limit?: number | undefined;
  all?: boolean | undefined;
  max_records?: number | undefined;
}

export interface QueryDeps {
  view: View;
  defaultLimit: number;
  window: ResolvedPeriod;
  /** How the API's discount reads (MMS_BUDGET_DISCOUNT), when the operator said. */
  discount: DiscountKind | undefined;
  /** Report progress while pages are walked (a no-op when nobody listens). */
  progress(update: { progress: number; total?: number | undefined; message: string }): Promise<void>;
  /** Today, for the age of pending budgets. */
  now(): Date;
  fetchPage: (start: number, limit: number) => Promise<Page<Budget>>;
}

/** The most records a review keeps for one page of results: one result carries far fewer (80,000 characters). */
const MAX_KEPT = 1_000;

const sizeNote = (kept: number, next: number) =>
  `Cut after ${kept} records to stay within a host's 80,000-character result limit: continue with start=${next}.`;

/** The text's context, kept off the serialized result (a non-enumerable symbol key). */
function withContext<T extends object>(out: T, context: ResultContext): T {
  Object.defineProperty(out, CONTEXT, { value: context });
  return out;
}

function contextOf(input: BudgetsInput, deps: QueryDeps, extra: Partial<ResultContext> = {}): ResultContext {
  return {
    window: deps.window.text,
    lookup: lookupOf(input),
    status:
      typeof input.status === "string"
        ? input.status === "cancelled"
          ? "rejected"
          : input.status
        : statusName(input.status),
    filtered: [input.currency, input.cost_center, input.third_party, input.min_total, input.max_total].some(
      (v) => v !== undefined,
    ),
    discount: deps.discount,
    amount: input.amount ?? "items",
    sort: input.sort,
    maxRecords: input.max_records ?? DEFAULT_MAX_RECORDS,
    ...extra,
  };
}

const statusName = (s: number | undefined) =>
  s === undefined ? undefined : ({ 1: "pending", 2: "approved", 3: "rejected" } as const)[s as 1 | 2 | 3];

export const lookupOf = (input: BudgetsInput) =>
  input.id !== undefined
    ? `folio ${input.id}`
    : input.wo_folio !== undefined
      ? `work order ${input.wo_folio}`
      : undefined;

/** One page (or all pages) of records as the API orders them. */
export async function listBudgets(input: BudgetsInput, deps: QueryDeps): Promise<QueryBudgetsResult> {
  const start = input.start ?? 0;
  const maxRecords = input.max_records ?? (deps.view === "full" ? 100 : DEFAULT_MAX_RECORDS);
  const result = await collectPages(deps.fetchPage, {
    start,
    limit: input.limit ?? deps.defaultLimit,
    all: input.all ?? false,
    maxRecords,
    probeWhenFull: true,
    // all=true: read no further than one result can carry (the rest is reachable from next_start).
    fitsAfterFirstPage: (page) =>
      fitEstimate(
        shapeAll(
          deps.view,
          page.map((b) => price(b, deps.discount)),
        ),
        recordCost(deps.view),
      ),
    onProgress: (n, of) =>
      deps.progress({ progress: n, total: of, message: `Fetched ${n} of ${of} budgets` }),
  });
  const priced = result.items.map((b) => price(b, deps.discount));
  const all = shapeAll(deps.view, priced);
  const { kept, cut } = fitRecords(all, deps.view);
  // The walk itself stopped short of max_records because one result could carry no more.
  const stoppedToFit = input.all === true && result.nextStart !== null && result.items.length < maxRecords;
  const notes = [
    ...unmappedNotes(priced.slice(0, kept.length).map((p) => p.currency)),
    ...(cut || stoppedToFit ? [sizeNote(kept.length, start + kept.length)] : []),
  ];
  if (result.items.length === 0 && result.total > 0 && start > 0) {
    notes.push(
      `Nothing from start=${start}: ${result.total} budget(s) match; use a start below ${result.total}.`,
    );
  } else if (result.items.length === 0) notes.push(emptyHint(input, deps.window));
  const nextStart = cut ? start + kept.length : result.nextStart;
  const omitted = result.omitted + (cut && input.all ? all.length - kept.length : 0);
  const out: QueryBudgetsResult = {
    total: result.total,
    returned: kept.length,
    start,
    next_start: nextStart,
    omitted,
    complete: start === 0 && nextStart === null && omitted === 0,
    period: deps.window.period,
    today: deps.window.today,
    view: deps.view,
    budgets: kept,
    ...(notes.length > 0 ? { notes } : {}),
  };
  return withContext(
    out,
    contextOf(input, deps, { maxRecords, stoppedByCap: result.omitted > 0 && !cut && !stoppedToFit }),
  );
}

/** Stream every page of the window through the filters into a summary (group_by) or a top N of records. */
export async function reviewBudgets(input: BudgetsInput, deps: QueryDeps): Promise<QueryBudgetsResult> {
  const maxRecords = input.max_records ?? DEFAULT_MAX_RECORDS;
  const basis = basisFilter(deps.window);
  const keep = alsoKeep(matcher(input), basis);
  const grouped = (input.group_by?.length ?? 0) > 0;
  const now = deps.now();
  const month = monthOf(deps.window.period.type_date);
  const summary = grouped
    ? new BudgetSummary(input.group_by!, now, { net: deps.discount !== undefined, month })
    : undefined;
  const oldest = new OldestPendingTracker();
  const start = input.start ?? 0;
  const top = new TopN<Ranked>(
    start + (input.all ? MAX_KEPT : (input.limit ?? deps.defaultLimit)),
    rankOrder(input.sort, input.amount),
  );
  let matched = 0;
  const unmapped = new Set<string>();
  const codes = new Set<string>();
  const walked = await walkPages(deps.fetchPage, {
    start: 0,
    maxRecords,
    onPage: (items, at) => {
      for (let i = 0; i < items.length; i++) {
        const p = price(items[i]!, deps.discount);
        if (!keep(p)) continue;
        matched += 1;
        oldest.add(p, at + i);
        codes.add(p.currency.code);
        if (!p.currency.mapped) unmapped.add(p.currency.code);
        if (summary) summary.add(p);
        else top.add({ p, seq: at + i });
      }
    },
    onProgress: (n, of) =>
      deps.progress({ progress: n, total: of, message: `Scanned ${n} of ${of} budgets` }),
  });
  const capped = walked.nextStart !== null || walked.repeatedPageAt !== null;
  const oldestPending = oldest.result(now, summary && ((p) => summary.groupOf(p)));
  const review = {
    scanned: walked.read,
    matched,
    capped,
    ...(oldestPending ? { oldest_pending: oldestPending } : {}),
  };
  const notes = reviewNotes(input, deps.window, {
    unmapped,
    matched,
    scanned: walked.read,
    repeatedAt: walked.repeatedPageAt,
  });
  notes.push(...basisNotes(input.group_by, deps.window, basis));
  const context = contextOf(input, deps, {
    maxRecords,
    apiTotal: walked.total,
    totalKnown: walked.nextStart === null || walked.omitted > 0,
  });

  if (summary) {
    const dates = summary.dateRange();
    const subtotals = summary.subtotals();
    const pendingAge = summary.pendingAge();
    const groups = summary.rows(input.sort, input.amount);
    return withContext(
      {
        total: groups.length,
        returned: groups.length,
        start: 0,
        next_start: null,
        omitted: 0,
        complete: !capped,
        period: deps.window.period,
        today: deps.window.today,
        view: "summary",
        budgets: [],
        groups,
        ...(subtotals ? { subtotals } : {}),
        ...(pendingAge ? { pending_age: pendingAge } : {}),
        review: dates ? { ...review, matched_created: dates } : review,
        ...(notes.length > 0 ? { notes } : {}),
      },
      context,
    );
  }
  const window = top.result().slice(start);
  if (input.sort?.startsWith("total") && codes.size > 1)
    notes.push(
      "Amounts in different currencies are not comparable: sorted by currency, then amount. Add currency for one ranking.",
    );
  const shaped = shapeAll(
    deps.view,
    window.map((r) => r.p),
  );
  const { kept, cut } = fitRecords(shaped, deps.view);
  if (cut) notes.push(sizeNote(kept.length, start + kept.length));
  const end = start + kept.length;
  const nextStart = end < matched ? end : null;
  return withContext(
    {
      total: matched,
      returned: kept.length,
      start,
      next_start: nextStart,
      omitted: 0,
      complete: !capped && start === 0 && nextStart === null,
      period: deps.window.period,
      today: deps.window.today,
      view: deps.view,
      budgets: kept,
      review,
      ...(notes.length > 0 ? { notes } : {}),
    },
    context,
  );
}

/** What a review result must say beside its figures: unknown currencies asked for, a repeated page, a mixed-currency sort, no match. */
function reviewNotes(
  input: BudgetsInput,
  window: ResolvedPeriod,
  seen: {
    unmapped: Set<string>;
    matched: number;
    scanned: number;
    repeatedAt: number | null;
  },
): string[] {
  const notes = unmappedNotes([...seen.unmapped].map((code) => ({ code, mapped: false })));
  for (const wanted of input.currency ?? []) {
    if (!currencyOf(wanted).mapped) {
      notes.push(
        `currency ${quote(wanted)} is no ISO 4217 code or currency name known to Intl: matched by name as written only.`,
      );
    }
  }
  if (seen.repeatedAt !== null)
    notes.push(
      `The API repeated a page at start=${seen.repeatedAt} (a paging fault upstream): the review stopped there, so it covers only the first ${seen.scanned} budgets.`,
    );
  if (seen.matched === 0)
    notes.push(
      seen.scanned === 0
        ? emptyHint(input, window)
        : `None of the ${seen.scanned} budgets scanned matches the filters.`,
    );
  return notes;
}

function unmappedNotes(currencies: readonly { code: string; mapped: boolean }[]): string[] {
  const names = new Set(currencies.filter((c) => !c.mapped).map((c) => c.code));
  return [...names].map(
    (n) =>
      `Currency ${quote(n)} has no ISO 4217 code: shown under that name, never added to another currency.`,
  );
}

/** Filters that can hide the budget a lookup by folio or work order asks for. */
const LOOKUP_FILTERS = [
  "status",
  "currency",
  "cost_center",
  "third_party",
  "min_total",
  "max_total",
] as const;

function emptyHint(input: BudgetsInput, window: ResolvedPeriod): string {
  const lookup = lookupOf(input);
  const dated = !window.period.default && (window.period.since !== null || window.period.until !== null);
  if (lookup) {
    // A filter beside the lookup may be what hid the budget: name it before blaming the number.
    const filters = LOOKUP_FILTERS.filter((k) => input[k] !== undefined);
    if (filters.length > 0) {
      return `No budget for ${lookup} matches ${filters.map((k) => `${k}=${JSON.stringify(input[k])}`).join(", ")}${dated ? " in this window" : ", at any date"}: drop ${filters.length === 1 ? "that filter" : "those filters"} to see every budget it has.`;
    }
    return dated
      ? `No budget for ${lookup} in this window; drop since/until to search every date.`
      : `No budget for ${lookup}, at any date: check the number.`;
  }
  return window.period.default
    ? 'The window is the default (the last 30 days of work-order creation): widen it with since (e.g. "P90D" or "all"), or change type_date or status.'
    : 'Widen the window (since "all" is every date), or change type_date or status.';
}
