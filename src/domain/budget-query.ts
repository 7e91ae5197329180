/**
 * What `query_budgets` does between its schema and the API (interface.md §6, §6b): one page of
 * records, or a review that streams every page of the window (bounded by max_records, with
 * progress) through filters into a summary or a top N, holding neither every page nor every
 * match. Every result states its window, today's date and whether it is complete; records are cut
 * at a record boundary to fit the host, with where to go on.
 */
import type { Budget, Page } from "../client/types.js";
import { basisNotes } from "./basis.js";
import {
  CONTEXT,
  fitRecords,
  type PartialWalk,
  type QueryBudgetsResult,
  type ResultContext,
  recordCost,
  shapeAll,
  type View,
} from "./budget-result.js";
import type { GroupKey, ReviewFilters, Sort } from "./budget-review.js";
import { cutFieldsNote, type DiscountKind, plural, price } from "./budget-view.js";
import { fitEstimate } from "./fit.js";
import { currencyOf } from "./money.js";
import { collectPages, DEFAULT_MAX_RECORDS } from "./paging.js";
import type { ResolvedPeriod } from "./period.js";
import { boundNotes, summaryCut } from "./review/bounds.js";
import type { HistoryOf } from "./review/history.js";
import { budgetLine } from "./review/history-codec.js";
import { type Read, type ReadDeps, readReview } from "./review/read.js";
import type { Kept } from "./review/records.js";
import { type CompareTo, remember, type ThisReview } from "./review/remember.js";
import { matching, summarize, topRecords } from "./review/result.js";
import type { Stop } from "./review/scheduler.js";
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
    ...cutFieldsNote(kept),
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

/** Where a review reads its pages and keeps them (interface.md §6c); the tool builds it. */
export interface ReviewSource extends Omit<ReadDeps, "progress"> {
  /** The snapshot key (window as asked, type_date, filters sent upstream, view) and its words. */
  key: string;
  described: string;
  resume?: string | undefined;
  fresh?: boolean | undefined;
  /** The call's deadline in ms, for the partial result's words; undefined when it runs to completion. */
  deadlineMs?: number | undefined;
  /** The tenant's review history, the filters as asked, and what to compare with (interface.md §6e). */
  history?: { of: HistoryOf; key: string; compareTo: CompareTo | undefined } | undefined;
}

/**
 * Every page of the window (from the tenant's snapshot, the walk, or both) through the filters
 * into a summary (group_by) or a top N of records, saying what it covers and how to go on.
 */
export async function reviewBudgets(
  input: BudgetsInput,
  deps: QueryDeps & { source: ReviewSource },
): Promise<QueryBudgetsResult> {
  const maxRecords = input.max_records ?? DEFAULT_MAX_RECORDS;
  const { source } = deps;
  const read = await readReview(
    {
      key: source.key,
      described: source.described,
      window: deps.window,
      maxRecords,
      keep: deps.view,
      discount: deps.discount,
      resume: source.resume,
      fresh: source.fresh,
    },
    { ...source, progress: deps.progress },
  );
  // The figures are of the window the snapshot read, which a relative window may date earlier.
  const window = read.state.window;
  const records = read.state.records.filter((r) => r.seq < maxRecords);
  const walk = walkFacts(read, maxRecords, deps.now(), source.deadlineMs);
  const summed = { ...deps, window };
  const out =
    (input.group_by?.length ?? 0) > 0
      ? summaryResult(input, summed, records, walk)
      : recordsResult(input, summed, records, walk);
  if (read.resume !== undefined) out.resume = read.resume;
  // After the result is built: history never delays the figures, and its failures are notes.
  if (source.history !== undefined)
    await rememberReview(
      out,
      source.history,
      {
        key: source.history.key,
        at: read.state.startedAt,
        complete: walk.complete,
        lines: () => matching(input, records, window).map((r) => budgetLine(r.p)),
      },
      deps.now().getTime(),
    );
  return out;
}

/** Compare with the stored review asked for and store this one: `changes`, their lines and notes. */
async function rememberReview(
  out: QueryBudgetsResult,
  history: NonNullable<ReviewSource["history"]>,
  review: ThisReview,
  now: number,
): Promise<void> {
  const done = await remember(history.of, review, history.compareTo, now);
  if (done.changes !== undefined) out.changes = done.changes;
  // i35results: notes become { code, text, params } objects; these carry theirs (remember.ts).
  if (done.notes.length > 0) out.notes = [...(out.notes ?? []), ...done.notes.map((n) => n.text)];
  const context = (out as { [CONTEXT]?: ResultContext })[CONTEXT];
  if (context !== undefined && done.lines.length > 0) context.changes = done.lines;
}

/** What the walk established, for the result's facts, notes and head line. */
interface WalkFacts {
  scanned: number;
  capped: boolean;
  complete: boolean;
  review: Partial<NonNullable<QueryBudgetsResult["review"]>>;
  context: Partial<ResultContext>;
  notes: string[];
  asOf: string;
}

function walkFacts(read: Read, maxRecords: number, now: Date, deadlineMs: number | undefined): WalkFacts {
  const { state, stop } = read;
  const scanned = Math.min(state.distinct, maxRecords);
  const capped = state.capped(maxRecords);
  const partial = stop.kind === "done" ? undefined : partialOf(read, stop, deadlineMs, now);
  const incomplete = state.faults.size > 0 || state.skippedCount > 0;
  const skipped =
    state.skippedCount > 0 ? { count: state.skippedCount, budgets: [...state.skipped] } : undefined;
  const notes = [...state.faults.values()];
  if (skipped)
    notes.push(
      `${plural(skipped.count, "budget")} left out for amounts that are no money (not finite, or beyond ±10^15): ${skipped.budgets.map((b) => `folio ${b.folio} (${b.reason})`).join("; ")}${skipped.count > skipped.budgets.length ? "; ..." : ""}.`,
    );
  const ageSeconds = Math.max(0, Math.round((now.getTime() - state.startedAt) / 1000));
  const asOf = new Date(state.startedAt).toISOString();
  return {
    scanned,
    capped,
    complete: partial === undefined && !capped && !incomplete,
    review: {
      ...(partial ? { stopped: partial.why, read_up_to: partial.readUpTo } : {}),
      ...(state.apiTotal === undefined ? {} : { api_total: state.apiTotal }),
      ...(skipped ? { skipped } : {}),
    },
    context: {
      apiTotal: state.apiTotal,
      totalKnown: !state.totalIsPageLength || !capped,
      ...(partial ? { partial } : {}),
      ...(incomplete ? { incomplete } : {}),
      ...(read.fromSnapshot ? { asOf: { time: `${asOf.slice(11, 19)}Z`, ageSeconds } } : {}),
    },
    notes,
    asOf,
  };
}

function partialOf(
  read: Read,
  stop: Exclude<Stop, { kind: "done" }>,
  deadlineMs: number | undefined,
  now: Date,
): PartialWalk {
  const detail =
    stop.kind === "deadline"
      ? String(deadlineMs ?? "")
      : stop.kind === "rate-limited"
        ? clockTime(stop.resetAt, now)
        : stop.error instanceof Error
          ? stop.error.message
          : String(stop.error);
  return {
    why: stop.kind,
    read: read.state.distinct,
    readUpTo: read.state.readUpTo,
    apiTotal: read.state.apiTotal,
    resume: read.resume,
    cacheOff: read.cacheOff,
    detail,
  };
}

/** "15:20:17Z" today (UTC), "2026-11-29T00:04:10Z" another day: a reset never hides its date. */
export function clockTime(at: number, now: Date): string {
  const iso = `${new Date(at).toISOString().slice(0, 19)}Z`;
  return iso.slice(0, 10) === now.toISOString().slice(0, 10) ? iso.slice(11) : iso;
}

type Summed = QueryDeps;

function summaryResult(
  input: BudgetsInput,
  deps: Summed,
  records: Kept[],
  walk: WalkFacts,
): QueryBudgetsResult {
  const figures = summarize(input, records, {
    now: deps.now(),
    discount: deps.discount,
    window: deps.window,
  });
  const { groups, subtotals, pendingAge } = figures.parts;
  const cut = summaryCut(figures.parts);
  const notes = boundNotes([
    ...reviewNotes(input, deps.window, { ...figures, scanned: walk.scanned }),
    ...walk.notes,
    ...basisNotes(input.group_by, deps.window, figures.basis),
  ]);
  const review = {
    scanned: walk.scanned,
    matched: figures.matched,
    capped: walk.capped,
    ...walk.review,
    ...(figures.oldestPending ? { oldest_pending: figures.oldestPending } : {}),
  };
  if (cut) review.groups_total = groups.all;
  const context = contextOf(input, deps, {
    maxRecords: input.max_records ?? DEFAULT_MAX_RECORDS,
    ...walk.context,
    ...(cut ? { groupsCut: { kept: groups.kept.length, all: groups.all } } : {}),
  });
  return withContext(
    {
      total: groups.all,
      returned: groups.kept.length,
      start: 0,
      next_start: null,
      omitted: groups.all - groups.kept.length,
      complete: walk.complete && !cut,
      period: deps.window.period,
      today: deps.window.today,
      view: "summary",
      budgets: [],
      groups: groups.kept,
      ...(subtotals ? { subtotals: subtotals.kept } : {}),
      ...(pendingAge ? { pending_age: pendingAge.kept } : {}),
      review: figures.dates ? { ...review, matched_created: figures.dates } : review,
      as_of: walk.asOf,
      ...(notes.length > 0 ? { notes } : {}),
    },
    context,
  );
}

function recordsResult(
  input: BudgetsInput,
  deps: Summed,
  records: Kept[],
  walk: WalkFacts,
): QueryBudgetsResult {
  const start = input.start ?? 0;
  const figures = topRecords(input, records, {
    view: deps.view,
    defaultLimit: deps.defaultLimit,
    window: deps.window,
    now: deps.now(),
  });
  const notes = [
    ...reviewNotes(input, deps.window, { ...figures, scanned: walk.scanned }),
    ...walk.notes,
    ...basisNotes(input.group_by, deps.window, figures.basis),
  ];
  if (input.sort?.startsWith("total") && figures.codes.size > 1)
    notes.push(
      "Amounts in different currencies are not comparable: sorted by currency, then amount. Add currency for one ranking.",
    );
  if (figures.cut) notes.push(sizeNote(figures.kept.length, start + figures.kept.length));
  notes.push(...cutFieldsNote(figures.kept));
  const end = start + figures.kept.length;
  const nextStart = end < figures.matched ? end : null;
  const context = contextOf(input, deps, {
    maxRecords: input.max_records ?? DEFAULT_MAX_RECORDS,
    ...walk.context,
  });
  const bounded = boundNotes(notes);
  return withContext(
    {
      total: figures.matched,
      returned: figures.kept.length,
      start,
      next_start: nextStart,
      omitted: 0,
      complete: walk.complete && start === 0 && nextStart === null,
      period: deps.window.period,
      today: deps.window.today,
      view: deps.view,
      budgets: figures.kept,
      review: {
        scanned: walk.scanned,
        matched: figures.matched,
        capped: walk.capped,
        ...walk.review,
        ...(figures.oldestPending ? { oldest_pending: figures.oldestPending } : {}),
      },
      as_of: walk.asOf,
      ...(bounded.length > 0 ? { notes: bounded } : {}),
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
