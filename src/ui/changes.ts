/**
 * "Since" beside the totals (interface.md §6e): when the call compared with an earlier review
 * (`compare_to`), what is new, approved and rejected with their amounts per currency, and how many
 * are gone and changed. Read defensively: a result without `changes`, or with one the view cannot
 * read, shows nothing (pure: no DOM; changes-view.ts draws it).
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
  unchanged: number;
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
    unchanged: (isObject(c.unchanged) && num(c.unchanged.count)) || 0,
  };
}
