/**
 * The view's one reading of `query_budgets` (interface.md §6, 6b, 8): what a result's
 * `structuredContent` holds, turned into the plain model that render.ts draws, and the
 * arguments the controls send back. Every field name of the tool lives here and nowhere else,
 * so a change of the result's shape is one edit. Never reads the result's text.
 */
import { type Changes, readChanges } from "./changes.js";
import { type Decimal, decimal, plus } from "./decimal.js";

/** The group keys query_budgets accepts, in the order the group control offers them. */
export const GROUP_KEYS = [
  "currency",
  "status",
  "cost_center",
  "third_party",
  "month",
  "work_order_status",
  "age",
] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];

export const AGE_BUCKETS = ["0-7", "8-30", "31-60", "61-90", "over 90"] as const;
export type AgeBucket = (typeof AGE_BUCKETS)[number];

/**
 * Why a result covers less than its window: the scan hit max_records; a list holds only part of
 * its matches; the server stopped early and hands a `resume` token; or another reason its notes give
 * (e.g. groups kept to the largest).
 */
export type PartialReason = "capped" | "list" | "resumable" | "see-notes";

/**
 * The codes of the server's notes the view words itself (interface.md §8b); any other code, or a
 * note in the old plain-string form, shows the server's English `text`. The server's list is
 * src/domain/notes.ts (test/unit/ui-notes.test.ts keeps the two the same).
 */
export const NOTE_CODES = [
  "result_cut_to_fit",
  "fields_cut",
  "start_past_end",
  "no_match_default_window",
  "no_match_window",
  "no_match_lookup",
  "no_match_lookup_window",
  "no_match_lookup_filters",
  "no_match_scanned",
  "currency_unmapped",
  "currency_filter_unknown",
  "mixed_currencies_sorted",
  "rejected_includes_cancelled",
  "cancelled_same_as_rejected",
  "work_orders_repeated",
  "work_orders_none_repeated",
  "api_total_changed",
  "page_repeated",
  "pages_overlapped",
  "page_short",
  "budgets_skipped",
  "month_basis",
  "dates_unreadable",
  "review_partial_deadline",
  "review_partial_rate_limited",
  "review_partial_failed",
  "review_capped",
  "groups_cut",
  "notes_left_out",
  "history_none",
  "history_unreadable",
  "changes_within_partial",
  "history_first_review",
  "history_off",
  "history_unavailable",
  "history_partial",
  "history_not_stored",
] as const;
export type NoteCode = (typeof NOTE_CODES)[number];

/** A note of the result: its code and values when the server sends them, and its English sentence. */
export interface Note {
  code?: string;
  text: string;
  params: Readonly<Record<string, string | number>>;
}

export interface Period {
  /** ISO 8601 instants (UTC), when the result states them. */
  since?: string;
  until?: string;
  typeDate?: string;
  isDefault?: boolean;
  /** The period as the result words it, when it gives no instants. */
  text?: string;
}

export interface Bar {
  /** The group key's value; null when the budgets have none (e.g. no cost center). */
  label: string | null;
  count: number;
  total: number;
}

/** One currency's figures: never added to, or drawn on one axis with, another currency. */
export interface CurrencyFigures {
  currency: string;
  /** False when `currency` is the upstream's name for a currency with no ISO 4217 code. */
  mapped: boolean;
  count: number;
  total: number;
  /** Days the oldest pending budget has waited, when the result says. */
  oldestPendingDays?: number;
}

export interface CurrencyChart {
  currency: string;
  mapped: boolean;
  bars: Bar[];
}

export interface AgeChart {
  currency: string;
  mapped: boolean;
  buckets: { age: AgeBucket; count: number; total: number }[];
}

export interface BudgetRow {
  folio: string;
  workOrder: string | null;
  thirdParty: string | null;
  status: string | null;
  created: string | null;
  currency: string;
  mapped: boolean;
  total: number;
}

export interface Review {
  kind: "review" | "list";
  sandbox: boolean;
  period: Period;
  /** YYYY-MM-DD, when the result says. */
  today?: string;
  scanned?: number;
  matched?: number;
  complete: boolean;
  /** Why the result is partial (undefined when complete). */
  partial?: PartialReason;
  /** When the server read the budgets this result comes from (its snapshot), an ISO instant. */
  asOf?: string;
  /** The token that continues a partial review (`resume`), opaque to the view. */
  resume?: string;
  notes: Note[];
  /** The key the charts are drawn by: the first group key that is not currency. */
  groupKey?: GroupKey;
  totals: CurrencyFigures[];
  charts: CurrencyChart[];
  age: AgeChart[];
  /**
   * A list's records by currency, largest first; `matched`: the currency's matches, when the result
   * ranks each currency on its own (`rankings`, interface.md §8b), whose order the currencies follow.
   */
  largest: { currency: string; mapped: boolean; rows: BudgetRow[]; total: number; matched?: number }[];
  returned?: number;
  total?: number;
  nextStart?: number | null;
  /** What changed since the review compare_to named (interface.md §6e). */
  changes?: Changes;
}

type Json = Record<string, unknown>;

const withChanges = (sc: unknown) => {
  const changes = readChanges(sc);
  return changes ? { changes } : {};
};

const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** A `query_budgets` result, or why this is none. */
export function readResult(structured: unknown): Review | { problem: "no-budget-data" } {
  if (!isObject(structured) || !Array.isArray(structured.budgets)) return { problem: "no-budget-data" };
  const sc = structured;
  const review = isObject(sc.review) ? sc.review : undefined;
  const groups = Array.isArray(sc.groups) ? list(sc.groups) : undefined;
  const notes = Array.isArray(sc.notes) ? sc.notes.flatMap(noteOf) : [];
  const asOf = str(sc.as_of);
  const resume = str(sc.resume);
  const base = {
    sandbox: sc.sandbox === true,
    period: periodOf(sc, review),
    ...(str(sc.today) ? { today: str(sc.today) } : {}),
    ...(review ? { scanned: num(review.scanned), matched: num(review.matched) } : {}),
    notes,
    // Read defensively (interface.md §6c): an absent or unreadable field means no as-of line, no button.
    ...(asOf !== undefined && !Number.isNaN(Date.parse(asOf)) ? { asOf } : {}),
    ...(resume && sc.complete === false ? { resume } : {}),
    ...withChanges(sc),
  };
  const why = (fallback: PartialReason): PartialReason =>
    base.resume ? "resumable" : review?.capped === true ? "capped" : fallback;
  if (groups) {
    const capped = review?.capped === true;
    const complete = typeof sc.complete === "boolean" ? sc.complete : !capped;
    // Rows carry their keys in the order the call gave them, currency last.
    const groupKey = Object.keys(groups[0] ?? {}).find(
      (k): k is GroupKey => k !== "currency" && (GROUP_KEYS as readonly string[]).includes(k),
    );
    return {
      ...base,
      kind: "review",
      complete,
      ...(complete ? {} : { partial: why("see-notes") }),
      ...(groupKey ? { groupKey } : {}),
      totals: totalsOf(groups),
      charts: groupKey ? chartsOf(groups, groupKey) : [],
      age: groupKey === "age" && onlyPending(sc, review) ? [] : ageOf(sc),
      largest: [],
    };
  }
  const returned = num(sc.returned) ?? 0;
  const total = num(sc.total) ?? returned;
  const nextStart = num(sc.next_start) ?? null;
  const complete =
    typeof sc.complete === "boolean"
      ? sc.complete
      : nextStart === null && (num(sc.omitted) ?? 0) === 0 && review?.capped !== true;
  return {
    ...base,
    kind: "list",
    complete,
    ...(complete ? {} : { partial: why("list") }),
    totals: [],
    charts: [],
    age: [],
    largest: largestOf(list(sc.budgets), list(sc.rankings)),
    returned,
    total,
    nextStart,
  };
}

/** A note as the server sends it: `{code, text, params}`, or a plain sentence (servers before §8b). */
function noteOf(raw: unknown): Note[] {
  if (typeof raw === "string") return [{ text: raw, params: {} }];
  if (!isObject(raw) || typeof raw.text !== "string") return [];
  const params = Object.fromEntries(
    Object.entries(isObject(raw.params) ? raw.params : {}).filter(
      (e): e is [string, string | number] =>
        typeof e[1] === "string" || (typeof e[1] === "number" && Number.isFinite(e[1])),
    ),
  );
  return [{ ...(typeof raw.code === "string" ? { code: raw.code } : {}), text: raw.text, params }];
}

function periodOf(sc: Json, review: Json | undefined): Period {
  if (isObject(sc.period)) {
    const p = sc.period;
    return {
      ...(str(p.since) ? { since: str(p.since) } : {}),
      ...(str(p.until) ? { until: str(p.until) } : {}),
      ...(str(p.type_date) ? { typeDate: str(p.type_date) } : {}),
      ...(typeof p.default === "boolean" ? { isDefault: p.default } : {}),
    };
  }
  const text = str(review?.period);
  return text ? { text } : {};
}

const currencyOf = (row: Json) => ({
  currency: str(row.currency) ?? "unknown",
  mapped: row.currency_unmapped !== true,
});

/** Per currency: budgets and items_total over every group row, summed exactly; currencies in code order. */
function totalsOf(groups: Json[]): CurrencyFigures[] {
  const by = new Map<string, { mapped: boolean; count: number; total: Decimal; oldest?: number }>();
  for (const g of groups) {
    const { currency, mapped } = currencyOf(g);
    const t = by.get(currency) ?? { mapped, count: 0, total: decimal(0) };
    t.count += num(g.count) ?? 0;
    t.total = plus(t.total, decimal(num(g.items_total) ?? 0));
    const days = num(g.oldest_pending_days);
    if (days !== undefined) t.oldest = Math.max(t.oldest ?? days, days);
    by.set(currency, t);
  }
  return [...by.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, t]) => ({
      currency,
      mapped: t.mapped,
      count: t.count,
      total: t.total.value(),
      ...(t.oldest === undefined ? {} : { oldestPendingDays: t.oldest }),
    }));
}

/** One chart per currency: items_total by `key`, rows in the result's order (several rows of one value, e.g. under a second key, added up exactly). */
function chartsOf(groups: Json[], key: GroupKey): CurrencyChart[] {
  const charts = new Map<
    string,
    { mapped: boolean; bars: Map<string, { label: string | null; count: number; total: Decimal }> }
  >();
  for (const g of groups) {
    const { currency, mapped } = currencyOf(g);
    const chart = charts.get(currency) ?? { mapped, bars: new Map() };
    const value = g[key];
    const label = typeof value === "string" || typeof value === "number" ? String(value) : null;
    const id = JSON.stringify(label);
    const bar = chart.bars.get(id) ?? { label, count: 0, total: decimal(0) };
    bar.count += num(g.count) ?? 0;
    bar.total = plus(bar.total, decimal(num(g.items_total) ?? 0));
    chart.bars.set(id, bar);
    charts.set(currency, chart);
  }
  return [...charts.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, c]) => ({
      currency,
      mapped: c.mapped,
      bars: [...c.bars.values()].map((b) => ({ label: b.label, count: b.count, total: b.total.value() })),
    }));
}

/** Whether every match is pending (the pending queue then repeats a chart by age). */
function onlyPending(sc: Json, review: Json | undefined): boolean {
  const pending = list(sc.pending_age)
    .flatMap((e) => list(e.buckets))
    .reduce((n, b) => n + (num(b.count) ?? 0), 0);
  return pending > 0 && pending === num(review?.matched);
}

/** The pending queue by age per currency (`pending_age`), buckets in age order. */
function ageOf(sc: Json): AgeChart[] {
  return list(sc.pending_age).map((entry) => ({
    ...currencyOf(entry),
    buckets: AGE_BUCKETS.map((age) => {
      const b = list(entry.buckets).find((x) => x.age === age);
      return { age, count: num(b?.count) ?? 0, total: num(b?.items_total) ?? 0 };
    }),
  }));
}

/**
 * A list's records per currency, each currency's largest first; the currencies in the order of the
 * result's `rankings` (each with its number of matches) when it ranks per currency, else in code order.
 */
function largestOf(budgets: Json[], rankings: Json[]): Review["largest"] {
  const by = new Map<string, { mapped: boolean; rows: BudgetRow[]; total: Decimal }>();
  for (const b of budgets) {
    const { currency, mapped } = currencyOf(b);
    const total = num(b.items_total);
    if (total === undefined) continue;
    const entry = by.get(currency) ?? { mapped, rows: [], total: decimal(0) };
    entry.rows.push({
      folio: String(b.folio ?? "?"),
      workOrder: str(b.wo_folio) ?? null,
      thirdParty: str(b.third_party) ?? str(b.third_parties_name) ?? null,
      status: str(b.status_label) ?? null,
      created: str(b.date_create)?.slice(0, 10) ?? null,
      currency,
      mapped,
      total,
    });
    entry.total = plus(entry.total, decimal(total));
    by.set(currency, entry);
  }
  const ranked = new Map(
    rankings.map((r, i) => [str(r.currency) ?? "unknown", { i, matched: num(r.matched) }]),
  );
  const rank = (c: string) => ranked.get(c)?.i ?? ranked.size;
  return [...by.entries()]
    .sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, e]) => {
      const matched = ranked.get(currency)?.matched;
      return {
        currency,
        mapped: e.mapped,
        rows: e.rows.sort((a, b) => b.total - a.total),
        total: e.total.value(),
        ...(matched === undefined ? {} : { matched }),
      };
    });
}

// ---------------------------------------------------------------------------------------------
// Arguments: what the controls send back through the host.

export type StatusChoice = "" | "pending" | "approved" | "rejected";
/** Days back from today, "all" dates, or "current": the window of the result on screen. */
export type PeriodChoice = "7" | "30" | "90" | "365" | "all" | "current";
/** A group key, or "" for the largest budgets (a list sorted by items_total). */
export type GroupChoice = GroupKey | "";

export interface Choices {
  status: StatusChoice;
  period: PeriodChoice;
  group: GroupChoice;
}

const STATUS_NAMES: Record<string, StatusChoice> = {
  pending: "pending",
  "1": "pending",
  approved: "approved",
  "2": "approved",
  rejected: "rejected",
  cancelled: "rejected",
  "3": "rejected",
};

/** The controls' state for a call's arguments. */
export function choicesOf(args: Json): Choices {
  const status = STATUS_NAMES[String(args.status ?? "")] ?? "";
  const groupBy = Array.isArray(args.group_by) ? args.group_by.filter((k) => typeof k === "string") : [];
  const first = groupBy.find((k) => k !== "currency") ?? groupBy[0];
  const group = (GROUP_KEYS as readonly string[]).includes(first ?? "") ? (first as GroupKey) : "";
  return { status, period: periodChoiceOf(args.since, args.until), group };
}

function periodChoiceOf(since: unknown, until: unknown): PeriodChoice {
  if (until !== undefined && until !== "now") return "current";
  if (since === undefined) return until === undefined ? "30" : "current";
  if (since === "P30D") return "30";
  const known = Object.entries(SINCE).find(([, form]) => form === since);
  return known ? (known[0] as PeriodChoice) : "current";
}

/** `since` forms the period control sends and recognises (interface.md §6b: durations back from now, "all"). */
const SINCE: Record<Exclude<PeriodChoice, "30" | "current">, string> = {
  "7": "P7D",
  "90": "P90D",
  "365": "P365D",
  all: "all",
};

/** One of the call's filters the head names: a labelled argument, or a bound on an amount field. */
export type Filter =
  | { key: "currency" | "cost_center" | "third_party" | "id" | "wo_folio"; value: string }
  | { bound: "≥" | "≤"; field: "items_total" | "net_total"; value: string };

/** The call's filters the controls keep (currency, cost center, third party, bounds, folio, work order). */
export function filtersOf(args: Json): Filter[] {
  const words = (v: unknown) => (Array.isArray(v) ? v.map(String).join(", ") : String(v));
  const field = args.amount === "net" ? "net_total" : "items_total";
  const out: Filter[] = [];
  for (const key of ["currency", "cost_center", "third_party"] as const) {
    if (args[key] !== undefined) out.push({ key, value: words(args[key]) });
  }
  if (args.min_total !== undefined) out.push({ bound: "≥", field, value: words(args.min_total) });
  if (args.max_total !== undefined) out.push({ bound: "≤", field, value: words(args.max_total) });
  for (const key of ["id", "wo_folio"] as const) {
    if (args[key] !== undefined) out.push({ key, value: words(args[key]) });
  }
  return out;
}

/** The call without the arguments that belong to one call only: a resume token, a forced fresh read. */
export function standingArguments(args: Json): Json {
  const { resume: _r, fresh: _f, ...kept } = args;
  return kept;
}

/** "Continue the review": the same call with the partial result's token (interface.md §6c). */
export function resumeArguments(args: Json, token: string): Json {
  return { ...standingArguments(args), resume: token };
}

/** "Read again": the same call, read upstream rather than from the server's snapshot. */
export function freshArguments(args: Json): Json {
  return { ...standingArguments(args), fresh: true };
}

/**
 * The arguments for `choices`, from the call the view shows: its other filters (currency, cost
 * center, third party, bounds, type_date, amount) stay; status, period and grouping follow the
 * controls. A period is sent as the server resolves it (a duration back from now, or "all").
 */
export function argumentsFor(previous: Json, choices: Choices): Json {
  const {
    status: _s,
    group_by: _g,
    sort: _o,
    start: _st,
    limit: _l,
    all: _a,
    view: _v,
    ...kept
  } = standingArguments(previous);
  const args: Json = { ...kept };
  if (choices.status !== "") args.status = choices.status;
  if (choices.period !== "current") {
    delete args.since;
    delete args.until;
    // "30" is the API's default window: no since, so the result says it is the default.
    if (choices.period !== "30") args.since = SINCE[choices.period];
  }
  if (choices.group === "") {
    // The largest budgets: every match of the window, sorted, as many as one result carries.
    args.sort = "total_desc";
    args.all = true;
  } else {
    args.group_by = [choices.group];
  }
  return args;
}
