/**
 * A budget as a review keeps it (interface.md §6c): what its view shows, unknown fields only in view
 * "full" (they can be huge), amounts checked before they are summed, priced once. A
 * budget with an absurd amount is left out and counted (`skipped`, with the folio and the reason),
 * never an internal error. `weightOf` estimates the memory a parsed value holds, for the bytes in
 * flight and the snapshot's cap.
 */

import type { Budget } from "../../client/types.js";
import { type DiscountKind, type PricedBudget, price } from "../budget-view.js";

/** Beyond this, an amount is a fault upstream, not money (interface.md §6c). */
export const AMOUNT_LIMIT = 1e15;

/** A budget read by a review and its position in the API's order (ties keep that order). */
export interface Kept {
  p: PricedBudget;
  seq: number;
}

/** A budget left out of a review, and why. */
export interface Skipped {
  folio: string;
  reason: string;
}

/** What a review keeps of each budget: what its view shows, no more (the snapshot holds thousands). */
export type Keep = "compact" | "detail" | "full";

/** The fields the filters, groups, sorts and the compact view read (budget-review.ts, budget-summary.ts, budget-view.ts). */
const COMPACT_KEYS = [
  "id",
  "folio",
  "wo_folio",
  "status",
  "id_status_work_order",
  "third_parties_name",
  "third_parties_code",
  "costs_center_description",
  "id_cost_center",
  "currency_description",
  "discount",
  "date_create",
  "approval_date",
  "final_date",
];
/** The detail view adds the lines (no third party's address, e-mail or phones). */
const DETAIL_LINE_KEYS = [
  "type_resource",
  "qty",
  "unit_cost",
  "total_cost",
  "items_log_description",
  "hrl_description",
  "stl_description",
];

function pick<T extends object>(record: T, keys: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (Object.hasOwn(record, k)) out[k] = (record as Record<string, unknown>)[k];
  return out as T;
}

/** What `keep` needs of the budget: every field (full), or the compact fields and, for detail, the lines. */
function trimmed(b: Budget, keep: Keep): Budget {
  if (keep === "full") return b;
  const kept = pick(b, COMPACT_KEYS);
  kept.list_items = keep === "detail" ? b.list_items.map((l) => pick(l, DETAIL_LINE_KEYS)) : [];
  if (keep === "detail") kept.note = b.note;
  return kept;
}

const absurd = (v: unknown): boolean =>
  typeof v === "number" && (!Number.isFinite(v) || Math.abs(v) > AMOUNT_LIMIT);

/** The first amount of `b` that is no money (not finite, or beyond ±10^15), as "field is value". */
export function absurdAmount(b: Budget): string | undefined {
  if (absurd(b.discount)) return `discount is ${b.discount}`;
  for (let i = 0; i < b.list_items.length; i++) {
    const line = b.list_items[i]!;
    for (const field of ["total_cost", "unit_cost", "qty"] as const)
      if (absurd(line[field])) return `list_items[${i}].${field} is ${line[field]}`;
  }
  return undefined;
}

/** The budget priced and trimmed, or why it is left out. */
export function admit(
  b: Budget,
  options: { keep: Keep; discount: DiscountKind | undefined },
): { kept: PricedBudget } | { skipped: Skipped } {
  const bad = absurdAmount(b);
  if (bad !== undefined)
    return { skipped: { folio: String(b.folio), reason: `${bad}: not a finite amount within ±10^15` } };
  try {
    // Priced from every line, then trimmed: the compact view keeps the line count, not the lines.
    const priced = price(b, options.discount);
    priced.budget = trimmed(b, options.keep);
    if (options.keep === "compact") priced.lineCount = b.list_items.length;
    return { kept: priced };
  } catch (e) {
    // price() parses every line total exactly; a value it cannot read is the upstream's fault.
    return { skipped: { folio: String(b.folio), reason: e instanceof Error ? e.message : String(e) } };
  }
}

/**
 * Approximate bytes a parsed JSON value holds in memory (UTF-16 strings, boxed fields): the
 * measure of pages in flight and of snapshots. Walks the value once; no text is built.
 */
export function weightOf(value: unknown): number {
  switch (typeof value) {
    case "string":
      return 16 + 2 * value.length;
    case "object": {
      if (value === null) return 8;
      let n = 16;
      if (Array.isArray(value)) for (const v of value) n += 8 + weightOf(v);
      else for (const k in value) n += 8 + weightOf((value as Record<string, unknown>)[k]);
      return n;
    }
    case "bigint":
      return 24;
    default:
      return 8;
  }
}
