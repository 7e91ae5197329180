/** Human labels beside the API's numeric codes (api-spec §3, §2.3). */

/**
 * Budget `status` as returned: 3 is rejected, which is also how the platform records a cancelled
 * budget (the filter takes either name); results say so once, in a note (notes.ts), not in each label.
 */
export const BUDGET_STATUS: Readonly<Record<number, string>> = {
  1: "pending approval",
  2: "approved",
  3: "rejected",
};

/** `id_status_work_order`; 3 and 4 are final states. */
export const WORK_ORDER_STATUS: Readonly<Record<number, string>> = {
  1: "in process",
  2: "in review",
  3: "finished",
  4: "cancelled",
};

export const PRIORITY: Readonly<Record<number, string>> = {
  1: "very high",
  2: "high",
  3: "medium",
  4: "low",
  5: "very low",
};

export const MOVEMENT_TYPE: Readonly<Record<"1" | "2", string>> = { "1": "purchase", "2": "return" };

/**
 * The role of a warehouse entry's third party by movement type: the supplier of a purchase, the
 * customer of the exit a return brings back (api-spec §4.3 rule 4). Never call a customer "supplier".
 */
export const ENTRY_THIRD_PARTY_ROLE: Readonly<Record<"1" | "2", "supplier" | "customer">> = {
  "1": "supplier",
  "2": "customer",
};

/** The label of a code, or "unknown (<code>)" so an unexpected value is visible, never dropped. */
export function labelOf(
  table: Readonly<Record<number, string>>,
  code: number | null | undefined,
): string | null {
  if (code === null || code === undefined) return null;
  return table[code] ?? `unknown (${code})`;
}
