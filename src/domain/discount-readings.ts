/**
 * What a discount does under each reading (interface.md §6g), for a server whose operator has not
 * said (MMS_BUDGET_DISCOUNT unset): the API does not say whether `discount` is a percentage or an
 * amount, so a review states the totals of its matches after the discount both ways, per currency
 * (each budget's line does the same: readingsText in budget-view.ts). Exact sums (money.ts).
 */
import { netOf, type PricedBudget } from "./budget-view.js";
import { type Currency, type Exact, formatMoney, toNumber } from "./money.js";

const discounted = (discount: number | null | undefined) =>
  discount !== null && discount !== undefined && Number(discount) !== 0 && Number.isFinite(Number(discount));

/** One currency's totals of a review's matches after the discount, read each way (before it: the result's items_total). */
export type ReadingTotal = {
  currency: string;
  currency_unmapped?: true;
  net_if_percent: number;
  net_if_amount: number;
};

export type DiscountFigures = { discounted: number; matched: number; totals: ReadingTotal[] };

/** Fed the matches of a review: the totals under both readings, when any budget has a discount. */
export class DiscountReadings {
  #discounted = 0;
  #matched = 0;
  readonly #by = new Map<string, { currency: Currency; percent: Exact; amount: Exact }>();

  add(p: PricedBudget): void {
    this.#matched += 1;
    const d = p.budget.discount;
    let t = this.#by.get(p.currency.code);
    if (t === undefined) {
      t = { currency: p.currency, percent: 0n, amount: 0n };
      this.#by.set(p.currency.code, t);
    }
    if (!discounted(d)) {
      t.percent += p.total;
      t.amount += p.total;
      return;
    }
    this.#discounted += 1;
    t.percent += netOf(p.total, d, "percent");
    t.amount += netOf(p.total, d, "amount");
  }

  /** Undefined when no match has a discount. */
  result(): DiscountFigures | undefined {
    if (this.#discounted === 0) return undefined;
    const totals = [...this.#by.values()]
      .sort((a, b) => (a.currency.code < b.currency.code ? -1 : 1))
      .map((t) => ({
        currency: t.currency.code,
        ...(t.currency.mapped ? {} : { currency_unmapped: true as const }),
        net_if_percent: toNumber(t.percent, t.currency),
        net_if_amount: toNumber(t.amount, t.currency),
      }));
    return { discounted: this.#discounted, matched: this.#matched, totals };
  }
}

/** "Discounts: 41 of the 100 budgets have one; after them, read as percentages: ...; read as amounts: ...". */
export function readingsLine(f: DiscountFigures): string {
  const cur = (t: ReadingTotal) => ({ code: t.currency, mapped: t.currency_unmapped !== true });
  const list = (pick: (t: ReadingTotal) => number) =>
    f.totals.map((t) => formatMoney(pick(t), cur(t))).join(", ");
  const of = f.discounted === f.matched ? `all ${f.matched}` : `${f.discounted} of the ${f.matched}`;
  return `Discounts: ${of} matching budgets have one; items_total after them, read as percentages: ${list((t) => t.net_if_percent)}; as amounts: ${list((t) => t.net_if_amount)}.`;
}
