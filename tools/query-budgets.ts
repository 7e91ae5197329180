/** Tool `query_budgets`: GET wo_budget[/{id}] (api-spec §4.4), compact or full view, optional walk of every page. */
import { z } from "zod";
import { budgetLine, compactBudget, fullBudget } from "../src/budget-view.js";
import { toApiPeriod } from "../src/dates.js";
import { collectPages } from "../src/paging.js";
import { defineTool } from "../src/tool.js";
import {
  all,
  DEFAULT_MAX_RECORDS,
  isoDate,
  limit,
  maxRecords,
  pageInfo,
  pagingHint,
  start,
} from "./params.js";

const DEFAULT_LIMIT = 25;
const STATUS_CODES = { pending: 1, approved: 2, cancelled: 3 } as const;

export const QueryBudgetsInput = z.strictObject({
  id: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe("Budget folio: returns that budget only (wo_folio is then ignored)."),
  status: z
    .union([z.enum(["pending", "approved", "cancelled"]), z.literal([1, 2, 3])])
    .optional()
    .describe('"pending" (1, to approve), "approved" (2), "cancelled" (3, shown as rejected).'),
  wo_folio: z.string().min(1).max(100).optional().describe("Work-order number: budgets of that work order."),
  since: isoDate("Start of the period (default: 30 days ago)"),
  until: isoDate("End of the period (default: now)"),
  type_date: z
    .enum(["creation_date", "initial_date", "final_date", "approval_date"])
    .optional()
    .describe(
      "Which date the period filters: creation_date (work-order creation, default), initial_date / final_date (task), approval_date.",
    ),
  start,
  limit: limit(DEFAULT_LIMIT),
  all,
  max_records: maxRecords,
  view: z
    .enum(["compact", "full"])
    .optional()
    .describe(
      "compact (default): folio, work order, status, reference, third party, cost center, currency, totals, dates, line count. full: every field with list_items.",
    ),
});

const Compact = z.object({
  folio: z.string(),
  wo_folio: z.string().nullable(),
  status: z.number(),
  status_label: z.string().nullable(),
  work_order_status: z.string().nullable(),
  reference: z.string().nullable(),
  third_party: z.string().nullable(),
  cost_center: z.string().nullable(),
  currency: z.string().nullable(),
  items_total: z.number().describe("Sum of the lines' total_cost, in the budget currency."),
  discount: z.number().nullable(),
  item_count: z.number(),
  date_create: z.string(),
  approval_date: z.string().nullable(),
  final_date: z.string().nullable(),
});

export const QueryBudgetsOutput = z.object({
  ...pageInfo,
  view: z.enum(["compact", "full"]),
  budgets: z
    .array(z.union([Compact, z.looseObject({ folio: z.string() })]))
    .describe("Compact or full budgets, per `view`."),
});

export default defineTool({
  name: "query_budgets",
  title: "Query work-order budgets",
  description: [
    "List work-order budgets (quotes) with their status, third party, cost center, currency and line totals.",
    "Use this tool to review budgets pending approval, find a budget by folio or work order, or total budgets over a period.",
    'status: "pending" (1), "approved" (2), "cancelled" (3). The period defaults to the last 30 days on type_date (default creation_date); dates are ISO 8601.',
    `Pages of up to 100 (default ${DEFAULT_LIMIT}); all=true walks every page up to max_records (default ${DEFAULT_MAX_RECORDS}). view "full" adds every field and the lines.`,
    'Example: {"status": "pending", "since": "2024-05-01", "until": "2024-05-31"}',
  ].join("\n"),
  inputSchema: QueryBudgetsInput,
  outputSchema: QueryBudgetsOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async handler(input, ctx) {
    const period = toApiPeriod(input.since, input.until);
    const status = typeof input.status === "string" ? STATUS_CODES[input.status] : input.status;
    const base = {
      id: input.id,
      status,
      wo_folio: input.id === undefined ? input.wo_folio : undefined,
      since: period.since,
      until: period.until,
      type_date: input.type_date,
    };
    const result = await collectPages(
      (pageStart, pageLimit) =>
        ctx.api.queryBudgets({ ...base, start: pageStart, limit: pageLimit }, { signal: ctx.signal }),
      {
        start: input.start ?? 0,
        limit: input.limit ?? DEFAULT_LIMIT,
        all: input.all ?? false,
        maxRecords: input.max_records ?? DEFAULT_MAX_RECORDS,
        onProgress: (fetched, target) =>
          ctx.progress({
            progress: fetched,
            total: target,
            message: `Fetched ${fetched} of ${target} budgets`,
          }),
      },
    );
    const view = input.view ?? "compact";
    return {
      total: result.total,
      returned: result.items.length,
      start: result.start,
      next_start: result.nextStart,
      omitted: result.omitted,
      view,
      budgets: view === "full" ? result.items.map(fullBudget) : result.items.map(compactBudget),
    };
  },
  toText(out) {
    const head = `${out.returned} of ${out.total} budget(s) from start=${out.start} (${out.view} view).`;
    const lines = out.budgets.map((b) =>
      out.view === "compact" ? budgetLine(b as z.output<typeof Compact>) : JSON.stringify(b),
    );
    return [head, ...lines, pagingHint(out)].filter((l) => l !== "").join("\n");
  },
});
