/**
 * Work orders with more than one budget (interface.md §8b "Budgets per work order"): the review
 * prompt's "two budgets on one work order" check in one call. Fed one matching budget at a time,
 * it holds per work order a count and its first few folios, never the budgets.
 */
import { cmp } from "./budget-review.js";
import { clip, type PricedBudget } from "./budget-view.js";

/** Folios listed per work order; the count says how many there are. */
const FOLIOS_LISTED = 20;
/** Work orders listed; the note says how many there are. */
export const WORK_ORDERS_LISTED = 50;

const STATUS_NAMES: Readonly<Record<number, string>> = { 1: "pending", 2: "approved", 3: "rejected" };

/** A type alias, not an interface, so it fits the loose output schema. */
export type RepeatedWorkOrder = {
  wo_folio: string;
  /** Budgets on this work order among the matches. */
  count: number;
  /** The first of them in the API's order: folio and status (the names the status filter takes). */
  budgets: { folio: string; status: string }[];
};

export interface RepeatedFigures {
  /** The work orders with more than one budget, the most budgets first, at most WORK_ORDERS_LISTED. */
  listed: RepeatedWorkOrder[];
  /** Work orders with more than one budget, and the budgets on them. */
  count: number;
  budgets: number;
  /** Distinct work orders among the matches. */
  workOrders: number;
}

export class WorkOrderBudgets {
  readonly #byWorkOrder = new Map<string, RepeatedWorkOrder>();

  /** Count one matching budget (one without a work order counts in none). */
  add(p: PricedBudget): void {
    const wo = p.budget.wo_folio;
    if (wo === null || wo === undefined) return;
    let entry = this.#byWorkOrder.get(wo);
    if (entry === undefined) {
      entry = { wo_folio: clip(wo), count: 0, budgets: [] };
      this.#byWorkOrder.set(wo, entry);
    }
    entry.count += 1;
    if (entry.budgets.length < FOLIOS_LISTED)
      entry.budgets.push({
        folio: clip(p.budget.folio),
        status: STATUS_NAMES[p.budget.status] ?? `unknown (${p.budget.status})`,
      });
  }

  result(): RepeatedFigures {
    const repeated = [...this.#byWorkOrder.values()].filter((w) => w.count > 1);
    repeated.sort((a, b) => b.count - a.count || cmp(a.wo_folio, b.wo_folio));
    return {
      listed: repeated.slice(0, WORK_ORDERS_LISTED),
      count: repeated.length,
      budgets: repeated.reduce((n, w) => n + w.count, 0),
      workOrders: this.#byWorkOrder.size,
    };
  }
}
