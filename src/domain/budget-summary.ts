/**
 * A review's summary, built one budget at a time (interface.md §6, §6b): rows per group (currency
 * always part of the key, so no amount adds two currencies), subtotals per value of the first
 * group key, and the pending queue by age per currency. It holds one small entry per group, never a
 * record, so memory stays flat however many budgets stream through; amounts stay exact (BigInt).
 */
import { daysSince } from "./age.js";
import { type AmountKind, cmp, type GroupKey, type Sort } from "./budget-review.js";
import { clip, day, type PricedBudget } from "./budget-view.js";
import { labelOf, WORK_ORDER_STATUS } from "./labels.js";
import { type Currency, type Exact, toNumber } from "./money.js";

/** Age of a budget in whole UTC days since its date_create, at today. */
export const AGE_BUCKETS = ["0-7", "8-30", "31-60", "61-90", "over 90"] as const;
export type AgeBucket = (typeof AGE_BUCKETS)[number];
const bucketOf = (days: number): number =>
  days <= 7 ? 0 : days <= 30 ? 1 : days <= 60 ? 2 : days <= 90 ? 3 : 4;

// A type alias, not an interface, so it fits the loose output schema (index signature).
export type SummaryRow = {
  status?: string | null;
  cost_center?: string | null;
  third_party?: string | null;
  month?: string;
  work_order_status?: string | null;
  age?: AgeBucket;
  work_order?: string | null;
  currency: string;
  currency_unmapped?: true;
  count: number;
  items_total: number;
  net_total?: number;
  /** date_create of the row's oldest and newest budget (YYYY-MM-DD). */
  oldest: string;
  newest: string;
  /** Whole days since the oldest pending budget of the row was created; absent when none is pending. */
  oldest_pending_days?: number;
};

export type Money = { currency: string; currency_unmapped?: true; items_total: number; net_total?: number };
export type Subtotal = { [key: string]: unknown; count: number; totals: Money[] };
export type PendingAge = {
  currency: string;
  currency_unmapped?: true;
  buckets: { age: AgeBucket; count: number; items_total: number; net_total?: number }[];
};

const STATUS_NAMES: Readonly<Record<number, string>> = { 1: "pending", 2: "approved", 3: "rejected" };
const STATUS_RANK: Readonly<Record<string, number>> = { pending: 0, approved: 1, rejected: 2 };
const WO_RANK = new Map(Object.values(WORK_ORDER_STATUS).map((label, i) => [label, i]));
const AGE_RANK = new Map<string, number>(AGE_BUCKETS.map((b, i) => [b, i]));

type Value = string | null;
type Key = Exclude<GroupKey, "currency">;

/** How rows compare on one key: workflow order for status, bucket order for age, else by text; null last. */
function keyOrder(key: GroupKey): (a: Value, b: Value) => number {
  const rank =
    key === "status"
      ? (v: string) => STATUS_RANK[v] ?? 9
      : key === "work_order_status"
        ? (v: string) => WO_RANK.get(v) ?? 9
        : key === "age"
          ? (v: string) => AGE_RANK.get(v) ?? 9
          : undefined;
  return (a, b) => {
    if (a === b) return 0;
    if (a === null) return 1;
    if (b === null) return -1;
    const numeric = key === "work_order" ? folioOrder().compare(a, b) : 0;
    return (rank ? rank(a) - rank(b) : 0) || numeric || cmp(a.toLowerCase(), b.toLowerCase()) || cmp(a, b);
  };
}

/**
 * Work-order folios in number order (4027 before 10001), whatever their text. Made on first use: a
 * collator loads ICU's collation data, a cost every start paid before its first result.
 */
let folioCollator: Intl.Collator | undefined;
const folioOrder = () => (folioCollator ??= new Intl.Collator("en", { numeric: true }));

interface Tally {
  count: number;
  total: Exact;
  net: Exact;
}
interface Group extends Tally {
  values: Value[];
  currency: Currency;
  oldest: string;
  newest: string;
  /** date_create of the oldest pending budget, or "" when none is pending. */
  oldestPending: string;
}

const tally = (): Tally => ({ count: 0, total: 0n, net: 0n });
const addTo = (t: Tally, p: PricedBudget) => {
  t.count += 1;
  t.total += p.total;
  t.net += p.net ?? p.total;
};

export class BudgetSummary {
  /** The group keys in the order given, currency included (appended when not given). */
  readonly keys: GroupKey[];
  readonly #now: Date;
  readonly #net: boolean;
  readonly #groups = new Map<string, Group>();
  readonly #subtotals = new Map<
    string,
    { value: Value; count: number; money: Map<string, Tally & { currency: Currency }> }
  >();
  readonly #pending = new Map<string, { currency: Currency; buckets: Tally[] }>();
  readonly #valueOf: Record<Key, (p: PricedBudget) => Value>;
  #oldest = "";
  #newest = "";

  /** `month`: the month a budget counts in (basis.ts: it follows the window's date); default its creation month. */
  constructor(
    groupBy: readonly GroupKey[],
    now: Date,
    options: { net: boolean; month?: (p: PricedBudget) => Value },
  ) {
    const keys = [...new Set(groupBy)];
    this.keys = keys.includes("currency") ? keys : [...keys, "currency"];
    this.#now = now;
    this.#net = options.net;
    this.#valueOf = {
      // The names the status filter takes, so a row's status can be fed back as a filter.
      status: (p) => STATUS_NAMES[p.budget.status] ?? `unknown (${p.budget.status})`,
      cost_center: (p) => p.budget.costs_center_description,
      third_party: (p) => p.budget.third_parties_name,
      month: options.month ?? ((p) => p.budget.date_create.slice(0, 7)),
      work_order_status: (p) => labelOf(WORK_ORDER_STATUS, p.budget.id_status_work_order),
      age: (p) => AGE_BUCKETS[this.#ageBucket(p)]!,
      work_order: (p) => p.budget.wo_folio,
    };
  }

  #ageBucket(p: PricedBudget): number {
    return bucketOf(Math.max(0, daysSince(p.budget.date_create, this.#now) ?? 0));
  }

  #values(p: PricedBudget): Value[] {
    return this.keys.map((k) => (k === "currency" ? p.currency.code : this.#valueOf[k](p)));
  }

  /** The row a budget counts in: each group key and its value. */
  groupOf(p: PricedBudget): Record<string, Value> {
    const values = this.#values(p);
    return Object.fromEntries(this.keys.map((k, i) => [k, values[i]!]));
  }

  /** Count one matching budget. */
  add(p: PricedBudget): void {
    const values = this.#values(p);
    // A unit separator between values, and a control character for null: no name holds either.
    const id = values.map((v) => v ?? "\u0001").join("\u001f");
    const created = day(p.budget.date_create)!;
    let g = this.#groups.get(id);
    if (g === undefined) {
      g = { ...tally(), values, currency: p.currency, oldest: created, newest: created, oldestPending: "" };
      this.#groups.set(id, g);
    }
    addTo(g, p);
    if (created < g.oldest) g.oldest = created;
    if (created > g.newest) g.newest = created;
    if (this.#oldest === "" || created < this.#oldest) this.#oldest = created;
    if (created > this.#newest) this.#newest = created;

    const first = values[0]!;
    const subId = first ?? "\u0001";
    let sub = this.#subtotals.get(subId);
    if (sub === undefined) {
      sub = { value: first, count: 0, money: new Map() };
      this.#subtotals.set(subId, sub);
    }
    sub.count += 1;
    let money = sub.money.get(p.currency.code);
    if (money === undefined) {
      money = { ...tally(), currency: p.currency };
      sub.money.set(p.currency.code, money);
    }
    addTo(money, p);

    if (p.budget.status !== 1) return;
    if (g.oldestPending === "" || p.budget.date_create < g.oldestPending)
      g.oldestPending = p.budget.date_create;
    let queue = this.#pending.get(p.currency.code);
    if (queue === undefined) {
      queue = { currency: p.currency, buckets: AGE_BUCKETS.map(tally) };
      this.#pending.set(p.currency.code, queue);
    }
    addTo(queue.buckets[this.#ageBucket(p)]!, p);
  }

  /** Entries held (groups, subtotals, pending currencies): bounded by the groups, never by the budgets. */
  get entries(): number {
    return this.#groups.size + this.#subtotals.size + this.#pending.size;
  }

  /** date_create of the oldest and newest budget counted, or undefined when none was. */
  dateRange(): { oldest: string; newest: string } | undefined {
    return this.#oldest === "" ? undefined : { oldest: this.#oldest, newest: this.#newest };
  }

  /**
   * One row per group, ordered by the keys in the order given (currency code last unless given),
   * or, with a total sort, by currency then amount; a date sort orders by oldest or newest date.
   */
  rows(sort: Sort | undefined, amount: AmountKind | undefined): SummaryRow[] {
    const orders = this.keys.map(keyOrder);
    const byKeys = (a: Group, b: Group) => {
      for (let i = 0; i < orders.length; i++) {
        const c = orders[i]!(a.values[i]!, b.values[i]!);
        if (c !== 0) return c;
      }
      return 0;
    };
    const value = amount === "net" ? (g: Group) => g.net : (g: Group) => g.total;
    // Ranked within each currency, the currency with the most budgets first (interface.md §8b).
    const currency = this.#currencyOrder();
    const by: Record<Sort, (a: Group, b: Group) => number> = {
      total_desc: (a, b) => currency(a, b) || cmp(value(b), value(a)),
      total_asc: (a, b) => currency(a, b) || cmp(value(a), value(b)),
      date_desc: (a, b) => cmp(b.newest, a.newest),
      date_asc: (a, b) => cmp(a.oldest, b.oldest),
    };
    const first = sort === undefined ? undefined : by[sort];
    const groups = [...this.#groups.values()].sort(first ? (a, b) => first(a, b) || byKeys(a, b) : byKeys);
    return groups.map((g) => {
      const row: Record<string, unknown> = {};
      this.keys.forEach((k, i) => {
        if (k !== "currency") row[k] = clip(g.values[i]);
      });
      Object.assign(row, this.#money(g.currency, g), { count: g.count, oldest: g.oldest, newest: g.newest });
      if (g.oldestPending !== "")
        row.oldest_pending_days = Math.max(0, daysSince(g.oldestPending, this.#now) ?? 0);
      return row as SummaryRow;
    });
  }

  /**
   * Per value of the first group key: the count across currencies and the totals per currency
   * (code order), values in key order. Undefined when the rows are already that (currency alone).
   */
  subtotals(): Subtotal[] | undefined {
    if (this.keys.length === 1) return undefined;
    const key = this.keys[0]!;
    const order = keyOrder(key);
    return [...this.#subtotals.values()]
      .sort((a, b) => order(a.value, b.value))
      .map((s) => ({
        [key]: clip(s.value),
        count: s.count,
        totals: [...s.money.values()]
          .sort((a, b) => cmp(a.currency.code, b.currency.code))
          .map((m) => this.#money(m.currency, m)),
      }));
  }

  /** The pending budgets by age bucket per currency (code order), every bucket present; undefined when none is pending. */
  pendingAge(): PendingAge[] | undefined {
    if (this.#pending.size === 0) return undefined;
    return [...this.#pending.values()]
      .sort((a, b) => cmp(a.currency.code, b.currency.code))
      .map((q) => ({
        currency: clip(q.currency.code),
        ...(q.currency.mapped ? {} : { currency_unmapped: true as const }),
        buckets: q.buckets.map((t, i) => {
          const { currency: _c, currency_unmapped: _u, ...amounts } = this.#money(q.currency, t);
          return { age: AGE_BUCKETS[i]!, count: t.count, ...amounts };
        }),
      }));
  }

  /** Currencies by how many budgets they hold (most first), then by code. */
  #currencyOrder(): (a: Group, b: Group) => number {
    const counts = new Map<string, number>();
    for (const g of this.#groups.values())
      counts.set(g.currency.code, (counts.get(g.currency.code) ?? 0) + g.count);
    const count = (g: Group) => counts.get(g.currency.code) ?? 0;
    return (a, b) => count(b) - count(a) || cmp(a.currency.code, b.currency.code);
  }

  #money(currency: Currency, t: Tally): Money {
    return {
      currency: clip(currency.code),
      ...(currency.mapped ? {} : { currency_unmapped: true as const }),
      items_total: toNumber(t.total, currency),
      ...(this.#net ? { net_total: toNumber(t.net, currency) } : {}),
    };
  }
}
