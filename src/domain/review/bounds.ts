/**
 * A review's summary fits the host (interface.md §6, §6c): groups, subtotals, the pending queue
 * and notes together stay within the 80,000-character bounds of text and structuredContent. When
 * the groups would not fit, the largest of each currency are kept (by amount, so no currency is
 * crowded out by another's larger numbers), in their usual order, and the result says how many
 * there are in all and how to narrow.
 */
import type { PendingAge, Subtotal, SummaryRow } from "../budget-summary.js";
import { jsonLength, RESULT_MAX_CHARS } from "../fit.js";
import { NOTES, type Note } from "../notes.js";

/** Characters kept free for the head line, period, review facts and the amount line. */
const FRAME = 6_000;
/** Most of the room goes to the groups; subtotals and the pending queue get at most these. */
const SUBTOTALS_MAX = 14_000;
const PENDING_MAX = 6_000;
const NOTES_MAX = 6_000;

export interface Bounded<T> {
  kept: T[];
  /** How many there were before the cut. */
  all: number;
}

/** The prefix of `items` (in the given order) whose JSON fits `room` characters. */
function prefixWithin<T extends object>(items: readonly T[], room: number): T[] {
  let used = 0;
  for (let i = 0; i < items.length; i++) {
    used += jsonLength(items[i] as Record<string, unknown>) + 1;
    if (used > room) return items.slice(0, i);
  }
  return [...items];
}

/**
 * The groups that fit `room`: all of them, or the largest of each currency taken in turn (the
 * largest of every currency, then the second largest...), shown in their original order.
 */
export function largestGroups(rows: readonly SummaryRow[], room: number): Bounded<SummaryRow> {
  if (prefixWithin(rows, room).length === rows.length) return { kept: [...rows], all: rows.length };
  const rank = new Map<SummaryRow, number>();
  const byCurrency = new Map<string, SummaryRow[]>();
  for (const r of rows) {
    const list = byCurrency.get(r.currency);
    if (list === undefined) byCurrency.set(r.currency, [r]);
    else list.push(r);
  }
  for (const list of byCurrency.values()) {
    list.sort((a, b) => b.items_total - a.items_total);
    for (let i = 0; i < list.length; i++) rank.set(list[i]!, i);
  }
  const ranked = [...rows].sort((a, b) => rank.get(a)! - rank.get(b)! || b.items_total - a.items_total);
  const chosen = new Set(prefixWithin(ranked, room));
  return { kept: rows.filter((r) => chosen.has(r)), all: rows.length };
}

/** Subtotals with the largest counts first when they do not all fit, shown in their original order. */
function boundSubtotals(subtotals: readonly Subtotal[], room: number): Bounded<Subtotal> {
  if (prefixWithin(subtotals, room).length === subtotals.length)
    return { kept: [...subtotals], all: subtotals.length };
  const chosen = new Set(
    prefixWithin(
      [...subtotals].sort((a, b) => b.count - a.count),
      room,
    ),
  );
  return { kept: subtotals.filter((s) => chosen.has(s)), all: subtotals.length };
}

/** Notes within NOTES_MAX characters; the rest counted in a last note. */
export function boundNotes(notes: readonly Note[]): Note[] {
  const kept = prefixWithin(notes, NOTES_MAX);
  return kept.length === notes.length
    ? [...notes]
    : [...kept, NOTES.notesLeftOut({ count: notes.length - kept.length })];
}

export interface SummaryParts {
  groups: Bounded<SummaryRow>;
  subtotals: Bounded<Subtotal> | undefined;
  pendingAge: Bounded<PendingAge> | undefined;
}

/** The summary's parts cut to fit one result together. */
export function boundSummary(
  rows: readonly SummaryRow[],
  subtotals: readonly Subtotal[] | undefined,
  pendingAge: readonly PendingAge[] | undefined,
): SummaryParts {
  const pending = pendingAge && {
    kept: prefixWithin(pendingAge, PENDING_MAX),
    all: pendingAge.length,
  };
  const subs = subtotals && boundSubtotals(subtotals, SUBTOTALS_MAX);
  const used =
    (pending ? pending.kept.reduce((n, q) => n + jsonLength(q), 0) : 0) +
    (subs ? subs.kept.reduce((n, s) => n + jsonLength(s), 0) : 0);
  const room = RESULT_MAX_CHARS - FRAME - NOTES_MAX - used;
  return { groups: largestGroups(rows, room), subtotals: subs, pendingAge: pending };
}

/** Whether a cut happened anywhere in the summary. */
export const summaryCut = (parts: SummaryParts) =>
  parts.groups.kept.length < parts.groups.all ||
  (parts.subtotals !== undefined && parts.subtotals.kept.length < parts.subtotals.all) ||
  (parts.pendingAge !== undefined && parts.pendingAge.kept.length < parts.pendingAge.all);
