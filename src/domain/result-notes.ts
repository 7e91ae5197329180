/**
 * The notes a `query_budgets` result states beside its figures (notes.ts gives each its code):
 * currencies with no ISO code, no match and the one change that finds some, the one status the
 * platform keeps for rejected and cancelled budgets (interface.md §8b "One status, said once"), and
 * why a review stopped short, for the view (the text's head line already says it).
 */
import type { Shaped } from "./budget-result.js";
import type { SummaryRow } from "./budget-summary.js";
import { currencyOf } from "./money.js";
import { type Lookup, NOTES, type Note } from "./notes.js";
import type { ResolvedPeriod } from "./period.js";
import { quote } from "./upstream-text.js";

/** What the notes read of the call. */
export interface NotedInput {
  id?: string | undefined;
  wo_folio?: string | undefined;
  status?: string | number | undefined;
  currency?: string[] | undefined;
  cost_center?: string | undefined;
  third_party?: string | undefined;
  min_total?: number | undefined;
  max_total?: number | undefined;
}

export const lookupOf = (input: NotedInput): Lookup | undefined =>
  input.id !== undefined
    ? { by: "folio", value: input.id }
    : input.wo_folio !== undefined
      ? { by: "work_order", value: input.wo_folio }
      : undefined;

/** One note per currency name with no ISO code. */
export function unmappedNotes(currencies: readonly { code: string; mapped: boolean }[]): Note[] {
  const names = new Set(currencies.filter((c) => !c.mapped).map((c) => c.code));
  return [...names].map((name) => NOTES.currencyUnmapped({ name, quoted: quote(name) }));
}

/** Currencies asked for that are no ISO code or known name: matched as written only. */
export function unknownCurrencyNotes(asked: readonly string[] | undefined): Note[] {
  return (asked ?? [])
    .filter((c) => !currencyOf(c).mapped)
    .map((currency) => NOTES.currencyFilterUnknown({ currency, quoted: quote(currency) }));
}

/** Filters that can hide the budget a lookup by folio or work order asks for. */
const LOOKUP_FILTERS = [
  "status",
  "currency",
  "cost_center",
  "third_party",
  "min_total",
  "max_total",
] as const;

/** Nothing matched: the one change that finds something (a filter beside a lookup, the window, the number). */
export function emptyHint(input: NotedInput, window: ResolvedPeriod): Note {
  const lookup = lookupOf(input);
  const dated = !window.period.default && (window.period.since !== null || window.period.until !== null);
  if (lookup) {
    // A filter beside the lookup may be what hid the budget: name it before blaming the number.
    const filters = LOOKUP_FILTERS.filter((k) => input[k] !== undefined);
    if (filters.length > 0)
      return NOTES.noMatchLookupFilters({
        ...lookup,
        filters: filters.map((k) => `${k}=${JSON.stringify(input[k])}`).join(", "),
        count: filters.length,
        scope: dated ? "window" : "any_date",
      });
    return dated ? NOTES.noMatchLookupWindow(lookup) : NOTES.noMatchLookup(lookup);
  }
  return window.period.default ? NOTES.noMatchDefaultWindow() : NOTES.noMatchWindow();
}

const REJECTED = 3;

/**
 * Said once where rejected budgets show (interface.md §8b): status "cancelled" asked is the same
 * filter as "rejected" (said even when nothing matched); otherwise, where the result shows rejected
 * budgets or rows, that the platform records cancelled ones the same way.
 */
export function statusNotes(
  input: NotedInput,
  shown: { budgets: readonly Shaped[]; groups?: readonly SummaryRow[] | undefined },
): Note[] {
  if (input.status === "cancelled") return [NOTES.cancelledSameAsRejected()];
  const rejected =
    shown.budgets.some((b) => b.status === REJECTED) ||
    (shown.groups ?? []).some((g) => g.status === "rejected");
  return rejected ? [NOTES.rejectedIncludesCancelled()] : [];
}
