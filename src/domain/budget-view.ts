/**
 * The two views of a work-order budget. The compact view keeps what a reviewer needs to
 * decide (under a fifth of the raw bytes), every amount beside its ISO currency code; the full
 * view is every field of api-spec §2.3 plus labels and the same code and total.
 */
import type { Budget } from "../client/types.js";
import { BUDGET_STATUS, labelOf, PRIORITY, WORK_ORDER_STATUS } from "./labels.js";
import { type Currency, currencyOf, type Exact, exact, formatMoney, sum, toNumber } from "./money.js";

// A type alias, not an interface, so it fits the loose output schema (index signature).
export type CompactBudget = {
  folio: string;
  wo_folio: string | null;
  status: number;
  status_label: string | null;
  work_order_status: string | null;
  third_party: string | null;
  cost_center: string | null;
  /** ISO 4217 code, or the API's description when it maps to none (then currency_unmapped is true). */
  currency: string;
  currency_unmapped?: true;
  items_total: number;
  discount: number | null;
  line_count: number;
  date_create: string;
  approval_date: string | null;
};

/** A budget with its currency and exact total worked out once (the review sorts, filters and sums these). */
export interface PricedBudget {
  budget: Budget;
  currency: Currency;
  total: Exact;
}

/** Currency and exact sum of the lines' total_cost (the API sends no budget total). */
export function price(b: Budget): PricedBudget {
  return {
    budget: b,
    currency: currencyOf(b.currency_description),
    total: sum(b.list_items.map((i) => exact(i.total_cost))),
  };
}

/** YYYY-MM-DD of an API date or timestamp (the day as the API wrote it); other text unchanged. */
export function day(value: string | null): string | null {
  return value !== null && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : value;
}

const currencyFields = (c: Currency) =>
  c.mapped ? { currency: c.code } : { currency: c.code, currency_unmapped: true as const };

export function compactBudget({ budget: b, currency, total }: PricedBudget): CompactBudget {
  return {
    folio: b.folio,
    wo_folio: b.wo_folio,
    status: b.status,
    status_label: labelOf(BUDGET_STATUS, b.status),
    work_order_status: labelOf(WORK_ORDER_STATUS, b.id_status_work_order),
    third_party: b.third_parties_name,
    cost_center: b.costs_center_description,
    ...currencyFields(currency),
    items_total: toNumber(total, currency),
    discount: b.discount,
    line_count: b.list_items.length,
    date_create: day(b.date_create)!,
    approval_date: day(b.approval_date),
  };
}

/** Every field the API sent (known and unknown), plus labels, the currency code and the lines' total. */
export function fullBudget({ budget: b, currency, total }: PricedBudget): {
  folio: string;
  [field: string]: unknown;
} {
  return {
    ...b,
    status_label: labelOf(BUDGET_STATUS, b.status),
    work_order_status: labelOf(WORK_ORDER_STATUS, b.id_status_work_order),
    priority_label: labelOf(PRIORITY, b.id_priority),
    ...currencyFields(currency),
    items_total: toNumber(total, currency),
  };
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** One short line per budget for the text rendering. */
export function budgetLine(b: CompactBudget): string {
  const money = formatMoney(b.items_total, { code: b.currency, mapped: b.currency_unmapped !== true });
  const discount = b.discount !== null && Number(b.discount) !== 0 ? ` discount ${b.discount}` : "";
  const approved = b.approval_date ? ` | approved ${b.approval_date}` : "";
  return `${b.folio} WO ${b.wo_folio ?? "-"} | ${b.status_label} | ${b.cost_center ?? "-"} | ${b.third_party ?? "-"} | ${money} (${plural(b.line_count, "line")})${discount} | created ${b.date_create}${approved}`;
}
