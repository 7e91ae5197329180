/**
 * Tool `query_budgets`: GET wo_budget[/{id}] (api-spec §4.4). A page in the compact or full
 * view, or a server-side review (interface.md §6): filters the API lacks, sorting and
 * per-currency summaries over every page of the period, with progress.
 */
import { z } from "zod";
import {
  budgetsText,
  listBudgets,
  type QueryBudgetsResult,
  reviewBudgets,
} from "../src/domain/budget-query.js";
import { GROUPS, wantsReview } from "../src/domain/budget-review.js";
import { toApiDate, toApiPeriod } from "../src/domain/dates.js";
import { UserInputError } from "../src/errors/api-error.js";
import { defineTool } from "./define.js";
import { all, isoDate, limit, maxRecords, pageInfo, start, text } from "./params.js";

const DEFAULT_LIMIT = 25;
const FULL_VIEW_DEFAULT_LIMIT = 10;
const DAY = 86_400_000;
// api-spec §3: status 3 is "cancelled" as a filter and "rejected" as returned; both names work.
const STATUS_CODES = { pending: 1, approved: 2, rejected: 3, cancelled: 3 } as const;

export const QueryBudgetsInput = z.strictObject({
  id: text(100, "Budget folio.").optional(),
  status: z.literal(["pending", "approved", "rejected", "cancelled", 1, 2, 3]).optional(),
  wo_folio: text(100).optional(),
  since: isoDate("ISO 8601 (UTC if no offset); default 30 days ago."),
  until: isoDate("Default now."),
  type_date: z
    .enum(["creation_date", "initial_date", "final_date", "approval_date"])
    .optional()
    .describe("Default creation_date."),
  currency: z
    .union([text(60), z.array(text(60)).refine((a) => a.length <= 20, { error: "at most 20 currencies" })])
    .optional()
    .describe("ISO code or name, or a list."),
  cost_center: text(100, "Description or id.").optional(),
  third_party: text(100, "Code or part of the name.").optional(),
  min_total: z.number().optional(),
  max_total: z.number().optional(),
  sort: z.enum(["total_desc", "total_asc", "date_desc", "date_asc"]).optional(),
  group_by: z.array(z.enum(GROUPS)).optional(),
  start,
  limit: limit(DEFAULT_LIMIT),
  all,
  max_records: maxRecords,
  view: z.enum(["compact", "full"]).optional(),
});

export const QueryBudgetsOutput = z.object({
  ...pageInfo,
  view: z.enum(["compact", "full", "summary"]),
  budgets: z.array(z.looseObject({})),
  groups: z.array(z.looseObject({})).optional(),
  review: z.looseObject({}).optional(),
  notes: z.array(z.string()).optional(),
});

export default defineTool({
  name: "query_budgets",
  title: "Query work-order budgets",
  description: [
    "List work-order budgets. Compact view: folio, work order, status, cost center, third party, ISO currency, items_total, line_count, dates.",
    "Use this tool to review budgets: filters, sort and group_by run over every page; sums never mix currencies. id/wo_folio lookups ignore the 30-day default period.",
    'Totals per currency: Example: {"status": "pending", "group_by": ["currency"]}',
  ].join("\n"),
  inputSchema: QueryBudgetsInput,
  outputSchema: QueryBudgetsOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async handler(input, ctx): Promise<QueryBudgetsResult> {
    // api-spec §4.4: the API ignores wo_folio when id is sent; refuse rather than drop it silently.
    if (input.id !== undefined && input.wo_folio !== undefined) {
      throw new UserInputError(
        "send id or wo_folio, not both: id (the budget folio) already selects one budget",
        { fields: ["id", "wo_folio"] },
      );
    }
    if (input.min_total !== undefined && input.max_total !== undefined && input.min_total > input.max_total) {
      throw new UserInputError(
        `min_total (${input.min_total}) is above max_total (${input.max_total}); swap them`,
        { fields: ["min_total", "max_total"] },
      );
    }
    const period = toApiPeriod(input.since, input.until);
    // interface.md §6: lookups are exact. An explicit all-time period keeps any deployment's
    // 30-day default from hiding an old budget.
    if (input.id !== undefined || input.wo_folio !== undefined) {
      period.since ??= "2000-01-01T00:00:00+00";
      period.until ??= toApiDate(new Date(ctx.now().getTime() + 366 * DAY).toISOString(), "until", "end").api;
    }
    const query = {
      id: input.id,
      status: typeof input.status === "string" ? STATUS_CODES[input.status] : input.status,
      wo_folio: input.wo_folio,
      ...period,
      type_date: input.type_date,
    };
    const view = input.view ?? "compact";
    const deps = {
      view,
      progress: (update: Parameters<typeof ctx.progress>[0]) => ctx.progress(update),
      now: () => ctx.now(),
      defaultLimit: view === "full" ? FULL_VIEW_DEFAULT_LIMIT : DEFAULT_LIMIT,
      fetchPage: (start: number, limit: number) =>
        ctx.api.queryBudgets({ ...query, start, limit }, { signal: ctx.signal }),
    };
    const args = {
      ...input,
      currency: typeof input.currency === "string" ? [input.currency] : input.currency,
    };
    return wantsReview(args) ? reviewBudgets(args, deps) : listBudgets(args, deps);
  },
  toText: (out) => budgetsText(out as QueryBudgetsResult),
});
