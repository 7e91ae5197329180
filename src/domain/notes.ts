/**
 * Every note and warning a `query_budgets` result carries (interface.md §8b "The server's notes in
 * the user's language"): a stable snake_case `code`, the values its sentence needs (`params`:
 * numbers as numbers, currency codes, ISO dates), and the English `text` the text result prints for
 * the model. The view renders `code` + `params` from its own catalogue (en, es, pt) and falls back
 * to `text`. Codes are a contract with the view and with agents: add codes, never rename one.
 * docs/tools.md "Notes" lists them.
 */
import type { TypeDate } from "./period.js";

export type NoteParams = Readonly<Record<string, string | number>>;

/** One note of a result: what the view translates (`code`, `params`) and what the text prints. A type alias, not an interface, so it fits the loose output schema. */
export type Note = {
  code: NoteCode;
  text: string;
  params?: NoteParams;
};

export const NOTE_CODES = [
  // Records and paging.
  "result_cut_to_fit",
  "fields_cut",
  "start_past_end",
  "no_match_default_window",
  "no_match_window",
  "no_match_lookup",
  "no_match_lookup_window",
  "no_match_lookup_filters",
  "no_match_scanned",
  // Currencies and rankings.
  "currency_unmapped",
  "currency_filter_unknown",
  "mixed_currencies_sorted",
  // Statuses.
  "rejected_includes_cancelled",
  "cancelled_same_as_rejected",
  // Work orders (group_by work_order).
  "work_orders_repeated",
  "work_orders_none_repeated",
  // What the walk saw (the result is then incomplete).
  "api_total_changed",
  "page_repeated",
  "pages_overlapped",
  "page_short",
  "budgets_skipped",
  // The window's date basis.
  "month_basis",
  "dates_unreadable",
  // Partial results: the head line says these; structuredContent carries them for the view.
  "review_partial_deadline",
  "review_partial_rate_limited",
  "review_partial_failed",
  "review_capped",
  "groups_cut",
  // Bounds on the notes themselves.
  "notes_left_out",
  // Review history (interface.md §6e). history_none and changes_within_partial were reserved here
  // first; the history code (src/domain/review/remember.ts on main) emits the history_* codes below.
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

/**
 * Codes whose facts the text's head line already states: kept in structuredContent (the view
 * shows them in the user's language), not printed again in the text.
 */
export const SAID_IN_HEAD: ReadonlySet<NoteCode> = new Set<NoteCode>([
  "review_partial_deadline",
  "review_partial_rate_limited",
  "review_partial_failed",
  "review_capped",
  "groups_cut",
]);

function note(code: NoteCode, text: string, params?: NoteParams): Note {
  return params === undefined ? { code, text } : { code, text, params };
}

const budgets = (n: number) => `${n} budget${n === 1 ? "" : "s"}`;

/** How a lookup is named in words: "folio 104", "work order 4027". */
export type Lookup = { by: "folio" | "work_order"; value: string };
const lookupWords = (l: Lookup) => `${l.by === "folio" ? "folio" : "work order"} ${l.value}`;

/** What a grouping by month counts on (basis.ts): the approval, the task's end, or the budget's creation. */
export type MonthOf = "approval" | "task_end" | "budget_created";

/** One constructor per code: the English sentence and its parameters, built together. */
export const NOTES = {
  resultCutToFit: (p: { kept: number; next_start: number }) =>
    note(
      "result_cut_to_fit",
      `Cut after ${p.kept} records to stay within a host's 80,000-character result limit: continue with start=${p.next_start}.`,
      p,
    ),
  fieldsCut: (p: { records: number }) =>
    note(
      "fields_cut",
      `${p.records === 1 ? "1 record holds" : `${p.records} records hold`} upstream text longer than one result can carry: cut with "…" (its cut_fields name which); a host shows at most 80,000 characters.`,
      p,
    ),
  startPastEnd: (p: { start: number; total: number }) =>
    note(
      "start_past_end",
      `Nothing from start=${p.start}: ${budgets(p.total)} match; use a start below ${p.total}.`,
      p,
    ),
  noMatchDefaultWindow: () =>
    note(
      "no_match_default_window",
      'The window is the default (the last 30 days of work-order creation): widen it with since (e.g. "P90D" or "all"), or change type_date or status.',
    ),
  noMatchWindow: () =>
    note("no_match_window", 'Widen the window (since "all" is every date), or change type_date or status.'),
  noMatchLookup: (p: Lookup) =>
    note("no_match_lookup", `No budget for ${lookupWords(p)}, at any date: check the number.`, p),
  noMatchLookupWindow: (p: Lookup) =>
    note(
      "no_match_lookup_window",
      `No budget for ${lookupWords(p)} in this window; drop since/until to search every date.`,
      p,
    ),
  /** `filters`: the filters beside the lookup as sent (`status="pending", currency=["USD"]`), `count` of them. */
  noMatchLookupFilters: (p: Lookup & { filters: string; count: number; scope: "window" | "any_date" }) =>
    note(
      "no_match_lookup_filters",
      `No budget for ${lookupWords(p)} matches ${p.filters}${p.scope === "window" ? " in this window" : ", at any date"}: drop ${p.count === 1 ? "that filter" : "those filters"} to see every budget it has.`,
      p,
    ),
  noMatchScanned: (p: { scanned: number }) =>
    note("no_match_scanned", `None of the ${p.scanned} budgets scanned matches the filters.`, p),

  /** `name`: the API's currency description, shown quoted in the text. */
  currencyUnmapped: (p: { name: string; quoted: string }) =>
    note(
      "currency_unmapped",
      `Currency ${p.quoted} has no ISO 4217 code: shown under that name, never added to another currency.`,
      { name: p.name },
    ),
  currencyFilterUnknown: (p: { currency: string; quoted: string }) =>
    note(
      "currency_filter_unknown",
      `currency ${p.quoted} is no ISO 4217 code or currency name known to Intl: matched by name as written only.`,
      { currency: p.currency },
    ),
  /** A total sort over several currencies: ranked within each, `per_currency` of each shown. */
  mixedCurrenciesSorted: (p: { currencies: number; per_currency: number }) =>
    note(
      "mixed_currencies_sorted",
      `Ranked within each of the ${p.currencies} currencies (up to ${p.per_currency} of each, with each currency's count): amounts in different currencies are never compared. Add currency for one ranking.`,
      p,
    ),

  rejectedIncludesCancelled: () =>
    note(
      "rejected_includes_cancelled",
      "rejected: the platform records cancelled budgets the same way (one status); a rejected budget's approval_date is the date it was decided.",
    ),
  cancelledSameAsRejected: () =>
    note(
      "cancelled_same_as_rejected",
      'status "cancelled" is the same filter as "rejected": the platform records both as one status, so this is the same set.',
    ),

  /** `count` work orders with more than one budget, `budgets` budgets on them, `shown` listed in repeated_work_orders. */
  workOrdersRepeated: (p: { count: number; budgets: number; shown: number }) =>
    note(
      "work_orders_repeated",
      `${p.count} work order${p.count === 1 ? " has" : "s have"} more than one budget (${p.budgets} budgets between them)${p.shown < p.count ? `; the ${p.shown} with the most budgets are listed` : ""} (repeated_work_orders), the most budgets first:`,
      p,
    ),
  workOrdersNoneRepeated: (p: { work_orders: number }) =>
    note(
      "work_orders_none_repeated",
      `No work order has more than one budget (${p.work_orders} work order${p.work_orders === 1 ? "" : "s"}).`,
      p,
    ),

  apiTotalChanged: (p: { before: number; after: number; start: number }) =>
    note(
      "api_total_changed",
      `The API's total changed during the walk (${p.before}, then ${p.after} at start=${p.start}): budgets were added or removed meanwhile.`,
      p,
    ),
  pageRepeated: (p: { start: number }) =>
    note(
      "page_repeated",
      `The API answered start=${p.start} with budgets already read (it may ignore start): the walk stopped there.`,
      p,
    ),
  pagesOverlapped: (p: { repeated: number }) =>
    note(
      "pages_overlapped",
      `Pages overlapped: ${p.repeated} budget(s) came more than once (counted once), so others may never have been sent.`,
      p,
    ),
  pageShort: (p: { start: number; got: number; due: number; api_total: number }) =>
    note(
      "page_short",
      `The page at start=${p.start} had ${p.got} budget(s) where ${p.due} were due (the API's total is ${p.api_total}).`,
      p,
    ),
  /** `listed`: "folio 104 (reason); ..." as the text shows it; `folios`: the folios alone, comma-separated. */
  budgetsSkipped: (p: { count: number; folios: string; listed: string; more: boolean }) =>
    note(
      "budgets_skipped",
      `${budgets(p.count)} left out for amounts that are no money (not finite, or beyond ±10^15): ${p.listed}${p.more ? "; ..." : ""}.`,
      { count: p.count, folios: p.folios },
    ),

  monthBasis: (p: { type_date: TypeDate; month_of: MonthOf; text: string }) =>
    note("month_basis", p.text, { type_date: p.type_date, month_of: p.month_of }),
  datesUnreadable: (p: { count: number }) =>
    note(
      "dates_unreadable",
      `${p.count} budget(s) left out: their date_create is not a date, so the window cannot place them.`,
      p,
    ),

  /** `read` distinct budgets before the deadline, of `api_total` (omitted when unknown). */
  reviewPartialDeadline: (p: { read: number; api_total?: number; deadline_ms: number }) =>
    note(
      "review_partial_deadline",
      `The review stopped at the call's deadline (${p.deadline_ms} ms) after ${p.read}${p.api_total === undefined ? "" : ` of ${p.api_total}`} budgets.`,
      p,
    ),
  reviewPartialRateLimited: (p: { read: number; api_total?: number; reset_at: string }) =>
    note(
      "review_partial_rate_limited",
      `The review stopped at the upstream's rate limit (it resets at ${p.reset_at}) after ${p.read}${p.api_total === undefined ? "" : ` of ${p.api_total}`} budgets.`,
      p,
    ),
  reviewPartialFailed: (p: { read: number; api_total?: number; error: string }) =>
    note(
      "review_partial_failed",
      `The review stopped at an upstream failure (${p.error}) after ${p.read}${p.api_total === undefined ? "" : ` of ${p.api_total}`} budgets.`,
      p,
    ),
  reviewCapped: (p: { scanned: number; api_total?: number; max_records: number }) =>
    note(
      "review_capped",
      `max_records=${p.max_records} stopped the review after ${p.scanned}${p.api_total === undefined ? "" : ` of ${p.api_total}`} budgets.`,
      p,
    ),
  groupsCut: (p: { shown: number; groups: number }) =>
    note(
      "groups_cut",
      `${p.shown} of ${p.groups} groups shown (the largest of each currency) to fit one result: narrow with fewer group_by keys or a filter.`,
      p,
    ),

  notesLeftOut: (p: { count: number }) =>
    note("notes_left_out", `(${p.count} more notes left out to fit.)`, p),

  historyNone: () =>
    note("history_none", "No earlier review of these filters is stored; this one is, for next time."),
  historyUnreadable: () => note("history_unreadable", "History unreadable: not compared."),
  changesWithinPartial: () =>
    note(
      "changes_within_partial",
      "One of the two reviews is partial: the changes are within what both read.",
    ),
} as const;

/** Codes the text prints where they belong (the lead of the list they count), not with the notes. */
export const PRINTED_IN_PLACE: ReadonlySet<NoteCode> = new Set<NoteCode>(["work_orders_repeated"]);

/** The notes a text result prints at its end: every one but those said in the head line or in place. */
export const printedNotes = (notes: readonly Note[] | undefined): string[] =>
  (notes ?? []).filter((n) => !SAID_IN_HEAD.has(n.code) && !PRINTED_IN_PLACE.has(n.code)).map((n) => n.text);
