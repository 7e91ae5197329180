/**
 * A budget as a review keeps it (interface.md §6c): known fields only unless the view is "full"
 * (unknown upstream fields can be huge), amounts checked before they are summed, priced once. A
 * budget with an absurd amount is left out and counted (`skipped`, with the folio and the reason),
 * never an internal error. `weightOf` estimates the memory a parsed value holds, for the bytes in
 * flight and the snapshot's cap.
 */

import { BudgetListItemSchema, BudgetSchema } from "../../client/schemas.js";
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

const BUDGET_KEYS = Object.keys(BudgetSchema.shape);
const LINE_KEYS = Object.keys(BudgetListItemSchema.shape);

function pick<T extends object>(record: T, keys: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (Object.hasOwn(record, k)) out[k] = (record as Record<string, unknown>)[k];
  return out as T;
}

/** The budget without the fields api-spec §2.3 does not name (its lines too). */
export function knownFields(b: Budget): Budget {
  const kept = pick(b, BUDGET_KEYS);
  kept.list_items = b.list_items.map((l) => pick(l, LINE_KEYS));
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
  options: { full: boolean; discount: DiscountKind | undefined },
): { kept: PricedBudget } | { skipped: Skipped } {
  const bad = absurdAmount(b);
  if (bad !== undefined)
    return { skipped: { folio: String(b.folio), reason: `${bad}: not a finite amount within ±10^15` } };
  try {
    return { kept: price(options.full ? b : knownFields(b), options.discount) };
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
