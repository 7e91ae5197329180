/**
 * A budget's date on the window's basis (interface.md §6d). The API filters on four dates, none of
 * them the budget's own: its `creation_date` is the work order's. `budget_created` is done here: the
 * API is sent the work orders' window (period.ts widens it by the lookback), and the review keeps the
 * budgets whose `date_create` is in the window asked for, through the normal paging. Months follow
 * the date asked for: the approval month with approval_date, the task's end with final_date, else the
 * budget's own creation month, and the result says whose month it is.
 */
import type { PricedBudget } from "./budget-view.js";
import { type MonthOf, NOTES, type Note } from "./notes.js";
import type { ResolvedPeriod, TypeDate } from "./period.js";

const PLAIN = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const ZONED = /^\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:\d{2})$/;

/** Epoch ms of an API timestamp (`2026-11-20T10:31:22.123+00:00`, `2026-11-20 10:31:22`; no offset is UTC). */
export function instantOf(value: string): number | undefined {
  // The API's usual form, "2026-11-20 10:31:22" (UTC), read without the general path's regular expressions.
  if (value.length === 19 && value[10] === " " && PLAIN.test(value)) {
    const ms = Date.parse(`${value.slice(0, 10)}T${value.slice(11)}Z`);
    return Number.isNaN(ms) ? undefined : ms;
  }
  // ISO with its zone ("2026-11-20T10:31:22.123000+00:00", "...Z"): Date.parse reads it as it is.
  if (value[10] === "T" && ZONED.test(value)) {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? undefined : ms;
  }
  const iso = value.trim().replace(" ", "T");
  const withZone = /T.*(?:Z|[+-]\d{2}(?::?\d{2})?)$/i.test(iso) || !iso.includes("T") ? iso : `${iso}Z`;
  const ms = Date.parse(withZone);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The budgets a window keeps beyond what the API filtered, and how many had no readable date. */
export interface BasisFilter {
  keep(p: PricedBudget): boolean;
  /** Budgets left out because their date_create could not be read. */
  readonly unreadable: number;
}

/**
 * budget_created: keep a budget whose date_create lies in [since, until] (until to the end of its
 * second, as the API's bounds are). Undefined for the API's own dates: the API already filtered.
 */
export function basisFilter(window: ResolvedPeriod): BasisFilter | undefined {
  const { period } = window;
  if (period.type_date !== "budget_created") return undefined;
  const since = period.since === null ? -Infinity : Date.parse(period.since);
  const until = period.until === null ? Infinity : Date.parse(period.until) + 999;
  const filter = {
    unreadable: 0,
    keep(p: PricedBudget): boolean {
      const at = instantOf(p.budget.date_create);
      if (at === undefined) {
        filter.unreadable += 1;
        return false;
      }
      return at >= since && at <= until;
    },
  };
  return filter;
}

/** Both predicates, or the first alone. */
export function alsoKeep(
  keep: (p: PricedBudget) => boolean,
  basis: BasisFilter | undefined,
): (p: PricedBudget) => boolean {
  return basis === undefined ? keep : (p) => keep(p) && basis.keep(p);
}

const monthText = (value: string | null | undefined) =>
  value !== null && value !== undefined && /^\d{4}-\d{2}/.test(value) ? value.slice(0, 7) : null;

/** The month a budget counts in under group_by "month", as the API wrote the date (null: no such date). */
export function monthOf(typeDate: TypeDate): (p: PricedBudget) => string | null {
  if (typeDate === "approval_date") return (p) => monthText(p.budget.approval_date);
  if (typeDate === "final_date") return (p) => monthText(p.budget.final_date);
  return (p) => monthText(p.budget.date_create);
}

const MONTH_WORDS: Record<TypeDate, { month_of: MonthOf; text: string }> = {
  approval_date: {
    month_of: "approval",
    text: "month: the month the budget was approved (approval_date); none when not approved.",
  },
  final_date: {
    month_of: "task_end",
    text: "month: the month the work order's task ends (final_date); none when it has no end date.",
  },
  creation_date: {
    month_of: "budget_created",
    text: "month: the month the budget was created (its date_create), not the work order's (the window's date).",
  },
  budget_created: {
    month_of: "budget_created",
    text: "month: the month the budget was created (its date_create), not the work order's.",
  },
  initial_date: {
    month_of: "budget_created",
    text: "month: the month the budget was created (its date_create): the budget record does not carry the task's initial date.",
  },
};

/** What a review on this basis says beside its figures: whose month, budgets with no readable date. */
export function basisNotes(
  groupBy: readonly string[] | undefined,
  window: ResolvedPeriod,
  filter: BasisFilter | undefined,
): Note[] {
  const type_date = window.period.type_date;
  const notes = groupBy?.includes("month")
    ? [NOTES.monthBasis({ type_date, ...MONTH_WORDS[type_date] })]
    : [];
  if (filter !== undefined && filter.unreadable > 0)
    notes.push(NOTES.datesUnreadable({ count: filter.unreadable }));
  return notes;
}
