/** Tool `query_budgets`: GET wo_budget[/{id}] (api-spec §4.4), compact or full view, optional walk of every page. */
import { z } from "zod";
import { budgetLine, type CompactBudget, compactBudget, fullBudget } from "../src/budget-view.js";
import { toApiPeriod } from "../src/dates.js";
import { UserInputError } from "../src/errors/api-error.js";
import { defineTool } from "../src/tool.js";
import { all, fetchPaged, isoDate, limit, maxRecords, pageInfo, pagingHint, start, text } from "./params.js";

const DEFAULT_LIMIT = 25;
/**
 * A full budget costs about 500 tokens twice (structured and text): past 20 a page would
 * break the ~25k-token limit of MCP hosts, so bigger full pages are refused with the way out.
 */
const FULL_VIEW_MAX_PAGE = 20;
const FULL_VIEW_DEFAULT_LIMIT = 10;
const FULL_VIEW_MAX_RECORDS = 100;

function checkFullViewSize(input: {
  limit?: number | undefined;
  all?: boolean | undefined;
  max_records?: number | undefined;
}) {
  if (!input.all && input.limit !== undefined && input.limit > FULL_VIEW_MAX_PAGE) {
    throw new UserInputError(
      `limit: at most ${FULL_VIEW_MAX_PAGE} with view "full" (about 1,000 tokens per budget); page with start/next_start, or use the compact view`,
      { field: "limit", max: FULL_VIEW_MAX_PAGE },
    );
  }
  if (input.all && input.max_records !== undefined && input.max_records > FULL_VIEW_MAX_RECORDS) {
    throw new UserInputError(
      `max_records: at most ${FULL_VIEW_MAX_RECORDS} with view "full"; use the compact view to scan more, then view "full" with id for the ones you need`,
      { field: "max_records", max: FULL_VIEW_MAX_RECORDS },
    );
  }
}

const STATUS_CODES = { pending: 1, approved: 2, cancelled: 3 } as const;

export const QueryBudgetsInput = z.strictObject({
  id: text(100, "Budget folio.").optional(),
  status: z
    .literal(["pending", "approved", "cancelled", 1, 2, 3])
    .optional()
    .describe("3 is shown as rejected."),
  wo_folio: text(100, "Work-order number.").optional(),
  since: isoDate("Period start (default 30 days ago)"),
  until: isoDate("Period end (default now)"),
  type_date: z
    .enum(["creation_date", "initial_date", "final_date", "approval_date"])
    .optional()
    .describe("Default creation_date (of the work order)."),
  start,
  limit: limit(DEFAULT_LIMIT),
  all,
  max_records: maxRecords,
  view: z.enum(["compact", "full"]).optional().describe("full: every field and line, ≤20 a page."),
});

export const QueryBudgetsOutput = z.object({
  ...pageInfo,
  view: z.enum(["compact", "full"]),
  budgets: z.array(z.looseObject({ folio: z.string() })),
});

export default defineTool({
  name: "query_budgets",
  title: "Query work-order budgets",
  description: [
    "List work-order budgets: status, work order, third party, cost center, totals, dates.",
    "Use this tool to review budgets pending approval or find one by folio or work order.",
    `Period default: last 30 days. Pages of up to 100 (default ${DEFAULT_LIMIT}).`,
    'Example: {"status": "pending", "since": "2024-05-01", "until": "2024-05-31"}',
  ].join("\n"),
  inputSchema: QueryBudgetsInput,
  outputSchema: QueryBudgetsOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async handler(input, ctx) {
    // api-spec §4.4: the API ignores wo_folio when id is sent; refuse rather than drop it silently.
    if (input.id !== undefined && input.wo_folio !== undefined) {
      throw new UserInputError(
        "send id or wo_folio, not both: id (the budget folio) already selects one budget",
        {
          fields: ["id", "wo_folio"],
        },
      );
    }
    const period = toApiPeriod(input.since, input.until);
    const status = typeof input.status === "string" ? STATUS_CODES[input.status] : input.status;
    const base = {
      id: input.id,
      status,
      wo_folio: input.wo_folio,
      since: period.since,
      until: period.until,
      type_date: input.type_date,
    };
    const view = input.view ?? "compact";
    const full = view === "full";
    if (full) checkFullViewSize(input);
    const { items, page } = await fetchPaged(
      { ...input, max_records: input.max_records ?? (full ? FULL_VIEW_MAX_RECORDS : undefined) },
      { defaultLimit: full ? FULL_VIEW_DEFAULT_LIMIT : DEFAULT_LIMIT, noun: "budgets", ctx },
      (start, limit) => ctx.api.queryBudgets({ ...base, start, limit }, { signal: ctx.signal }),
    );
    return { ...page, view, budgets: full ? items.map(fullBudget) : items.map(compactBudget) };
  },
  toText(out) {
    const head = `${out.returned} of ${out.total} budget(s) from start=${out.start} (${out.view} view).`;
    const lines = out.budgets.map((b) =>
      out.view === "compact" ? budgetLine(b as unknown as CompactBudget) : JSON.stringify(b),
    );
    // An empty page is usually the default 30-day period: say how to widen it.
    const empty =
      out.total === 0
        ? "No budget matches. The period defaults to the last 30 days of work-order creation: widen since/until, or change type_date or status."
        : "";
    return [head, ...lines, empty, pagingHint(out)].filter((l) => l !== "").join("\n");
  },
});
