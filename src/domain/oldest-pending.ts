/**
 * The single oldest pending budget of a review (interface.md §6d), besides the oldest per group: fed
 * one match at a time while pages stream, it keeps one budget (the earliest date_create, the API's
 * order breaking ties), so "which budget has waited longest?" needs no second call.
 */
import { daysSince } from "./age.js";
import { day, type PricedBudget } from "./budget-view.js";
import { shown } from "./upstream-text.js";

/** A type alias, not an interface, so it fits the loose output schema. */
export type OldestPending = {
  folio: string;
  wo_folio: string | null;
  date_create: string;
  /** Whole UTC days since date_create, at today. */
  age_days: number;
  /** The row of a summary it counts in (group key → value, currency included). */
  group?: Record<string, string | null>;
};

export class OldestPendingTracker {
  #oldest: { p: PricedBudget; seq: number } | undefined;

  /** Count one matching budget; only a pending one (status 1) can be the oldest. */
  add(p: PricedBudget, seq: number): void {
    if (p.budget.status !== 1) return;
    const o = this.#oldest;
    if (o === undefined || p.budget.date_create < o.p.budget.date_create) this.#oldest = { p, seq };
    else if (p.budget.date_create === o.p.budget.date_create && seq < o.seq) this.#oldest = { p, seq };
  }

  /** The oldest pending budget, with its group when a summary says which; undefined when none is pending. */
  result(now: Date, groupOf?: (p: PricedBudget) => Record<string, string | null>): OldestPending | undefined {
    if (this.#oldest === undefined) return undefined;
    const { budget: b } = this.#oldest.p;
    return {
      folio: b.folio,
      wo_folio: b.wo_folio,
      date_create: day(b.date_create)!,
      age_days: Math.max(0, daysSince(b.date_create, now) ?? 0),
      ...(groupOf ? { group: groupOf(this.#oldest.p) } : {}),
    };
  }
}

/**
 * "Oldest pending budget overall: folio 131 (work order 4027), created 2026-10-29, 28 days ago; its
 * group: ...". `scope` says among what: "overall" (every group of a summary), "of the 29 matches".
 */
export function oldestPendingLine(o: OldestPending, scope: string): string {
  const group = o.group
    ? `; its group: ${Object.entries(o.group)
        .map(([k, v]) => `${k} ${shown(v)}`)
        .join(", ")}`
    : "";
  return `Oldest pending budget ${scope}: folio ${shown(o.folio)} (work order ${shown(o.wo_folio)}), created ${shown(o.date_create)}, ${o.age_days} day${o.age_days === 1 ? "" : "s"} ago${group}.`;
}
