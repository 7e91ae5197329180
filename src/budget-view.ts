/**
 * The two views of a work-order budget. The compact view keeps what a reviewer needs to
 * decide (about a tenth of the raw bytes); the full view is every field of api-spec §2.3
 * plus labels.
 */
import type { Budget } from "./client/types.js";
import { BUDGET_STATUS, labelOf, PRIORITY, WORK_ORDER_STATUS } from "./labels.js";

// A type alias, not an interface, so it fits the loose output schema (index signature).
export type CompactBudget = {
  folio: string;
  wo_folio: string | null;
  status: number;
  status_label: string | null;
  work_order_status: string | null;
  reference: string | null;
  third_party: string | null;
  cost_center: string | null;
  currency: string | null;
  items_total: number;
  discount: number | null;
  item_count: number;
  date_create: string;
  approval_date: string | null;
  final_date: string | null;
};

/** Sum of the budget lines' total_cost, rounded to cents (the API gives no budget total). */
export function itemsTotal(b: Budget): number {
  return Math.round(b.list_items.reduce((sum, i) => sum + i.total_cost, 0) * 100) / 100;
}

/** YYYY-MM-DD of an API date or timestamp (the day as the API wrote it); other text unchanged. */
function day(value: string | null): string | null {
  return value !== null && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : value;
}

export function compactBudget(b: Budget): CompactBudget {
  return {
    folio: b.folio,
    wo_folio: b.wo_folio,
    status: b.status,
    status_label: labelOf(BUDGET_STATUS, b.status),
    work_order_status: labelOf(WORK_ORDER_STATUS, b.id_status_work_order),
    reference: b.reference,
    third_party: b.third_parties_name,
    cost_center: b.costs_center_description,
    currency: b.symbol ?? b.currency_description,
    items_total: itemsTotal(b),
    discount: b.discount,
    item_count: b.list_items.length,
    date_create: day(b.date_create)!,
    approval_date: day(b.approval_date),
    final_date: day(b.final_date),
  };
}

/** Every field the API sent (known and unknown), plus labels. */
export function fullBudget(b: Budget): { folio: string; [field: string]: unknown } {
  return {
    ...b,
    status_label: labelOf(BUDGET_STATUS, b.status),
    work_order_status: labelOf(WORK_ORDER_STATUS, b.id_status_work_order),
    priority_label: labelOf(PRIORITY, b.id_priority),
  };
}

/** One short line per budget for the text rendering. */
export function budgetLine(b: CompactBudget): string {
  return `${b.folio} WO ${b.wo_folio ?? "-"} | ${b.status_label} | ${b.reference ?? "-"} | ${b.third_party ?? "-"} | ${b.currency ?? ""}${b.items_total} (${b.item_count} lines) | created ${b.date_create}`;
}
