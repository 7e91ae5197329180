/**
 * Server-side budget review (interface.md §6, §6b): the filters the API lacks (currency, cost
 * center, third party, total bounds), the order of records, and a top N that keeps only the N
 * best while pages stream through. Amounts of two currencies are never compared: a total sort
 * orders by currency code first.
 */

import type { PricedBudget } from "./budget-view.js";
import { currencyMatches, type Exact, exact, normalizeName } from "./money.js";

export const SORTS = ["total_desc", "total_asc", "date_desc", "date_asc"] as const;
export type Sort = (typeof SORTS)[number];
export const GROUPS = [
  "status",
  "currency",
  "cost_center",
  "third_party",
  "month",
  "work_order_status",
  "age",
  "work_order",
] as const;
export type GroupKey = (typeof GROUPS)[number];
/** Which amount bounds, sorts and groups use: items_total, or net_total (after the discount). */
export type AmountKind = "items" | "net";

export interface ReviewFilters {
  currency?: string[] | undefined;
  cost_center?: string | undefined;
  third_party?: string | undefined;
  min_total?: number | undefined;
  max_total?: number | undefined;
  amount?: AmountKind | undefined;
}

/** Whether any filter, sort or grouping asks for the server-side review. */
export const wantsReview = (
  f: ReviewFilters & { sort?: Sort | undefined; group_by?: GroupKey[] | undefined },
) =>
  f.currency !== undefined ||
  f.cost_center !== undefined ||
  f.third_party !== undefined ||
  f.min_total !== undefined ||
  f.max_total !== undefined ||
  f.sort !== undefined ||
  (f.group_by?.length ?? 0) > 0;

/** The amount a review compares: items_total, or net_total when asked (and configured). */
export const amountOf = (kind: AmountKind | undefined) =>
  kind === "net" ? (p: PricedBudget): Exact => p.net ?? p.total : (p: PricedBudget): Exact => p.total;

/** A predicate over priced budgets for the given filters (all must hold). */
export function matcher(f: ReviewFilters): (p: PricedBudget) => boolean {
  const min = f.min_total === undefined ? undefined : exact(f.min_total);
  const max = f.max_total === undefined ? undefined : exact(f.max_total);
  const cc = f.cost_center === undefined ? undefined : normalizeName(f.cost_center);
  const tp = thirdPartyAsked(f.third_party);
  const amount = amountOf(f.amount);
  return (p) => {
    const { budget: b, currency } = p;
    return (
      (f.currency === undefined || f.currency.some((c) => currencyMatches(c, currency))) &&
      (cc === undefined ||
        String(b.id_cost_center) === f.cost_center!.trim() ||
        normalizeName(b.costs_center_description ?? "") === cc) &&
      (tp === undefined ||
        (b.third_parties_code ?? "").toLowerCase() === tp.code ||
        (tp.name !== "" && (b.third_parties_name ?? "").toLowerCase().includes(tp.name))) &&
      (min === undefined || amount(p) >= min) &&
      (max === undefined || amount(p) <= max)
    );
  };
}

/**
 * A third_party filter: a code or part of a name, any case; also the form results print, "EuroParts
 * GmbH (SUP-002, supplier)", which an agent may copy back (its code then decides).
 */
function thirdPartyAsked(raw: string | undefined): { code: string; name: string } | undefined {
  const text = raw?.trim().toLowerCase();
  if (text === undefined) return undefined;
  // "Acme (SUP-9, supplier)" is that form; "Andes Mining (customer)" may be a name, and still matches as one.
  const printed = /^.* \(([^,()]+), (?:supplier|customer)\)$/.exec(text) ?? /^.* \(([^,()\s]+)\)$/.exec(text);
  return printed
    ? { code: printed[1]!, name: printed[0].includes(",") ? "" : text }
    : { code: text, name: text };
}

export const cmp = (a: bigint | number | string, b: bigint | number | string) => (a < b ? -1 : a > b ? 1 : 0);

/** A match and its position in the API's order (ties keep that order). */
export interface Ranked {
  p: PricedBudget;
  seq: number;
}

/**
 * The order of a review's records: the API's order without `sort`; a total sort compares
 * amounts within one currency only (currency code first).
 */
export function rankOrder(
  sort: Sort | undefined,
  kind: AmountKind | undefined,
): (a: Ranked, b: Ranked) => number {
  const amount = amountOf(kind);
  const cur = (a: Ranked, b: Ranked) => cmp(a.p.currency.code, b.p.currency.code);
  const by: Record<Sort, (a: Ranked, b: Ranked) => number> = {
    total_desc: (a, b) => cur(a, b) || cmp(amount(b.p), amount(a.p)),
    total_asc: (a, b) => cur(a, b) || cmp(amount(a.p), amount(b.p)),
    date_desc: (a, b) => cmp(b.p.budget.date_create, a.p.budget.date_create),
    date_asc: (a, b) => cmp(a.p.budget.date_create, b.p.budget.date_create),
  };
  const first = sort === undefined ? undefined : by[sort];
  return first === undefined ? (a, b) => a.seq - b.seq : (a, b) => first(a, b) || a.seq - b.seq;
}

/**
 * The `n` first items in `order`, fed one at a time: holds at most 2n (sorted and cut back to n
 * when full), so a top 3 of 30,000 budgets keeps a handful, not the 30,000.
 */
export class TopN<T> {
  #items: T[] = [];
  readonly #n: number;
  readonly #order: (a: T, b: T) => number;

  constructor(n: number, order: (a: T, b: T) => number) {
    this.#n = n;
    this.#order = order;
  }

  add(item: T): void {
    this.#items.push(item);
    if (this.#items.length >= 2 * this.#n + 64) this.#cut();
  }

  /** How many items are held now (a bound on memory, for tests). */
  get held(): number {
    return this.#items.length;
  }

  /** The first n, in order. */
  result(): T[] {
    this.#cut();
    return this.#items;
  }

  #cut(): void {
    this.#items.sort(this.#order);
    if (this.#items.length > this.#n) this.#items.length = this.#n;
  }
}
