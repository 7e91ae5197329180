/** The server's notes in English, for a person rather than the agent: no argument names, no paging syntax. */
import type { NoteCode } from "../contract.js";
import type { NoteMessage, Say } from "./catalogue.js";

export const notesEn = (say: Say): Record<NoteCode, NoteMessage> => {
  const budgets = (n: string | number) => say.count(Number(n), { one: "# budget", other: "# budgets" });
  const of = (p: Readonly<Record<string, string>>, v: Readonly<Record<string, unknown>>, read: string) =>
    !("api_total" in v) ? budgets(v[read] as number) : `${p[read]} of ${budgets(v.api_total as number)}`;
  const lookup = (p: Readonly<Record<string, string>>, v: Readonly<Record<string, unknown>>) =>
    `${v.by === "work_order" ? "work order" : "folio"} ${p.value}`;
  return {
    result_cut_to_fit: (p) =>
      `Only the first ${p.kept} budgets fit in one result; the next call goes on from budget ${p.next_start}.`,
    fields_cut: (_p, v) =>
      say.count(v.records as number, {
        one: "# budget holds text from the platform too long to show whole: it is cut with “…”.",
        other: "# budgets hold text from the platform too long to show whole: it is cut with “…”.",
      }),
    start_past_end: (_p, v) => `This page starts past the last budget: ${budgets(v.total!)} match.`,
    no_match_default_window: () =>
      "The window is the default, the last 30 days: choose a longer period, or another status.",
    no_match_window: () => "Choose a longer period (every date), or another status.",
    no_match_lookup: (p, v) => `No budget for ${lookup(p, v)}, at any date: check the number.`,
    no_match_lookup_window: (p, v) =>
      `No budget for ${lookup(p, v)} in this window; it may have one at another date.`,
    no_match_lookup_filters: (p, v) =>
      `No budget for ${lookup(p, v)} matches ${p.filters}${v.scope === "window" ? " in this window" : ", at any date"}.`,
    no_match_scanned: (_p, v) => `None of the ${budgets(v.scanned!)} read matches the filters.`,
    currency_unmapped: (p) =>
      `The currency ${p.name} has no ISO 4217 code: shown under that name, never added to another currency.`,
    currency_filter_unknown: (p) =>
      `The currency ${p.currency} is no ISO 4217 code or known currency name: matched by name as written.`,
    mixed_currencies_sorted: (p, v) =>
      `Ranked within each currency (${say.count(v.currencies as number, { one: "# currency", other: "# currencies" })}, up to ${p.per_currency} largest of each): amounts in different currencies are never compared.`,
    rejected_includes_cancelled: () =>
      "Rejected includes cancelled budgets: the platform records both as one status. A rejected budget's decision date is the date it was decided.",
    cancelled_same_as_rejected: () =>
      "Cancelled is the same set as rejected: the platform records both as one status.",
    work_orders_repeated: (p, v) =>
      `${say.count(v.count as number, { one: "# work order has", other: "# work orders have" })} more than one budget (${budgets(v.budgets!)} between them)${Number(v.shown) < Number(v.count) ? `; the ${p.shown} with the most budgets are listed` : ""}.`,
    work_orders_none_repeated: (_p, v) =>
      `No work order has more than one budget (${say.count(v.work_orders as number, { one: "# work order", other: "# work orders" })}).`,
    api_total_changed: (p) =>
      `The platform's count changed while the budgets were read (${p.first}, then ${p.then}): budgets were added or removed meanwhile.`,
    page_repeated: () => "The platform sent budgets already read: the reading stopped there.",
    pages_overlapped: (_p, v) =>
      `${budgets(v.repeated!)} came more than once (counted once), so others may never have been sent.`,
    page_short: (p) =>
      `One page had ${p.got} budgets where ${p.due} were due (the platform counts ${p.api_total}).`,
    budgets_skipped: (p, v) =>
      `${budgets(v.count!)} left out: their amounts are no money (folios ${p.folios}).`,
    month_basis: (_p, v) =>
      `Months are those of ${v.month_of === "approval" ? "the budget's decision" : v.month_of === "task_end" ? "the task's end" : "the budget's creation"}.`,
    dates_unreadable: (_p, v) => `${budgets(v.count!)} left out: their creation date is not a date.`,
    review_partial_deadline: (p, v) =>
      `The review stopped at the call's time limit after ${of(p, v, "read")}.`,
    review_partial_rate_limited: (p, v) =>
      `The review stopped at the platform's rate limit (it resets at ${p.reset_at}) after ${of(p, v, "read")}.`,
    review_partial_failed: (p, v) =>
      `The review stopped at a platform failure (${p.error}) after ${of(p, v, "read")}.`,
    review_capped: (p, v) =>
      `The review stopped at its limit of ${p.max_records} budgets, after ${of(p, v, "scanned")}.`,
    groups_cut: (p) =>
      `${p.shown} of ${p.groups} groups shown (the largest of each currency) to fit one result.`,
    notes_left_out: (_p, v) =>
      say.count(v.count as number, { one: "(# more note left out.)", other: "(# more notes left out.)" }),
    history_none: () => "No earlier review of these filters is stored; this one is, for next time.",
    history_unreadable: () => "The stored history could not be read: not compared.",
    changes_within_partial: () => "One of the two reviews is partial: the changes are within what both read.",
    history_first_review: () =>
      "Nothing read earlier is kept to compare with; this review is kept for next time.",
    history_off: (p) => `Not compared: review history is off (${p.reason}).`,
    history_unavailable: (p) => `The review history could not be used this time (${p.reason}).`,
    history_partial: (_p, v) =>
      `${v.partial === "this" ? "This review" : "The earlier review"} is partial: budgets that left it are not known.`,
    history_not_stored: () => "This review could not be kept in the history this time.",
  };
};
