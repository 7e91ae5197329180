/**
 * What `query_budgets` does between its schema and the API (interface.md §6, §6b): one page of
 * records, or a review that streams every page of the window (bounded by max_records, with
 * progress) through filters into a summary or a top N, holding neither every page nor every
 * match. Every result states its window, today's date and whether it is complete; records are cut
 * at a record boundary to fit the host, with where to go on.
 */
import type { Budget, Page } from "../client/types.js";
import { basisNotes } from "./basis.js";
import { type BasisDeps, LISTED, settledLines } from "./basis-settle.js";
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
import { cutFieldsNote, type DiscountKind, type PricedBudget, price } from "./budget-view.js";
import { readingsLine } from "./discount-readings.js";
import { fitEstimate } from "./fit.js";
import type { LedgerOf } from "./ledger/ledger.js";
import { type Lookup, listRead, thisRead } from "./ledger/review-read.js";
import { NOTES, type Note } from "./notes.js";
import { collectPages, DEFAULT_MAX_RECORDS } from "./paging.js";
import type { ResolvedPeriod } from "./period.js";
import { tieLine } from "./ranking-ties.js";
import { emptyHint, lookupOf, statusNotes, unknownCurrencyNotes, unmappedNotes } from "./result-notes.js";
import { boundNotes, summaryCut } from "./review/bounds.js";
import { type Read, type ReadDeps, readReview } from "./review/read.js";
import type { Kept } from "./review/records.js";
import { type CompareTo, remember, type ThisRead } from "./review/remember.js";
import { type SummaryFigures, summarize, type TopFigures, topRecords } from "./review/result.js";
import type { Stop } from "./review/scheduler.js";
import type { RepeatedFigures } from "./work-orders.js";

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
  /** The tenant's ledger of budgets seen (interface.md §6f): a list's budgets are recorded too. */
  ledger?: LedgerOf | undefined;
}

/** The text's context, kept off the serialized result (a non-enumerable symbol key). */
function withContext<T extends object>(out: T, context: ResultContext): T {
  Object.defineProperty(out, CONTEXT, { value: context });
  return out;
}

function contextOf(input: BudgetsInput, deps: QueryDeps, extra: Partial<ResultContext> = {}): ResultContext {
  return {
    window: deps.window.text,
    lookup: lookupWords(input),
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

/** "folio 104", "work order 4027": the lookup in the text's words. */
export const lookupWords = (input: BudgetsInput) => {
  const l = lookupOf(input);
  return l && `${l.by === "folio" ? "folio" : "work order"} ${l.value}`;
};

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
    ...(cut || stoppedToFit
      ? [NOTES.resultCutToFit({ kept: kept.length, next_start: start + kept.length })]
      : []),
    ...cutFieldsNote(kept),
  ];
  if (result.items.length === 0 && result.total > 0 && start > 0) {
    notes.push(NOTES.startPastEnd({ start, total: result.total }));
  } else if (result.items.length === 0) notes.push(emptyHint(input, deps.window));
  notes.push(...statusNotes(input, { budgets: kept }));
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
  // The whole window in hand: the date basis can be settled on these records (settleList).
  if (out.complete) Object.defineProperty(out, LISTED, { value: { priced, total: result.total } });
  if (deps.ledger !== undefined) await recordList(out, input, deps, priced);
  return withContext(
    out,
    contextOf(input, deps, { maxRecords, stoppedByCap: result.omitted > 0 && !cut && !stoppedToFit }),
  );
}

/** A list that holds its whole window (no lookup): its other date bases settled as a review's are (interface.md §6g). */
export async function settleList(
  out: QueryBudgetsResult,
  input: BudgetsInput & { until?: string | undefined },
  deps: QueryDeps & { source: ReviewSource },
): Promise<void> {
  const listed = (out as { [LISTED]?: { priced: PricedBudget[]; total: number } })[LISTED];
  if (listed === undefined) return;
  await settledLines(
    out,
    input,
    {
      records: listed.priced.map((p, seq) => ({ p, seq })),
      window: deps.window,
      maxRecords: input.max_records ?? DEFAULT_MAX_RECORDS,
      apiTotal: listed.total,
      totalIsPageLength: false,
    },
    deps,
  );
}

/** A list's budgets into the ledger; a failure is a note, never a failed list. */
async function recordList(
  out: QueryBudgetsResult,
  input: BudgetsInput,
  deps: QueryDeps,
  priced: readonly PricedBudget[],
): Promise<void> {
  const at = deps.now().getTime();
  const read = listRead({
    ask: input,
    window: deps.window,
    at,
    complete: out.complete,
    discount: deps.discount,
    priced,
  });
  const done = await remember(deps.ledger!, read, undefined, at);
  if (done.notes.length > 0) out.notes = [...(out.notes ?? []), ...done.notes];
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
  /** The tenant's ledger, what to compare with, and how to read budgets that left the review (interface.md §6f). */
  history?: { of: LedgerOf; compareTo: CompareTo | undefined; lookup: Lookup } | undefined;
  /** The same call on another date basis (interface.md §6g); none for a lookup. */
  other?: BasisDeps["other"] | undefined;
  /** The API's status filter of the call. */
  status?: number | undefined;
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
  const { apiTotal, totalIsPageLength } = read.state;
  if (walk.complete && source.other !== undefined)
    await settledLines(
      out,
      input,
      { records, window, maxRecords, apiTotal, totalIsPageLength },
      { ...deps, source },
    );
  // After the result is built: history never delays the figures, and its failures are notes.
  if (source.history !== undefined)
    await rememberReview(
      out,
      source.history,
      thisRead({
        ask: input,
        window,
        records: read.state.records,
        at: read.state.startedAt,
        complete: walk.complete && !walk.capped,
        discount: deps.discount,
        lookup: source.history.lookup,
      }),
      deps.now().getTime(),
    );
  return out;
}

/** Compare with what the ledger knew (when asked) and write this read: `changes`, their lines and notes. */
async function rememberReview(
  out: QueryBudgetsResult,
  history: NonNullable<ReviewSource["history"]>,
  review: ThisRead,
  now: number,
): Promise<void> {
  const done = await remember(history.of, review, history.compareTo, now);
  if (done.changes !== undefined) out.changes = done.changes;
  if (done.notes.length > 0) out.notes = [...(out.notes ?? []), ...done.notes];
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
  notes: Note[];
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
  const notes = [...(partial ? [partialNote(partial, deadlineMs)] : []), ...state.faults.values()];
  if (capped && partial === undefined)
    notes.push(NOTES.reviewCapped({ scanned, max_records: maxRecords, ...apiTotal(state) }));
  if (skipped)
    notes.push(
      NOTES.budgetsSkipped({
        count: skipped.count,
        folios: skipped.budgets.map((b) => b.folio).join(", "),
        listed: skipped.budgets.map((b) => `folio ${b.folio} (${b.reason})`).join("; "),
        more: skipped.count > skipped.budgets.length,
      }),
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
    ...(stop.kind === "rate-limited" ? { resetAt: new Date(stop.resetAt).toISOString() } : {}),
  };
}

/** "15:20:17Z" today (UTC), "2026-11-29T00:04:10Z" another day: a reset never hides its date. */
export function clockTime(at: number, now: Date): string {
  const iso = `${new Date(at).toISOString().slice(0, 19)}Z`;
  return iso.slice(0, 10) === now.toISOString().slice(0, 10) ? iso.slice(11) : iso;
}

const apiTotal = (state: Read["state"]) =>
  state.apiTotal === undefined || state.totalIsPageLength ? {} : { api_total: state.apiTotal };

/** Why the review stopped short, as a note for the view (the text's head line says it in full). */
function partialNote(p: PartialWalk, deadlineMs: number | undefined): Note {
  const of = { read: p.read, ...(p.apiTotal === undefined ? {} : { api_total: p.apiTotal }) };
  if (p.why === "deadline") return NOTES.reviewPartialDeadline({ ...of, deadline_ms: deadlineMs ?? 0 });
  if (p.why === "rate-limited") return NOTES.reviewPartialRateLimited({ ...of, reset_at: p.resetAt ?? "" });
  return NOTES.reviewPartialFailed({ ...of, error: p.detail });
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
  const notes = summaryNotes(input, deps, figures, walk);
  const closing = closingOf(figures, deps, null, true);
  const review = {
    scanned: walk.scanned,
    matched: figures.matched,
    capped: walk.capped,
    ...walk.review,
    ...(figures.oldestPending ? { oldest_pending: figures.oldestPending } : {}),
    ...(figures.dates ? { matched_created: figures.dates } : {}),
    ...closing.review,
  };
  if (cut) review.groups_total = groups.all;
  const context = contextOf(input, deps, {
    maxRecords: input.max_records ?? DEFAULT_MAX_RECORDS,
    ...walk.context,
    ...(cut ? { groupsCut: { kept: groups.kept.length, all: groups.all } } : {}),
    ...closing.context,
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
      ...(figures.repeated ? { repeated_work_orders: figures.repeated.listed } : {}),
      groups: groups.kept,
      ...(subtotals ? { subtotals: subtotals.kept } : {}),
      ...(pendingAge ? { pending_age: pendingAge.kept } : {}),
      review,
      as_of: walk.asOf,
      ...(notes.length > 0 ? { notes } : {}),
    },
    context,
  );
}

/**
 * What a review adds so that nothing is left to check (interface.md §6g): ties at a ranking's edge,
 * and without MMS_BUDGET_DISCOUNT a summary's totals after their discounts read both ways.
 */
function closingOf(
  figures: Pick<TopFigures, "discounts" | "oldestPending" | "ties">,
  deps: Summed,
  nextStart: number | null,
  summary = false,
) {
  // The oldest pending line already names the budgets of its day: no second line for the same tie.
  const o = figures.oldestPending;
  const sameDay = new Set(o?.same_day?.map((s) => s.folio));
  const ties = (figures.ties ?? []).filter((t) => !(t.day && t.last === o?.folio && sameDay.has(t.next)));
  // Totals after the discount where the result shows totals (a summary); a list's lines show each budget's.
  const readings = deps.discount === undefined && summary ? figures.discounts.result() : undefined;
  const lines = [...ties.map((t) => tieLine(t, nextStart)), ...(readings ? [readingsLine(readings)] : [])];
  return {
    review: {
      ...(figures.ties ? { ties: figures.ties } : {}),
      ...(readings ? { discount_readings: readings } : {}),
    },
    context: lines.length > 0 ? { closing: lines } : {},
  };
}

/** What a summary says beside its rows: the walk's notes, groups cut, unknown currencies, whose month. */
function summaryNotes(input: BudgetsInput, deps: Summed, figures: SummaryFigures, walk: WalkFacts): Note[] {
  const { groups } = figures.parts;
  return boundNotes([
    ...walk.notes,
    ...(groups.kept.length < groups.all
      ? [NOTES.groupsCut({ shown: groups.kept.length, groups: groups.all })]
      : []),
    ...reviewNotes(input, deps.window, { ...figures, scanned: walk.scanned }),
    ...statusNotes(input, { budgets: [], groups: groups.kept }),
    ...basisNotes(input.group_by, deps.window, figures.basis),
    ...repeatedNotes(figures.repeated),
  ]);
}

/** group_by work_order: how many work orders have more than one budget, or that none has. */
function repeatedNotes(r: RepeatedFigures | undefined): Note[] {
  if (r === undefined || r.workOrders === 0) return [];
  return r.count === 0
    ? [NOTES.workOrdersNoneRepeated({ work_orders: r.workOrders })]
    : [NOTES.workOrdersRepeated({ count: r.count, budgets: r.budgets, shown: r.listed.length })];
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
    ...walk.notes,
    ...reviewNotes(input, deps.window, { ...figures, scanned: walk.scanned }),
    ...statusNotes(input, { budgets: figures.kept }),
    ...basisNotes(input.group_by, deps.window, figures.basis),
  ];
  const { nextStart, more } = goOn(figures, start);
  notes.push(...more);
  notes.push(...cutFieldsNote(figures.kept));
  const closing = closingOf(figures, deps, nextStart);
  const context = contextOf(input, deps, {
    maxRecords: input.max_records ?? DEFAULT_MAX_RECORDS,
    ...walk.context,
    ...closing.context,
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
      ...(figures.rankings ? { rankings: figures.rankings } : {}),
      review: {
        scanned: walk.scanned,
        matched: figures.matched,
        capped: walk.capped,
        ...walk.review,
        ...(figures.oldestPending ? { oldest_pending: figures.oldestPending } : {}),
        ...closing.review,
      },
      as_of: walk.asOf,
      ...(bounded.length > 0 ? { notes: bounded } : {}),
    },
    context,
  );
}

/**
 * Where a review's records go on, and what the result says of it: a ranking per currency goes on
 * at the same rank in each currency, a plain list after its last record.
 */
function goOn(figures: TopFigures, start: number): { nextStart: number | null; more: Note[] } {
  const more: Note[] = [];
  const { rankings, perCurrency } = figures;
  if (rankings !== undefined && rankings.length > 1)
    more.push(NOTES.mixedCurrenciesSorted({ currencies: rankings.length, per_currency: perCurrency! }));
  const end = start + (perCurrency ?? figures.kept.length);
  if (figures.cut) more.push(NOTES.resultCutToFit({ kept: figures.kept.length, next_start: end }));
  const left = rankings ? rankings.some((r) => r.matched > end) : end < figures.matched;
  return { nextStart: left ? end : null, more };
}

/** What a review result must say beside its figures: unknown currencies asked for or met, no match. */
function reviewNotes(
  input: BudgetsInput,
  window: ResolvedPeriod,
  seen: {
    unmapped: Set<string>;
    matched: number;
    scanned: number;
  },
): Note[] {
  const notes = [
    ...unmappedNotes([...seen.unmapped].map((code) => ({ code, mapped: false }))),
    ...unknownCurrencyNotes(input.currency),
  ];
  if (seen.matched === 0)
    notes.push(
      seen.scanned === 0 ? emptyHint(input, window) : NOTES.noMatchScanned({ scanned: seen.scanned }),
    );
  return notes;
}
