/**
 * A `query_budgets` call checked and named (interface.md §6, §6c, §6e): the combinations refused
 * with their one fix, the API's status code, the snapshot key (the window as asked and the filters
 * sent upstream) and the history key (the filters as asked, without how the result is shown).
 */
import { UserInputError } from "../errors/api-error.js";

// api-spec §3: status 3 is "cancelled" as a filter and "rejected" as returned; both names work.
export const STATUS_CODES = { pending: 1, approved: 2, rejected: 3, cancelled: 3 } as const;

/** The arguments these steps read (the tool's schema gives more). */
export interface Ask {
  id?: string | undefined;
  wo_folio?: string | undefined;
  status?: keyof typeof STATUS_CODES | 1 | 2 | 3 | undefined;
  since?: string | undefined;
  until?: string | undefined;
  type_date?: string | undefined;
  currency?: string | string[] | undefined;
  cost_center?: string | undefined;
  third_party?: string | undefined;
  min_total?: number | undefined;
  max_total?: number | undefined;
  amount?: "items" | "net" | undefined;
  group_by?: readonly string[] | undefined;
  max_records?: number | undefined;
  view?: "compact" | "detail" | "full" | undefined;
}

export const apiStatus = (status: Ask["status"]) =>
  typeof status === "string" ? STATUS_CODES[status] : status;

/** The combinations the tool refuses, each with its fix. */
export function checkAsk(
  input: Ask,
  limits: { discountKnown: boolean; maxListRecords: number; maxReview: number },
): void {
  // api-spec §4.4: the API ignores wo_folio when id is sent; refuse rather than drop it silently.
  if (input.id !== undefined && input.wo_folio !== undefined)
    throw new UserInputError(
      "send id or wo_folio, not both: id (the budget folio) already selects one budget",
      { fields: ["id", "wo_folio"] },
    );
  if (input.min_total !== undefined && input.max_total !== undefined && input.min_total > input.max_total)
    throw new UserInputError(
      `min_total (${input.min_total}) is above max_total (${input.max_total}); swap them`,
      { fields: ["min_total", "max_total"] },
    );
  if (input.amount === "net" && !limits.discountKnown)
    throw new UserInputError(
      'amount "net" needs to know whether the API\'s discount is a percentage or an amount, which the API does not say: the operator sets MMS_BUDGET_DISCOUNT=percent or amount. Without it, use amount "items" (before the discount).',
      { field: "amount" },
    );
  const grouped = (input.group_by?.length ?? 0) > 0;
  if (!grouped && input.max_records !== undefined && input.max_records > limits.maxListRecords)
    throw new UserInputError(
      `max_records ${input.max_records} is above ${limits.maxListRecords} for a list of records: add group_by for a summary (up to ${limits.maxReview}), or lower max_records`,
      { field: "max_records" },
    );
}

/** The snapshot key: the window as asked (a relative window is the same window a minute later), type_date, the filters sent upstream, and the view (what each budget keeps). */
export function snapshotKey(input: Ask): { key: string; described: string } {
  const status = apiStatus(input.status);
  const asked = {
    since: input.since ?? null,
    until: input.until ?? null,
    type_date: input.type_date ?? "creation_date",
    status: status ?? null,
    id: input.id ?? null,
    wo_folio: input.wo_folio ?? null,
    view: input.view ?? "compact",
  };
  const described = [
    `since ${asked.since ?? "default (30 days)"}`,
    `until ${asked.until ?? "now"}`,
    asked.type_date,
    ...(asked.status === null ? [] : [`status ${asked.status}`]),
    ...(asked.id === null ? [] : [`id ${asked.id}`]),
    ...(asked.wo_folio === null ? [] : [`wo_folio ${asked.wo_folio}`]),
    ...(asked.view === "compact" ? [] : [`view ${asked.view}`]),
  ].join(", ");
  return { key: JSON.stringify(asked), described };
}
