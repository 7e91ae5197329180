/**
 * The changes a compare found (interface.md §6e's shape, with §6f's additions): per kind a count,
 * exact totals per currency (BigInt sums, one currency never added to another) and at most 50
 * folios, each cut to 60 characters, so `changes` stays far within the result's 80,000; `changed`
 * adds up to 10 `{folio, before, after}` amounts; `not_compared` counts what no earlier read covered.
 * `gone` is 6e's key for a budget changed out of the filters (still there, another status or
 * currency...); `removed`: the API no longer returns it.
 */
import { formatMoney, toNumber } from "../money.js";
import type { HistoryRow } from "../review/history-codec.js";

export const FOLIOS_LISTED = 50;
export const AMOUNTS_LISTED = 10;
const FOLIO_MAX = 60;
const PENDING = 1;
const APPROVED = 2;
const REJECTED = 3;

/** In the order the text says them. */
export const KINDS = ["approved", "rejected", "new", "changed", "gone", "removed"] as const;
export type Kind = (typeof KINDS)[number];

// Type aliases, not interfaces, so they fit the loose output schema (index signature).
export type Money = { currency: string; total: number; currency_unmapped?: true };
export type ChangeSet = { count: number; by_currency: Money[]; folios: string[] };
export type Amounts = { folio: string; before: Money; after: Money };

export type Changes = Record<Kind, ChangeSet> & {
  compared_to: { as_of: string; age_days: number; complete: boolean };
  changed: ChangeSet & { amounts: Amounts[] };
  unchanged: { count: number };
  not_compared: { count: number; reason: string };
  /** This review is partial: what left it is not known. */
  within_both_reads?: true;
};

const folioOf = (f: string) => (f.length > FOLIO_MAX ? `${f.slice(0, FOLIO_MAX - 1)}…` : f);
const money = (row: HistoryRow, total = row.total): Money => ({
  // An unmapped currency is the API's description: cut like a folio.
  currency: folioOf(row.currency.code),
  total: toNumber(total, row.currency),
  ...(row.currency.mapped ? {} : { currency_unmapped: true as const }),
});

export class Tally {
  count = 0;
  readonly sums = new Map<string, { row: HistoryRow; total: bigint }>();
  readonly folios: string[] = [];

  add(row: HistoryRow): void {
    this.count += 1;
    const key = `${row.currency.mapped ? "" : "~"}${row.currency.code}`;
    const sum = this.sums.get(key);
    if (sum === undefined) this.sums.set(key, { row, total: row.total });
    else sum.total += row.total;
    if (this.folios.length < FOLIOS_LISTED) this.folios.push(folioOf(row.folio));
  }

  result(): ChangeSet {
    const by_currency = [...this.sums.values()]
      .sort((a, b) => (a.row.currency.code < b.row.currency.code ? -1 : 1))
      .map(({ row, total }) => money(row, total));
    return { count: this.count, by_currency, folios: this.folios };
  }

  /** "USD 2,300.00; EUR 410.00" */
  money(): string {
    return [...this.sums.values()].map(({ row, total }) => formatMoney(total, row.currency)).join("; ");
  }
}

export class ChangeTally {
  readonly tallies = Object.fromEntries(KINDS.map((k) => [k, new Tally()])) as Record<Kind, Tally>;
  readonly amounts: { folio: string; before: HistoryRow; after: HistoryRow }[] = [];
  unchanged = 0;
  notCompared = 0;
  readonly reasons: string[] = [];

  add(kind: Kind, row: HistoryRow): void {
    this.tallies[kind].add(row);
  }

  /** A budget known then that differs now: decided, changed, or (no longer matching) changed out. */
  change(before: HistoryRow, after: HistoryRow, leaving = false): void {
    const decided =
      before.status === PENDING && after.status === APPROVED
        ? "approved"
        : before.status === PENDING && after.status === REJECTED
          ? "rejected"
          : undefined;
    const kind = decided ?? (leaving ? "gone" : "changed");
    this.tallies[kind].add(after);
    if (kind === "changed" && this.amounts.length < AMOUNTS_LISTED)
      this.amounts.push({ folio: folioOf(after.folio), before, after });
  }

  result(thenAt: number, nowAt: number, complete: boolean): Changes {
    const sets = Object.fromEntries(KINDS.map((k) => [k, this.tallies[k].result()])) as Record<
      Kind,
      ChangeSet
    >;
    return {
      compared_to: {
        as_of: new Date(thenAt).toISOString(),
        age_days: Math.round((nowAt - thenAt) / 8_640_000) / 10,
        complete: true,
      },
      ...sets,
      changed: {
        ...sets.changed,
        amounts: this.amounts.map((a) => ({
          folio: a.folio,
          before: money(a.before),
          after: money(a.after),
        })),
      },
      unchanged: { count: this.unchanged },
      not_compared: { count: this.notCompared, reason: this.reasons.join("; ") },
      ...(complete ? {} : { within_both_reads: true as const }),
    };
  }
}
