/**
 * "Since" beside the totals (interface.md §6e, §6f): when the call compared with what was known
 * earlier (`compare_to`), what is new, approved, rejected and removed with their amounts per
 * currency, how many changed out and changed (with before and after amounts), and how many could
 * not be compared and why. Read defensively: a result without `changes`, or with one the view cannot
 * read, shows nothing; a 6e result (no removed, no not_compared) reads as none of either (pure: no
 * DOM; changes-view.ts draws it).
 */

export interface ChangeFigures {
  count: number;
  byCurrency: { currency: string; total: number; mapped: boolean }[];
}

export interface Changes {
  /** The earlier review's as_of (ISO instant) and its age in days. */
  asOf: string;
  ageDays: number;
  /** One of the two reviews is partial: the figures are within what both read. */
  partial: boolean;
  new: ChangeFigures;
  approved: ChangeFigures;
  rejected: ChangeFigures;
  gone: ChangeFigures;
  changed: ChangeFigures;
  removed: ChangeFigures;
  /** Up to 10 changed budgets' amounts before and after. */
  amounts: { folio: string; before: Money; after: Money }[];
  unchanged: number;
  notCompared: { count: number; reason: string };
}

export interface Money {
  currency: string;
  total: number;
  mapped: boolean;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

function figuresOf(v: unknown): ChangeFigures | undefined {
  if (!isObject(v) || num(v.count) === undefined) return undefined;
  const rows = Array.isArray(v.by_currency) ? v.by_currency.filter(isObject) : [];
  return {
    count: num(v.count)!,
    byCurrency: rows
      .filter((r) => typeof r.currency === "string" && num(r.total) !== undefined)
      .map((r) => ({
        currency: r.currency as string,
        total: r.total as number,
        mapped: r.currency_unmapped !== true,
      })),
  };
}

function moneyOf(v: unknown): Money | undefined {
  if (!isObject(v) || typeof v.currency !== "string" || num(v.total) === undefined) return undefined;
  return { currency: v.currency, total: v.total as number, mapped: v.currency_unmapped !== true };
}

function amountsOf(changed: unknown): Changes["amounts"] {
  const rows = isObject(changed) && Array.isArray(changed.amounts) ? changed.amounts.filter(isObject) : [];
  return rows.flatMap((r) => {
    const before = moneyOf(r.before);
    const after = moneyOf(r.after);
    return typeof r.folio === "string" && before && after ? [{ folio: r.folio, before, after }] : [];
  });
}

const NONE: ChangeFigures = { count: 0, byCurrency: [] };

/** `structuredContent.changes`, or undefined when absent or unreadable. */
export function readChanges(structured: unknown): Changes | undefined {
  if (!isObject(structured) || !isObject(structured.changes)) return undefined;
  const c = structured.changes;
  const to = isObject(c.compared_to) ? c.compared_to : undefined;
  const kinds = (["new", "approved", "rejected", "gone", "changed"] as const).map((k) => figuresOf(c[k]));
  if (typeof to?.as_of !== "string" || Number.isNaN(Date.parse(to.as_of)) || kinds.some((k) => !k))
    return undefined;
  const [added, approved, rejected, gone, changed] = kinds as ChangeFigures[];
  return {
    asOf: to.as_of,
    ageDays: num(to.age_days) ?? 0,
    partial: c.within_both_reads === true,
    new: added!,
    approved: approved!,
    rejected: rejected!,
    gone: gone!,
    changed: changed!,
    removed: figuresOf(c.removed) ?? NONE,
    amounts: amountsOf(c.changed),
    unchanged: (isObject(c.unchanged) && num(c.unchanged.count)) || 0,
    notCompared: {
      count: (isObject(c.not_compared) && num(c.not_compared.count)) || 0,
      reason:
        isObject(c.not_compared) && typeof c.not_compared.reason === "string" ? c.not_compared.reason : "",
    },
  };
}
