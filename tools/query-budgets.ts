/**
 * Tool `query_budgets`: GET wo_budget[/{id}] (api-spec §4.4). A page in the compact or full
 * view, or a server-side review (interface.md §6): filters the API lacks, sorting and
 * per-currency summaries over every page of the period, with progress.
 */
import { z } from "zod";
import type { BudgetQuery } from "../src/client/types.js";
import {
  budgetsText,
  listBudgets,
  type QueryBudgetsResult,
  reviewBudgets,
} from "../src/domain/budget-query.js";
import { GROUPS, wantsReview } from "../src/domain/budget-review.js";
import { resolvePeriod, TYPE_DATES } from "../src/domain/period.js";
import {
  createReviewServices,
  type Deadline as ReviewDeadline,
  type ReviewServices,
} from "../src/domain/review/services.js";
import { UserInputError } from "../src/errors/api-error.js";
import { countSnapshot } from "../src/telemetry/metrics.js";
import { type AnyTool, defineTool, type ToolConfig, type ToolContext } from "./define.js";
import { all, isoDate, limit, pageInfo, start, text } from "./params.js";

const DEFAULT_LIMIT = 25;
const SHORT_VIEW_DEFAULT_LIMIT = 10;
/** A record list reads at most this many; a summary (group_by) holds no record and reads up to MAX_REVIEW. */
const MAX_LIST_RECORDS = 10_000;
const MAX_REVIEW = 100_000;
// api-spec §3: status 3 is "cancelled" as a filter and "rejected" as returned; both names work.
const STATUS_CODES = { pending: 1, approved: 2, rejected: 3, cancelled: 3 } as const;

/** A bound on a budget total: far beyond any real amount is a mistake (and past 10^21 not a plain decimal). */
const totalBound = z.number().refine((v) => Math.abs(v) <= 1e15, {
  error: "must be between -10^15 and 10^15 (1000000000000000): no budget total comes near it",
});

export const QueryBudgetsInput = z.strictObject({
  id: text(100, "Budget folio.").optional(),
  status: z.literal(["pending", "approved", "rejected", "cancelled", 1, 2, 3]).optional(),
  wo_folio: text(100).optional(),
  since: isoDate('ISO 8601, a duration back (P90D, PT12H) or "all"; default P30D.'),
  until: isoDate('ISO 8601 or "now" (default).'),
  type_date: z.enum(TYPE_DATES).optional().describe("Default creation_date: the WORK ORDER's creation."),
  currency: z
    .union([text(60), z.array(text(60)).refine((a) => a.length <= 20, { error: "at most 20 currencies" })])
    .optional()
    .describe("ISO code or name, or a list."),
  cost_center: text(100, "Description or id.").optional(),
  third_party: text(100, "Code or part of the name.").optional(),
  min_total: totalBound.optional(),
  max_total: totalBound.optional(),
  amount: z
    .enum(["items", "net"])
    .optional()
    .describe("For bounds, sort, group_by: items_total or net_total."),
  sort: z.enum(["total_desc", "total_asc", "date_desc", "date_asc"]).optional(),
  group_by: z.array(z.enum(GROUPS)).optional(),
  start,
  limit: limit(DEFAULT_LIMIT),
  all,
  max_records: z
    .number()
    .int()
    .min(1)
    .max(MAX_REVIEW)
    .optional()
    .describe("Default 1000; over 10000 needs group_by."),
  view: z.enum(["compact", "detail", "full"]).optional(),
  resume: z.string().optional(),
  fresh: z.boolean().optional(),
});

export const QueryBudgetsOutput = z.object({
  ...pageInfo,
  complete: z.boolean(),
  period: z.looseObject({}),
  today: z.string(),
  view: z.enum(["compact", "detail", "full", "summary"]),
  budgets: z.array(z.looseObject({})),
  groups: z.array(z.looseObject({})).optional(),
  subtotals: z.array(z.looseObject({})).optional(),
  pending_age: z.array(z.looseObject({})).optional(),
  review: z.looseObject({}).optional(),
  as_of: z.string().optional(),
  resume: z.string().optional(),
  rankings: z.array(z.looseObject({})).optional(),
  repeated_work_orders: z.array(z.looseObject({})).optional(),
  // {code, text, params?} (src/domain/notes.ts, docs/tools.md "Notes"): described there, not here, to keep tools/list small.
  notes: z.array(z.looseObject({})).optional(),
});

/** The snapshot key: the window as asked (a relative window is the same window a minute later), type_date, the filters sent upstream, and the view (what each budget keeps). */
function snapshotKey(input: z.output<typeof QueryBudgetsInput>, status: number | undefined) {
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

type Deadline = ReviewDeadline | undefined;

/** Run `review` under the call's deadline (none for an MCP task), its timer cleared after. */
async function withDeadline<T>(
  reviews: ReviewServices | undefined,
  review: (deadline: Deadline) => Promise<T>,
): Promise<T> {
  if (reviews === undefined) return review(undefined);
  const deadline = reviews.startDeadline(reviews.deadlineMs);
  try {
    return await review(deadline);
  } finally {
    deadline.clear();
  }
}

function reviewSource(
  input: z.output<typeof QueryBudgetsInput>,
  query: Omit<BudgetQuery, "start" | "limit">,
  ctx: ToolContext,
  reviews: ReviewServices,
  deadline: Deadline,
) {
  return {
    ...snapshotKey(input, query.status),
    resume: input.resume,
    fresh: input.fresh,
    deadlineMs: deadline === undefined ? undefined : reviews.deadlineMs,
    snapshots: reviews.snapshots,
    inflight: reviews.inflight,
    signal: ctx.signal,
    deadline,
    clock: Date.now,
    onSnapshot: countSnapshot,
    fetchPage: (start: number, limit: number, signal: AbortSignal) =>
      // The client's budget waits end at the deadline (RATE_LIMITED with retryAt) rather than past it.
      ctx.api.queryBudgets({ ...query, start, limit }, { signal, deadline: deadline?.at }),
  };
}

const queryBudgets = defineTool({
  name: "query_budgets",
  title: "Query work-order budgets",
  description: [
    "List work-order budgets. Compact: folio, work order, status, cost center, third party, currency, items_total, line_count, dates; detail adds discount, note, lines.",
    "items_total: sum of line totals, before discount and taxes.",
    "Use this tool to review: filters, sort, group_by (age: days old) run over every page; sums never mix currencies. id/wo_folio lookups cover every date.",
    'Budgets created in a period: type_date "budget_created".',
    "A partial review (deadline) continues with its resume. Rereads use a snapshot (as_of) unless fresh.",
    'Example: {"status": "pending", "group_by": ["currency"]}',
  ].join("\n"),
  inputSchema: QueryBudgetsInput,
  outputSchema: QueryBudgetsOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  // A review may outlast a host's patience: a client that offers tasks can poll for it instead.
  taskSupport: "optional",
  prefersTask: (input) =>
    input.all === true ||
    input.type_date === "budget_created" ||
    wantsReview({ ...input, currency: input.currency === undefined ? undefined : [input.currency].flat() }),
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
    if (input.amount === "net" && ctx.budgetDiscount === undefined) {
      throw new UserInputError(
        'amount "net" needs to know whether the API\'s discount is a percentage or an amount, which the API does not say: the operator sets MMS_BUDGET_DISCOUNT=percent or amount. Without it, use amount "items" (before the discount).',
        { field: "amount" },
      );
    }
    const grouped = (input.group_by?.length ?? 0) > 0;
    if (!grouped && input.max_records !== undefined && input.max_records > MAX_LIST_RECORDS) {
      throw new UserInputError(
        `max_records ${input.max_records} is above ${MAX_LIST_RECORDS} for a list of records: add group_by for a summary (up to ${MAX_REVIEW}), or lower max_records`,
        { field: "max_records" },
      );
    }
    const lookup =
      input.id !== undefined
        ? `folio ${input.id}`
        : input.wo_folio !== undefined
          ? `work order ${input.wo_folio}`
          : undefined;
    const window = resolvePeriod({ ...input, lookup, lookbackDays: ctx.budgetLookbackDays }, ctx.now());
    const query = {
      id: input.id,
      status: typeof input.status === "string" ? STATUS_CODES[input.status] : input.status,
      wo_folio: input.wo_folio,
      ...window.api,
      // budget_created is not the API's: it reads creation_date (the work orders) over a wider window.
      type_date: input.type_date === undefined ? undefined : window.api.type_date,
    };
    const view = input.view ?? "compact";
    const deps = {
      view,
      window,
      discount: ctx.budgetDiscount,
      progress: (update: Parameters<typeof ctx.progress>[0]) => ctx.progress(update),
      now: () => ctx.now(),
      defaultLimit: view === "compact" ? DEFAULT_LIMIT : SHORT_VIEW_DEFAULT_LIMIT,
      fetchPage: (start: number, limit: number) =>
        ctx.api.queryBudgets({ ...query, start, limit }, { signal: ctx.signal }),
    };
    const args = {
      ...input,
      currency: typeof input.currency === "string" ? [input.currency] : input.currency,
    };
    // budget_created filters what the API sends on the budget's own date: only a review can.
    if (!wantsReview(args) && window.period.type_date !== "budget_created") {
      if (input.resume !== undefined)
        throw new UserInputError(
          "resume continues a review (a call with group_by, sort or a filter the API lacks); this call lists one page: use start instead",
          { field: "resume" },
        );
      return listBudgets(args, deps);
    }
    const reviews = ctx.reviews ?? createReviewServices().forTenant(undefined);
    return withDeadline(ctx.asTask ? undefined : reviews, (deadline) =>
      reviewBudgets(args, {
        ...deps,
        source: reviewSource(input, query, ctx, reviews, deadline),
      }),
    );
  },
  toText: (out) => budgetsText(out as QueryBudgetsResult),
});

/** Without MMS_BUDGET_DISCOUNT there is no net amount: no `amount` to offer, one line on how to enable it. */
const itemsOnly: AnyTool = {
  ...queryBudgets,
  description: `${queryBudgets.description}\namount "net" needs MMS_BUDGET_DISCOUNT.`,
  inputSchema: z.strictObject(QueryBudgetsInput.omit({ amount: true }).shape, {
    error: (issue) =>
      issue.code === "unrecognized_keys" && issue.keys.length === 1 && issue.keys[0] === "amount"
        ? "amount needs MMS_BUDGET_DISCOUNT=percent or amount (the operator's setting: the API does not say what its discount is); without it amounts are items_total, before the discount: drop amount"
        : undefined,
  }),
};

export default {
  ...queryBudgets,
  configure: (config: ToolConfig) => (config.budgetDiscount === undefined ? itemsOnly : queryBudgets),
} as AnyTool;
