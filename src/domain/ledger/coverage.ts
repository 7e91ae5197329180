/**
 * What a read covered (interface.md §6f): what it asked the API (the date basis, the window resolved
 * to instants, the status, an id or work order) and when. The filters the API lacks (currency, cost
 * center, third party, bounds) are applied by the server after the read, so a read records every
 * budget it fetched and covers all of them. A partial read covers nothing: it says nothing of what
 * it did not reach.
 */
import type { ApiTypeDate } from "../period.js";

/** One read. Short keys: a ledger keeps thousands. Null: no bound, or no such filter. */
export interface Coverage {
  /** When it was read (epoch ms). */
  at: number;
  /** The API's date basis (type_date). */
  b: ApiTypeDate;
  /** The window, epoch ms; null: open. */
  f: number | null;
  t: number | null;
  /** The API status (1 pending, 2 approved, 3 rejected) or null: every status. */
  s: number | null;
  id: string | null;
  wo: string | null;
  /** Whole (every page read); false: it covers nothing. */
  c: boolean;
}

export const sameAsk = (a: Coverage, b: Coverage) =>
  a.b === b.b && a.f === b.f && a.t === b.t && a.s === b.s && a.id === b.id && a.wo === b.wo;

/** Where a budget would be: its status, folio, work order, when it was made, the instants its basis date can lie within. */
export interface Place {
  status: number;
  folio: string;
  wo: string;
  /** Its own creation (epoch ms; NaN: unknown). */
  created: number;
  /** The earliest and latest its basis date can be (epoch ms; null: open). */
  from: number | null;
  to: number | null;
}

/** The read `c` would have returned a budget at `place`, had it existed then; else why not. */
export function covers(c: Coverage, basis: ApiTypeDate, place: Place): "yes" | Miss {
  if (!c.c) return "partial";
  if (c.b !== basis) return "basis";
  if ((c.id !== null && c.id !== place.folio) || (c.wo !== null && c.wo !== place.wo)) return "lookup";
  if (c.f !== null && (place.from === null || place.from < c.f)) return "window";
  // Made after the read: it did not exist then, so the read missed nothing (whatever its status now).
  if (place.created > c.at) return "yes";
  if (c.s !== null && c.s !== place.status) return "status";
  if (c.t !== null && (place.to === null || place.to > c.t)) return "window";
  return "yes";
}

export type Miss = "partial" | "basis" | "status" | "lookup" | "window";

const STATUS_WORDS: Record<number, string> = { 1: "pending", 2: "approved", 3: "rejected" };

/** Why budgets were not compared, in one line, from the commonest reason and the reads there were. */
export function missReason(miss: Miss | "none", reads: readonly Coverage[], thenAt: number): string {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  switch (miss) {
    case "none":
      return `nothing was read before ${new Date(thenAt).toISOString().slice(0, 16)}Z`;
    case "status": {
      const said = [
        ...new Set(reads.map((r) => (r.s === null ? "all" : (STATUS_WORDS[r.s] ?? `status ${r.s}`)))),
      ];
      return `earlier reads covered ${said.join(" and ")} budgets only`;
    }
    case "window": {
      const from = Math.min(...reads.map((r) => r.f ?? Number.NEGATIVE_INFINITY));
      return Number.isFinite(from)
        ? `earlier reads covered dates from ${day(from)} on only`
        : "earlier reads did not cover these dates";
    }
    case "basis":
      return `earlier reads used another date basis (${[...new Set(reads.map((r) => r.b))].join(", ")})`;
    case "lookup":
      return "earlier reads looked up other budgets or work orders only";
    case "partial":
      return "earlier reads of these budgets were partial";
  }
}
