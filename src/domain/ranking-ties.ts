/**
 * Ties at the edge of a ranking (interface.md §6g): when the budget after the last one shown has the
 * same amount (a sort by total) or was created the same day (a sort by date), the result says so,
 * with both folios, and by date their times, so a top N never hides an equal N+1.
 */
import { instantOf } from "./basis.js";
import { type AmountKind, amountOf, type Ranked, type Sort } from "./budget-review.js";
import { day } from "./budget-view.js";
import { formatMoney, toNumber } from "./money.js";
import { shown } from "./upstream-text.js";

/** The last budget shown and the next one, equal on the ranking's key. A type alias: it fits a loose schema. */
export type Tie = {
  currency: string;
  currency_unmapped?: true;
  last: string;
  next: string;
  /** A sort by total: the amount both have. */
  amount?: number;
  /** A sort by date: the day both were created, and each one's time (UTC, to the second). */
  day?: string;
  last_at?: string;
  next_at?: string;
};

const second = (text: string) => {
  const at = instantOf(text);
  return at === undefined ? text : `${new Date(at).toISOString().slice(0, 19)}Z`;
};

/** The tie between the last budget shown and the next, if they are equal on the sort's key. */
export function tieOf(
  sort: Sort | undefined,
  kind: AmountKind | undefined,
  last: Ranked | undefined,
  next: Ranked | undefined,
): Tie | undefined {
  if (sort === undefined || last === undefined || next === undefined) return undefined;
  const { currency } = last.p;
  const base = {
    currency: currency.code,
    ...(currency.mapped ? {} : { currency_unmapped: true as const }),
    last: last.p.budget.folio,
    next: next.p.budget.folio,
  };
  if (sort === "total_desc" || sort === "total_asc") {
    const amount = amountOf(kind);
    if (next.p.currency.code !== currency.code || amount(last.p) !== amount(next.p)) return undefined;
    return { ...base, amount: toNumber(amount(last.p), currency) };
  }
  const d = day(last.p.budget.date_create);
  if (d === null || d !== day(next.p.budget.date_create)) return undefined;
  return {
    ...base,
    day: d,
    last_at: second(last.p.budget.date_create),
    next_at: second(next.p.budget.date_create),
  };
}

/**
 * "The next budget, folio 283, ties the last one shown (folio 247) at USD 1,975.00 (start=3 shows
 * it)."; by date, both folios with their times.
 */
export function tieLine(t: Tie, nextStart: number | null): string {
  const go = nextStart === null ? "" : ` (start=${nextStart} shows it)`;
  if (t.amount !== undefined) {
    const money = formatMoney(t.amount, { code: t.currency, mapped: t.currency_unmapped !== true });
    return `The next budget, folio ${shown(t.next)}, ties the last one shown (folio ${shown(t.last)}) at ${money}${go}.`;
  }
  const time = (at: string | undefined) => shown((at ?? "").slice(11) || (t.day ?? ""));
  return `The next budget was created the same day (${shown(t.day ?? "")}) as the last one shown: folio ${shown(t.last)} at ${time(t.last_at)}, folio ${shown(t.next)} at ${time(t.next_at)}${go}.`;
}
