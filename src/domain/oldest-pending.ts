/**
 * The single oldest pending budget of a review (interface.md §6d), besides the oldest per group: fed
 * one match at a time while pages stream, it keeps the pending budgets of the earliest day, so the
 * result names the oldest by its time and the others of that day beside it (interface.md §6g): "which
 * budget has waited longest?" needs no second call, and a tie of one day no detail call.
 */
import { daysSince } from "./age.js";
import { instantOf } from "./basis.js";
import { day, type PricedBudget } from "./budget-view.js";
import { shown } from "./upstream-text.js";

/** A type alias, not an interface, so it fits the loose output schema. */
export type OldestPending = {
  folio: string;
  wo_folio: string | null;
  date_create: string;
  /** date_create to the second, UTC (`2026-03-19T08:14:22Z`): which of one day's budgets is older. */
  created_at: string;
  /** Whole UTC days since date_create, at today. */
  age_days: number;
  /** The row of a summary it counts in (group key → value, currency included). */
  group?: Record<string, string | null>;
  /** Other pending budgets created the same day, oldest first (the first few; `same_day_count` in all). */
  same_day?: { folio: string; wo_folio: string | null; created_at: string }[];
  same_day_count?: number;
};

type Seen = { p: PricedBudget; seq: number; at: number };

/** The most budgets of the oldest day a result names besides the oldest. */
const SAME_DAY_SHOWN = 3;

/** `2026-03-19T08:14:22Z`, or the API's text when it is not a readable instant. */
const secondOf = (at: number, text: string) =>
  Number.isFinite(at) ? `${new Date(at).toISOString().slice(0, 19)}Z` : text;

export class OldestPendingTracker {
  /** The pending budgets of the earliest day seen (the day as the API wrote it). */
  #day: string | undefined;
  #ofDay: Seen[] = [];

  /** Count one matching budget; only a pending one (status 1) can be the oldest. */
  add(p: PricedBudget, seq: number): void {
    if (p.budget.status !== 1) return;
    const d = day(p.budget.date_create)!;
    if (this.#day !== undefined && d > this.#day) return;
    // The instant is read only for a budget of the earliest day so far (the many later ones need none).
    const seen = { p, seq, at: instantOf(p.budget.date_create) ?? Number.NaN };
    if (this.#day === undefined || d < this.#day) {
      this.#day = d;
      this.#ofDay = [seen];
    } else this.#ofDay.push(seen);
  }

  /** The oldest pending budget, with its group when a summary says which; undefined when none is pending. */
  result(now: Date, groupOf?: (p: PricedBudget) => Record<string, string | null>): OldestPending | undefined {
    // Older by the instant; the same instant (or none readable) keeps the API's order.
    const sorted = this.#ofDay.toSorted(
      (a, b) => (Number.isFinite(a.at) && Number.isFinite(b.at) ? a.at - b.at : 0) || a.seq - b.seq,
    );
    const first = sorted[0];
    if (first === undefined) return undefined;
    const { budget: b } = first.p;
    const others = sorted.slice(1);
    return {
      folio: b.folio,
      wo_folio: b.wo_folio,
      date_create: day(b.date_create)!,
      created_at: secondOf(first.at, b.date_create),
      age_days: Math.max(0, daysSince(b.date_create, now) ?? 0),
      ...(groupOf ? { group: groupOf(first.p) } : {}),
      ...(others.length > 0
        ? {
            same_day: others.slice(0, SAME_DAY_SHOWN).map((o) => ({
              folio: o.p.budget.folio,
              wo_folio: o.p.budget.wo_folio,
              created_at: secondOf(o.at, o.p.budget.date_create),
            })),
            same_day_count: others.length,
          }
        : {}),
    };
  }
}

/**
 * "Oldest pending budget overall: folio 131 (work order 4027), created 2026-10-29T08:14:22Z, 28 days
 * ago; its group: ...; created the same day, later: folio 140 (work order 4030) at 15:02:11Z".
 * `scope` says among what: "overall" (every group of a summary), "of the 29 matches".
 */
export function oldestPendingLine(o: OldestPending, scope: string): string {
  const group = o.group
    ? `; its group: ${Object.entries(o.group)
        .map(([k, v]) => `${k} ${shown(v)}`)
        .join(", ")}`
    : "";
  const created = o.created_at ?? o.date_create;
  return `Oldest pending budget ${scope}: folio ${shown(o.folio)} (work order ${shown(o.wo_folio)}), created ${shown(created)}, ${o.age_days} day${o.age_days === 1 ? "" : "s"} ago${group}${sameDay(o)}.`;
}

function sameDay(o: OldestPending): string {
  const list = o.same_day ?? [];
  if (list.length === 0) return "";
  const time = (at: string) => (at.slice(0, 10) === o.created_at.slice(0, 10) ? at.slice(11) : at);
  // The same second is no "later": the API's order is all that puts the named one first.
  const named = list.map(
    (s) =>
      `folio ${shown(s.folio)} (work order ${shown(s.wo_folio)}) at ${shown(time(s.created_at))}${s.created_at === o.created_at ? " (the same second; the API lists it after)" : ""}`,
  );
  const more = (o.same_day_count ?? list.length) - list.length;
  return `; created the same day, later: ${named.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}
