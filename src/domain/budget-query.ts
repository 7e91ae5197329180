/**
 * What `query_budgets` does between its schema and the API (interface.md §6): one page of
 * records, or a review that walks every page of the period (bounded by max_records, with
 * progress), filters, sorts or summarizes per currency, and states what it scanned. Every
 * result is cut at a record boundary to fit the host, with where to go on.
 */
import type { Budget, Page } from "../client/types.js";
import {
  type GroupKey,
  matcher,
  type ReviewFilters,
  type Sort,
  type SummaryRow,
  sortBudgets,
  summarize,
} from "./budget-review.js";
import {
  budgetLine,
  type CompactBudget,
  compactBudget,
  fullBudget,
  type PricedBudget,
  plural,
  price,
} from "./budget-view.js";
import { fitCount, fitEstimate, jsonLength } from "./fit.js";
import { type Currency, currencyOf, formatMoney } from "./money.js";
import { collectPages, DEFAULT_MAX_RECORDS, MAX_PAGE_SIZE } from "./paging.js";

export interface BudgetsInput extends ReviewFilters {
  id?: string | undefined;
  /** As the caller wrote it ("rejected", 3...); the API's code is sent separately. */
  status?: string | number | undefined;
  wo_folio?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  type_date?: string | undefined;
  sort?: Sort | undefined;
  group_by?: GroupKey[] | undefined;
  start?: number | undefined;
  limit?: number | undefined;
  all?: boolean | undefined;
  max_records?: number | undefined;
}

export type View = "compact" | "full";
export type Shaped = { folio: string; [field: string]: unknown };

export interface QueryBudgetsResult {
  total: number;
  returned: number;
  start: number;
  next_start: number | null;
  omitted: number;
  view: View | "summary";
  budgets: Shaped[];
  groups?: SummaryRow[];
  review?: { scanned: number; matched: number; period: string; capped: boolean };
  notes?: string[];
}

export interface QueryDeps {
  view: View;
  defaultLimit: number;
  /** Report progress while pages are walked (a no-op when nobody listens). */
  progress(update: { progress: number; total?: number | undefined; message: string }): Promise<void>;
  /** Today, for the age of pending budgets. */
  now(): Date;
  fetchPage: (start: number, limit: number) => Promise<Page<Budget>>;
}

const shape = (view: View, list: PricedBudget[]): Shaped[] =>
  view === "full" ? list.map(fullBudget) : list.map(compactBudget);

/** The describable period: what since/until/type_date select (lookups: any date). */
export function periodText(input: BudgetsInput): string {
  const lookup = input.id !== undefined || input.wo_folio !== undefined;
  const by = ` by ${input.type_date ?? "creation_date"}`;
  if (input.since === undefined && input.until === undefined)
    return lookup ? "any date (lookup)" : `last 30 days (default)${by}`;
  return `${input.since ?? (lookup ? "any" : "30 days ago")} to ${input.until ?? "now"}${by}`;
}

/**
 * The compact records' text lines, rendered once for the size check and kept on the records'
 * array (a non-enumerable symbol key: never serialized) for the text of the same result.
 */
const LINES = Symbol("lines");
type WithLines = Shaped[] & { [LINES]?: string[] };

/** Keep the records that fit in one result; the rest is reachable from next_start. */
export function fitRecords(budgets: Shaped[], view: View): { kept: Shaped[]; cut: boolean } {
  if (view === "full") {
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

/** Characters one record costs in structuredContent and in the text of a result. */
const recordCost = (view: View) => ({
  structured: jsonLength,
  text: (b: Shaped) => (view === "full" ? jsonLength(b) : budgetLine(b as CompactBudget).length),
});

const sizeNote = (kept: number, next: number) =>
  `Cut after ${kept} records to stay within a host's 80,000-character result limit: continue with start=${next}.`;

/** One page (or all pages) of records as the API orders them. */
export async function listBudgets(input: BudgetsInput, deps: QueryDeps): Promise<QueryBudgetsResult> {
  const start = input.start ?? 0;
  const maxRecords = input.max_records ?? (deps.view === "full" ? 100 : DEFAULT_MAX_RECORDS);
  const result = await collectPages(deps.fetchPage, {
    start,
    limit: input.limit ?? deps.defaultLimit,
    all: input.all ?? false,
    maxRecords,
    // all=true: read no further than one result can carry (the rest is reachable from next_start).
    fitsAfterFirstPage: (page) => fitEstimate(shape(deps.view, page.map(price)), recordCost(deps.view)),
    onProgress: (n, of) =>
      deps.progress({ progress: n, total: of, message: `Fetched ${n} of ${of} budgets` }),
  });
  const priced = result.items.map(price);
  const all = shape(deps.view, priced);
  const { kept, cut } = fitRecords(all, deps.view);
  // The walk itself stopped short of max_records because one result could carry no more.
  const stoppedToFit = input.all === true && result.nextStart !== null && result.items.length < maxRecords;
  const notes = [
    ...unmappedNotes(priced.slice(0, kept.length).map((p) => p.currency)),
    ...(cut || stoppedToFit ? [sizeNote(kept.length, start + kept.length)] : []),
  ];
  if (result.items.length === 0) {
    notes.push(
      result.total > 0 && start > 0
        ? `Nothing from start=${start}: ${plural(result.total, "budget")} match; use a start below ${result.total}.`
        : emptyHint(input),
    );
  }
  return {
    total: result.total,
    returned: kept.length,
    start,
    next_start: cut ? start + kept.length : result.nextStart,
    omitted: result.omitted + (cut && input.all ? all.length - kept.length : 0),
    view: deps.view,
    budgets: kept,
    ...(notes.length > 0 ? { notes } : {}),
  };
}

/** Walk every page of the period, then filter, sort, and page or summarize the matches. */
export async function reviewBudgets(input: BudgetsInput, deps: QueryDeps): Promise<QueryBudgetsResult> {
  const maxRecords = input.max_records ?? DEFAULT_MAX_RECORDS;
  const scan = await collectPages(deps.fetchPage, {
    start: 0,
    limit: MAX_PAGE_SIZE,
    all: true,
    maxRecords,
    onProgress: (n, of) =>
      deps.progress({ progress: n, total: of, message: `Scanned ${n} of ${of} budgets` }),
  });
  const keep = matcher(input);
  let matched = scan.items.map(price).filter(keep);
  if (input.sort) matched = sortBudgets(matched, input.sort);
  const capped = scan.nextStart !== null;
  const review = { scanned: scan.items.length, matched: matched.length, period: periodText(input), capped };
  const notes = reviewNotes(input, matched, {
    scanned: scan.items.length,
    omitted: scan.omitted,
    capped,
    maxRecords,
  });

  if (input.group_by && input.group_by.length > 0) {
    const groups = summarize(matched, input.group_by, deps.now());
    return {
      total: groups.length,
      returned: groups.length,
      start: 0,
      next_start: null,
      omitted: 0,
      view: "summary",
      budgets: [],
      groups,
      review,
      ...(notes.length > 0 ? { notes } : {}),
    };
  }
  const start = input.start ?? 0;
  const window = input.all
    ? matched.slice(start)
    : matched.slice(start, start + (input.limit ?? deps.defaultLimit));
  const shaped = shape(deps.view, window);
  const { kept, cut } = fitRecords(shaped, deps.view);
  if (cut) notes.push(sizeNote(kept.length, start + kept.length));
  const end = start + kept.length;
  return {
    total: matched.length,
    returned: kept.length,
    start,
    next_start: end < matched.length ? end : null,
    omitted: 0,
    view: deps.view,
    budgets: kept,
    review,
    ...(notes.length > 0 ? { notes } : {}),
  };
}

/** What a review result must say beside its figures: unmapped currencies, a cap, a mixed-currency sort, no match. */
function reviewNotes(
  input: BudgetsInput,
  matched: PricedBudget[],
  seen: { scanned: number; omitted: number; capped: boolean; maxRecords: number },
): string[] {
  const notes = unmappedNotes(matched.map((p) => p.currency));
  for (const wanted of input.currency ?? []) {
    if (!currencyOf(wanted).mapped) {
      notes.push(
        `currency "${wanted}" is no ISO 4217 code or currency name known to Intl: matched by name as written only.`,
      );
    }
  }
  if (seen.capped) {
    notes.push(
      `Stopped at max_records=${seen.maxRecords}: ${seen.omitted > 0 ? `${seen.omitted} more budgets` : "more budgets"} of the period were not scanned, so counts and totals cover only the first ${seen.scanned}. Raise max_records (up to 10000) or narrow since/until.`,
    );
  }
  const totalSorted =
    input.sort?.startsWith("total") && new Set(matched.map((p) => p.currency.code)).size > 1;
  if (totalSorted)
    notes.push(
      "Amounts in different currencies are not comparable: sorted by currency, then amount. Add currency for one ranking.",
    );
  if (matched.length === 0)
    notes.push(
      seen.scanned === 0
        ? emptyHint(input)
        : `None of the ${seen.scanned} budgets scanned matches the filters.`,
    );
  return notes;
}

function unmappedNotes(currencies: readonly Currency[]): string[] {
  const names = new Set(currencies.filter((c) => !c.mapped).map((c) => c.code));
  return [...names].map(
    (n) => `Currency "${n}" has no ISO 4217 code: shown under that name, never added to another currency.`,
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

function emptyHint(input: BudgetsInput): string {
  const lookup =
    input.id !== undefined
      ? `folio ${input.id}`
      : input.wo_folio !== undefined
        ? `work order ${input.wo_folio}`
        : undefined;
  const dated = input.since !== undefined || input.until !== undefined;
  if (lookup) {
    // A filter beside the lookup may be what hid the budget: name it before blaming the number.
    const filters = LOOKUP_FILTERS.filter((k) => input[k] !== undefined);
    if (filters.length > 0) {
      return `No budget for ${lookup} matches ${filters.map((k) => `${k}=${JSON.stringify(input[k])}`).join(", ")}${dated ? ` in ${periodText(input)}` : ", at any date"}: drop ${filters.length === 1 ? "that filter" : "those filters"} to see every budget it has.`;
    }
    return dated
      ? `No budget for ${lookup} in ${periodText(input)}; drop since/until to search every date.`
      : `No budget for ${lookup}, at any date: check the number.`;
  }
  return dated
    ? `No budget matches in ${periodText(input)}: widen since/until, or change type_date or status.`
    : "No budget matches. The period defaults to the last 30 days of work-order creation: widen since/until, or change type_date or status.";
}

/** The text rendering: a head line, one line per record or summary row, then notes and paging. */
export function budgetsText(out: QueryBudgetsResult): string {
  const lines: string[] = [];
  const r = out.review;
  if (r) {
    lines.push(
      `Review of ${r.period}: scanned ${r.scanned}, matched ${r.matched}${r.capped ? " (capped by max_records: partial)" : ""}.`,
    );
  }
  if (out.view === "summary") {
    lines.push(`${plural(out.groups?.length ?? 0, "group")}, each in one currency${span(out.groups ?? [])}:`);
    if (out.groups && out.groups.length > 0) lines.push(groupHeader(out.groups));
    for (const g of out.groups ?? []) lines.push(groupLine(g));
  } else {
    lines.push(`${out.returned} of ${out.total} budget(s) from start=${out.start} (${out.view} view).`);
    const rendered = (out.budgets as WithLines)[LINES];
    out.budgets.forEach((b, i) => {
      lines.push(
        out.view === "compact" ? (rendered?.[i] ?? budgetLine(b as CompactBudget)) : JSON.stringify(b),
      );
    });
  }
  lines.push(...(out.notes ?? []));
  if (out.omitted > 0) {
    lines.push(`${out.omitted} more match but were not returned: continue with start=${out.next_start}.`);
  } else if (out.next_start !== null)
    lines.push(
      `More available: call again with start=${out.next_start}${out.review ? "" : " (or all=true)"}.`,
    );
  return lines.join("\n");
}

const KEYS = ["status", "cost_center", "third_party", "month", "work_order_status"] as const;

/** Oldest to newest creation date over all rows. */
function span(groups: SummaryRow[]): string {
  const oldest = groups.map((g) => g.oldest).sort()[0];
  const newest = groups
    .map((g) => g.newest)
    .sort()
    .at(-1);
  return oldest === undefined ? "" : `, created ${oldest}..${newest}`;
}

/** The column header of the summary table: the group keys, then the figures. */
function groupHeader(groups: SummaryRow[]): string {
  const keys = KEYS.filter((k) => groups.some((g) => k in g));
  const pending = groups.some((g) => g.oldest_pending_days !== undefined);
  return [...keys, "items_total", "count", ...(pending ? ["oldest pending (days)"] : [])].join(" | ");
}

/** One table row; each group's oldest and newest dates are in structuredContent (kept out of the text for size). */
function groupLine(g: SummaryRow): string {
  const keys = KEYS.filter((k) => k in g).map((k) => `${g[k] ?? "-"}`);
  const money = formatMoney(g.items_total, { code: g.currency, mapped: g.currency_unmapped !== true });
  const age = g.oldest_pending_days === undefined ? [] : [String(g.oldest_pending_days)];
  return [...keys, money, String(g.count), ...age].join(" | ");
}
