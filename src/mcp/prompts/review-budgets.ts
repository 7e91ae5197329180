/**
 * Prompt `review_budgets` (interface.md §6): walks an assistant through a budget review in a few
 * query_budgets calls (totals by status and currency, the pending queue by age, the largest
 * pending per currency, concentration by cost center and third party, budgets needing a second
 * look), never adding amounts of different currencies. With `daily`, the first call compares
 * with what was known at the end of yesterday (interface.md §6f: the server remembers budgets, not
 * filters, so any filters compare), and the report leads with what changed.
 */
import { PromptArgumentError, type PromptDefinition } from "./types.js";

const DAY = 86_400_000;
const MAX_DAYS = 3650;

function periodDays(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === "") return 30;
  const n = Number(raw.trim());
  if (!Number.isInteger(n) || n < 1 || n > MAX_DAYS) {
    throw new PromptArgumentError(
      `period_days must be a whole number of days from 1 to ${MAX_DAYS}, got "${raw}"`,
    );
  }
  return n;
}

const optional = (raw: string | undefined) =>
  raw === undefined || raw.trim() === "" ? undefined : raw.trim();

function isDaily(raw: string | undefined): boolean {
  const word = optional(raw)?.toLowerCase();
  if (word === undefined || word === "false") return false;
  if (word === "true") return true;
  throw new PromptArgumentError(`daily must be true or false, got "${raw}"`);
}

/** The lines a daily review leads with: the first call compares with yesterday's state. */
const dailyLines = (first: string) => [
  `Daily review: start with ${first}. Its first line says what changed since yesterday's review (approved, rejected, new, changed with amounts before and after, changed out, removed, with amounts per currency; structuredContent.changes has the folios). Lead the report with that line as it is; budgets it says were not compared are neither new nor unchanged. If it says nothing earlier is kept, say this is the first review and that tomorrow's will compare.`,
  "",
];

const reviewBudgets: PromptDefinition = {
  name: "review_budgets",
  title: "Review work-order budgets",
  description:
    "Review the work-order budgets of a period: totals per status and currency, the pending queue by age, the largest pending budgets, concentration by cost center and third party, and budgets that need a second look.",
  arguments: [
    { name: "period_days", description: "Days back from today to review (default 30).", required: false },
    { name: "currency", description: "Only this currency (ISO code or name).", required: false },
    { name: "cost_center", description: "Only this cost center (description or id).", required: false },
    {
      name: "daily",
      description: "true: compare with yesterday's review and lead with what changed.",
      required: false,
    },
  ],
  tools: ["query_budgets"],
  render(args, now = new Date()) {
    const days = periodDays(args.period_days);
    const currency = optional(args.currency);
    const costCenter = optional(args.cost_center);
    const daily = isDaily(args.daily);
    const since = new Date(now.getTime() - days * DAY).toISOString().slice(0, 10);
    const scope = {
      // A daily review keeps its window relative: tomorrow's "last N days" is the same filters as today's.
      since: daily ? `P${days}D` : since,
      ...(currency ? { currency } : {}),
      ...(costCenter ? { cost_center: costCenter } : {}),
    };
    const call = (extra: Record<string, unknown>) =>
      `query_budgets ${JSON.stringify({ ...scope, ...extra })}`;
    const focus = [currency && `currency ${currency}`, costCenter && `cost center ${costCenter}`].filter(
      Boolean,
    );
    const totals = call({ group_by: ["status", "currency"], ...(daily ? { compare_to: "yesterday" } : {}) });
    const text = [
      ...(daily ? dailyLines(totals) : []),
      // The window is on the API's creation_date, the work order's (interface.md §6d): say so.
      `Review the budgets of the work orders created in the last ${days} days (since ${since})${focus.length ? `, limited to ${focus.join(" and ")}` : ""}.`,
      "",
      "Rules: every amount is in one currency; write it with its ISO code (USD 1,250.00) and never add, compare or rank amounts of different currencies. If a result says a currency is unmapped, report it under its name. Each result's first line says whether it is complete; if it says Partial, repeat the call with the argument it names, or say the figures are partial. items_total is before the discount and taxes; report a discount as given (the API does not say whether it is a percentage or an amount).",
      "",
      "Steps (each call answers from the server's own sums; do not download every budget to add them up):",
      `1. Totals by status and currency: ${totals}`,
      `2. Pending queue by age: ${call({ status: "pending", group_by: ["age", "currency"] })} gives the count and total per age (0-7, 8-30, 31-60, 61-90, over 90 days) in each currency; then ${call({ status: "pending", sort: "date_asc", limit: 10 })} lists the ten waiting longest.`,
      `3. Largest pending budgets: ${call({ status: "pending", sort: "total_desc", limit: 3 })} (the top 3 of each currency, each with its count).`,
      `4. Concentration: ${call({ group_by: ["cost_center", "currency"] })} and ${call({ group_by: ["third_party", "currency"] })} (each with a subtotal per cost center or third party across currencies); name the largest share within each currency.`,
      `5. Second look: ${call({ group_by: ["work_order"] })} names the work orders with two or more budgets (folios and statuses); then page through ${call({ all: true })} (follow next_start until it is null) and list budgets with a discount other than 0 and budgets with line_count 0 (no lines).`,
      "",
      "Finish with a short report: one table of totals per status and currency, then the findings of steps 2 to 5, each with folios and amounts with their currency codes.",
    ].join("\n");
    return {
      description: `${daily ? "Daily budget review" : "Budget review"} of the last ${days} days`,
      messages: [{ role: "user", content: { type: "text", text } }],
    };
  },
};

export default reviewBudgets;
