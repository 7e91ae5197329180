/**
 * What a `query_budgets` result holds and how it reads (interface.md §6b). The first text line
 * says whether the result is complete (or what is missing and the one argument that gets it) and
 * states the window and today's date; every result that shows amounts says once what items_total
 * is. The records' shapes (compact, detail, full) and their size costs live here too.
 */

import { type AmountKind, GROUPS, type Sort } from "./budget-review.js";
import type { PendingAge, Subtotal, SummaryRow } from "./budget-summary.js";
import {
  budgetLine,
  type CompactBudget,
  compactBudget,
  type DetailBudget,
  type DiscountKind,
  detailBudget,
  detailLines,
  fullBudget,
  type PricedBudget,
  plural,
} from "./budget-view.js";
import { fitCount, jsonLength } from "./fit.js";
import type { Changes } from "./ledger/changes.js";
import { formatMoney } from "./money.js";
import { type Note, printedNotes } from "./notes.js";
import { type OldestPending, oldestPendingLine } from "./oldest-pending.js";
import type { Period } from "./period.js";
import { thirdPartyText } from "./third-party.js";
import { jsonLine, shown } from "./upstream-text.js";
import type { RepeatedWorkOrder } from "./work-orders.js";

/** One currency's part of a ranking by amount (interface.md §8b): its matches and how many are shown. */
export type Ranking = { currency: string; currency_unmapped?: true; matched: number; returned: number };

export type View = "compact" | "detail" | "full";
export type Shaped = { folio: string; [field: string]: unknown };

export interface QueryBudgetsResult {
  total: number;
  returned: number;
  start: number;
  next_start: number | null;
  omitted: number;
  /** True when the result holds or summarises every match of its window. */
  complete: boolean;
  period: Period;
  /** Today's date (UTC), at which ages are counted. */
  today: string;
  view: View | "summary";
  budgets: Shaped[];
  /** A sort by amount: each currency's ranking, in the order of `budgets` (interface.md §8b). */
  rankings?: Ranking[];
  /** group_by work_order: the work orders with more than one budget, the most budgets first. */
  repeated_work_orders?: RepeatedWorkOrder[];
  groups?: SummaryRow[];
  subtotals?: Subtotal[];
  pending_age?: PendingAge[];
  review?: {
    scanned: number;
    matched: number;
    capped: boolean;
    /** date_create of the oldest and newest matched budget (summaries). */
    matched_created?: { oldest: string; newest: string };
    /** The single oldest pending budget matched (reviews with a pending match). */
    oldest_pending?: OldestPending;
    /** Why the walk stopped before the end: its deadline, the upstream's rate limit, an upstream failure. */
    stopped?: "deadline" | "rate-limited" | "failed";
    /** Every page below this offset was read. */
    read_up_to?: number;
    /** Budgets the API reports in the window. */
    api_total?: number;
    /** Budgets left out for absurd values, counted, the first listed with the reason. */
    skipped?: { count: number; budgets: { folio: string; reason: string }[] };
    /** Groups in all, when fewer are shown to fit. */
    groups_total?: number;
    /** The other date bases settled (basis-line.ts BasisCheck): the same answer, or their figures. */
    bases?: object[];
    /** A sorted list: the next budget ties the last one shown (ranking-ties.ts). */
    ties?: object[];
    /** MMS_BUDGET_DISCOUNT unset: the matches' totals after their discounts, read both ways (discount-readings.ts). */
    discount_readings?: object;
    /** The company's budgets (same status, up to until), and whether this review read every one. */
    company?: { budgets: number; all_read: boolean };
  };
  /** When the budgets summarised were read (ISO 8601 instant): the snapshot's age. */
  as_of?: string;
  /** Opaque token: repeat the call with `resume` set to it to continue a partial review. */
  resume?: string;
  /** What changed since the review compare_to names (interface.md §6e). */
  changes?: Changes;
  notes?: Note[];
}

/** What the text says beyond the structured result: how the query was asked. */
export interface ResultContext {
  /** The window in words (period.ts). */
  window: string;
  lookup: string | undefined;
  status: string | undefined;
  /** Whether a filter the API lacks (currency, cost center, third party, bounds) applied. */
  filtered: boolean;
  discount: DiscountKind | undefined;
  amount: AmountKind;
  sort: Sort | undefined;
  maxRecords: number;
  /** Records the API reports in the window (reviews), and whether that count is known to be real. */
  apiTotal?: number;
  totalKnown?: boolean;
  /** A list walk (all=true) stopped by max_records. */
  stoppedByCap?: boolean;
  /** A review that stopped before the end of its walk, and how to continue it. */
  partial?: PartialWalk;
  /** The snapshot a review was answered from: its time of day and age. */
  asOf?: { time: string; ageSeconds: number };
  /** The pages did not add up (repeats, overlaps, short pages, a changing total) or budgets were skipped. */
  incomplete?: boolean;
  /** Groups shown and in all, when the summary was cut to fit. */
  groupsCut?: { kept: number; all: number };
  /** What changed since an earlier review (compare_to): one or two lines. */
  changes?: string[];
  /** What an agent would check next, settled (interface.md §6g): ties at a ranking's edge, the company read in full, the other date bases. */
  closing?: string[];
}

export interface PartialWalk {
  why: "deadline" | "rate-limited" | "failed";
  /** Distinct budgets read, every page below `readUpTo`, of `apiTotal`. */
  read: number;
  readUpTo: number;
  apiTotal: number | undefined;
  /** The token to continue with; undefined when the budgets read could not be kept. */
  resume: string | undefined;
  /** No snapshot is kept at all (MMS_REVIEW_CACHE_SECONDS=0): the setting that prevents a resume. */
  cacheOff?: boolean;
  /** The deadline in ms, the rate limit's reset (HH:MM:SSZ today, else with its date), or the failure's message. */
  detail: string;
  /** The rate limit's reset, an ISO 8601 instant. */
  resetAt?: string;
}

/** The text's context, kept on the result under a symbol key: never serialized, never in structuredContent. */
export const CONTEXT = Symbol("context");
/** The compact records' text lines, rendered once for the size check and reused by the text. */
const LINES = Symbol("lines");
type Carried = QueryBudgetsResult & { [CONTEXT]?: ResultContext };
type WithLines = Shaped[] & { [LINES]?: string[] };

export function shapeAll(view: View, list: PricedBudget[]): Shaped[] {
  return view === "full"
    ? list.map(fullBudget)
    : view === "detail"
      ? list.map(detailBudget)
      : list.map(compactBudget);
}

const textOf = (view: View) =>
  view === "full"
    ? (b: Shaped) => jsonLength(b)
    : view === "detail"
      ? (b: Shaped) => detailLines(b as DetailBudget).join("\n").length
      : (b: Shaped) => budgetLine(b as CompactBudget).length;

/** Characters one record costs in structuredContent and in the text of a result. */
export const recordCost = (view: View) => ({ structured: jsonLength, text: textOf(view) });

/** Keep the records that fit in one result; the rest is reachable from next_start. */
export function fitRecords(budgets: Shaped[], view: View): { kept: Shaped[]; cut: boolean } {
  if (view !== "compact") {
    const n = fitCount(budgets, recordCost(view));
    return { kept: budgets.slice(0, n), cut: n < budgets.length };
  }
  const lines = budgets.map((b) => budgetLine(b as CompactBudget));
  const n = fitCount(budgets, { structured: jsonLength, text: (_, i) => lines[i]!.length });
  const kept = budgets.slice(0, n);
  // Not enumerable: invisible to JSON, equality checks and spreads alike.
  Object.defineProperty(kept, LINES, { value: n < lines.length ? lines.slice(0, n) : lines });
  return { kept, cut: n < budgets.length };
}

const SORT_WORDS: Record<Sort, string> = {
  total_desc: "largest first",
  total_asc: "smallest first",
  date_desc: "newest first",
  date_asc: "oldest first",
};

/** "pending budgets of the window", "budget of folio 104", "budgets of the window that match the filters". */
function noun(c: ResultContext, n: number): string {
  const what = `${c.status ? `${c.status} ` : ""}${n === 1 ? "budget" : "budgets"}`;
  const scope = c.lookup ? `of ${c.lookup}` : "of the window";
  return `${what} ${scope}${c.filtered ? ` that match${n === 1 ? "es" : ""} the filters` : ""}`;
}

/** "All 12 pending budgets of the window", "The only budget of folio 104", "No budget of the window". */
function all(c: ResultContext, n: number): string {
  if (n === 0) return `No ${noun(c, 1)}`;
  return n === 1 ? `The only ${noun(c, 1)}` : `All ${n} ${noun(c, n)}`;
}

/** What a review capped by max_records lacks, and the one argument that gets the rest. */
function partialScan(out: QueryBudgetsResult, c: ResultContext): string {
  const scanned = out.review!.scanned;
  const total = c.apiTotal ?? scanned;
  const known = c.totalKnown !== false && total > scanned;
  const fix = !known
    ? `raise max_records above ${c.maxRecords} (the API does not say how many follow)`
    : total <= 100_000
      ? `call again with max_records=${total}${out.view === "summary" ? "" : total > 10_000 ? " and group_by (a record list reads at most 10000)" : ""} (the budgets already read are not read again; the rest at the pace the upstream allows, resumable)`
      : "narrow since/until (at most 100000 budgets a call)";
  const of = known ? `${scanned} of ${total}` : `the first ${scanned}`;
  return `Partial: scanned ${of} budgets of the window (max_records=${c.maxRecords}), ${out.review!.matched} match; for all of them, ${fix}`;
}

/** The API's own count beside ours, so a round number is not taken for a page cap (interface.md §6d). */
const scannedOf = (scanned: number, c: ResultContext) =>
  `${scanned} scanned; the API reports ${c.apiTotal ?? scanned}`;
const WHY = {
  deadline: (d: string) => `the call's deadline (MMS_REVIEW_DEADLINE_MS=${d})`,
  "rate-limited": (d: string) => `the upstream's rate limit, which resets at ${d}`,
  failed: (d: string) => `an upstream failure (${d})`,
};

/** A review stopped before its end: what it read, and the one argument that continues it. */
function partialWalk(p: PartialWalk, out: QueryBudgetsResult): string {
  const of = p.apiTotal === undefined ? `${p.read}` : `${p.read} of ${p.apiTotal}`;
  const pages = p.readUpTo > 0 ? ` (every page from start=0 to ${p.readUpTo - 1})` : "";
  const go = p.resume
    ? `to continue where it stopped (nothing is read again), repeat this call with "resume": "${p.resume}"`
    : p.cacheOff
      ? "this server keeps no snapshots (MMS_REVIEW_CACHE_SECONDS=0), so it cannot resume: narrow since/until, or ask the operator to keep snapshots"
      : "the budgets read did not fit the server's snapshot memory (MMS_REVIEW_CACHE_MB), so it cannot resume: narrow since/until";
  return `Partial: read ${of} budgets of the window${pages} before ${WHY[p.why](p.detail)}; ${out.review!.matched} match so far and the figures cover those only; ${go}`;
}

/** The pages did not add up, or budgets were skipped: what the figures cover. */
function incompleteScan(out: QueryBudgetsResult, c: ResultContext): string {
  const r = out.review!;
  const total = c.apiTotal === undefined ? "" : ` where the API reports ${c.apiTotal}`;
  return `Incomplete: ${r.matched} matching of ${r.scanned} distinct budgets read${total} (see the notes for what the pages showed)`;
}

function head(out: QueryBudgetsResult, c: ResultContext): string {
  const line = headLine(out, c);
  return c.asOf
    ? `As of ${c.asOf.time}, ${c.asOf.ageSeconds} s ago (a snapshot; fresh: true reads again): ${line}`
    : line;
}

function headLine(out: QueryBudgetsResult, c: ResultContext): string {
  const window = `Window: ${c.window}.`;
  const sorted = c.sort
    ? `, ${c.amount === "net" && c.sort.startsWith("total") ? `${SORT_WORDS[c.sort]} by net_total` : SORT_WORDS[c.sort]}`
    : "";
  const r = out.review;
  if (c.partial) return `${partialWalk(c.partial, out)}. ${window}`;
  if (out.view === "summary" && r) {
    const groups = c.groupsCut
      ? `in ${c.groupsCut.all} groups, the ${c.groupsCut.kept} largest per currency shown (narrow with fewer group_by keys or a filter: currency, cost_center, third_party, status, a shorter window)`
      : `in ${plural(out.groups?.length ?? 0, "group")}`;
    if (r.capped) return `${partialScan(out, c)}; ${groups}. ${window}`;
    if (c.incomplete) return `${incompleteScan(out, c)}, ${groups}. ${window}`;
    return `${all(c, r.matched)} (${scannedOf(r.scanned, c)}), ${groups}. ${window}`;
  }
  if (r) {
    if (c.incomplete && !r.capped)
      return `${incompleteScan(out, c)}; ${out.returned} shown from start=${out.start}${sorted}. ${window}`;
    if (r.capped)
      return `${partialScan(out, c)}; ${out.returned} shown from start=${out.start}${sorted}. ${window}`;
    if (out.complete) return `${all(c, r.matched)}${sorted} (${scannedOf(r.scanned, c)}). ${window}`;
    const rest = out.next_start === null ? " (to the end)" : `; the rest: start=${out.next_start}`;
    return `${out.returned} of ${r.matched} ${noun(c, r.matched)}${sorted} (${r.scanned} scanned), from start=${out.start}${rest}. ${window}`;
  }
  if (out.complete)
    return `${all(c, out.total)}${out.total > 1 ? `; the API reports ${out.total}` : ""}. ${window}`;
  if (out.returned === 0)
    return `Nothing from start=${out.start}: the window has ${plural(out.total, c.status ? `${c.status} budget` : "budget")}. ${window}`;
  const from = `${out.returned} of ${out.total} ${noun(c, out.total)}, from start=${out.start}`;
  if (out.next_start === null) return `${from} (to the end). ${window}`;
  if (c.stoppedByCap)
    return `${from}: max_records=${c.maxRecords} stopped the walk; the rest: start=${out.next_start}. ${window}`;
  if (out.start + out.returned >= out.total)
    return `${out.returned} ${noun(c, out.returned)} from start=${out.start}; the API's total (${out.total}) may count only this page: call again with start=${out.next_start} to see whether more follow. ${window}`;
  return `${from}; the rest: start=${out.next_start}. ${window}`;
}

/** Said once in every result that shows amounts (interface.md §6b "What an amount is"). */
function amountLine(out: QueryBudgetsResult, c: ResultContext): string {
  const items = "items_total: the sum of a budget's line totals, before its discount and before taxes.";
  if (c.discount)
    return `${items} net_total: after the discount, read as ${c.discount === "percent" ? "a percentage" : "an amount in the budget's currency"} (operator setting MMS_BUDGET_DISCOUNT).`;
  const discounted = out.budgets.some(
    (b) => b.discount !== null && b.discount !== undefined && Number(b.discount) !== 0,
  );
  return discounted
    ? `${items} discount: as the API gives it; the API does not say whether it is a percentage or an amount.`
    : items;
}

const cur = (m: { currency: string; currency_unmapped?: true }) => ({
  code: m.currency,
  mapped: m.currency_unmapped !== true,
});
const money = (m: { currency: string; currency_unmapped?: true; items_total: number; net_total?: number }) =>
  `${formatMoney(m.items_total, cur(m))}${m.net_total === undefined ? "" : ` (net ${formatMoney(m.net_total, cur(m))})`}`;

/** The group keys a group row may carry besides its currency, in their order. */
const KEYS = GROUPS.filter((k) => k !== "currency");

/** "Work order 4027: 3 budgets: 131 pending, 140 approved, 152 rejected", the most budgets first. */
function repeatedLines(out: QueryBudgetsResult): string[] {
  const lead = out.notes?.find((n) => n.code === "work_orders_repeated");
  return [
    ...(lead ? [lead.text] : []),
    ...(out.repeated_work_orders ?? []).map(
      (w) =>
        `Work order ${shown(w.wo_folio)}: ${plural(w.count, "budget")}: ${w.budgets.map((b) => `${shown(b.folio)} ${b.status}`).join(", ")}${w.count > w.budgets.length ? ", ..." : ""}`,
    ),
  ];
}

/** A row's value of a group key; a third party with its code and role. */
const keyText = (row: { [key: string]: unknown }, key: string) =>
  key === "third_party"
    ? thirdPartyText(row.third_party as string | null, row as Parameters<typeof thirdPartyText>[1])
    : shown(row[key] as string | null);

function summaryLines(out: QueryBudgetsResult, c: ResultContext): string[] {
  const groups = out.groups ?? [];
  if (groups.length === 0) return [];
  const keys = KEYS.filter((k) => groups.some((g) => k in g));
  const pending = groups.some((g) => g.oldest_pending_days !== undefined);
  const lines = [
    ...repeatedLines(out),
    [...keys, "items_total", "count", ...(pending ? ["oldest pending (days)"] : [])].join(" | "),
  ];
  for (const g of groups) {
    const age = g.oldest_pending_days === undefined ? [] : [String(g.oldest_pending_days)];
    lines.push([...keys.map((k) => keyText(g, k)), money(g), String(g.count), ...age].join(" | "));
  }
  if (out.subtotals) {
    const key = Object.keys(out.subtotals[0] ?? {})[0]!;
    lines.push(`Subtotals by ${key} (count across currencies):`);
    for (const s of out.subtotals)
      lines.push(`${keyText(s, key)}: ${plural(s.count, "budget")}: ${s.totals.map(money).join(", ")}`);
  }
  // The queue by age is in structuredContent for every review with pending matches; the text gives
  // it when the review is of pending budgets (and age is not already a row key), to stay short.
  if (out.pending_age && c.status === "pending" && !keys.includes("age")) {
    lines.push("Pending budgets by age (whole days since created, at today):");
    for (const q of out.pending_age)
      lines.push(
        `${shown(q.currency)}: ${q.buckets.map((b) => (b.count === 0 ? `${b.age}: 0` : `${b.age}: ${b.count}, ${money({ ...q, ...b })}`)).join("; ")}`,
      );
  }
  const dates = out.review?.matched_created;
  if (dates)
    lines.push(
      `Matched budgets were created (date_create) ${shown(dates.oldest)} to ${shown(dates.newest)}.`,
    );
  return lines;
}

function recordLines(out: QueryBudgetsResult, c: ResultContext): string[] {
  const rendered = (out.budgets as WithLines)[LINES];
  const lines = (b: Shaped, i: number) =>
    out.view === "compact"
      ? [rendered?.[i] ?? budgetLine(b as CompactBudget)]
      : out.view === "detail"
        ? detailLines(b as DetailBudget)
        : [jsonLine(b)];
  const rankings = out.rankings ?? [];
  if (rankings.length < 2) return out.budgets.flatMap(lines);
  // A ranking per currency: each currency's part under its own head, with its count.
  const all: string[] = [];
  let at = 0;
  for (const r of rankings) {
    const order = c.sort === undefined ? "" : `, ${SORT_WORDS[c.sort]}`;
    all.push(`${shown(r.currency)}: ${r.returned} of ${plural(r.matched, "budget")}${order}:`);
    for (let i = at; i < at + r.returned; i++) all.push(...lines(out.budgets[i]!, i));
    at += r.returned;
  }
  return all;
}

/** The text rendering: the head line, what amounts are, one line per record or summary row, then notes. */
export function budgetsText(out: QueryBudgetsResult): string {
  const c = (out as Carried)[CONTEXT];
  if (c === undefined) return JSON.stringify(out, null, 2);
  // What changed since an earlier review leads (interface.md §6f): the line an agent repeats to a manager.
  const lines = [...(c.changes ?? []), head(out, c)];
  const shows = out.view === "summary" ? (out.groups?.length ?? 0) > 0 : out.budgets.length > 0;
  if (shows) lines.push(amountLine(out, c));
  lines.push(...(out.view === "summary" ? summaryLines(out, c) : recordLines(out, c)));
  const r = out.review;
  if (r?.oldest_pending)
    lines.push(
      oldestPendingLine(r.oldest_pending, out.view === "summary" ? "overall" : `of the ${r.matched} matches`),
    );
  lines.push(...(c.closing ?? []));
  lines.push(...printedNotes(out.notes));
  if (out.next_start !== null && out.returned > 0)
    lines.push(`More: call again with start=${out.next_start}.`);
  return lines.join("\n");
}
