/**
 * Tool `query_budgets`: GET wo_budget[/{id}] (api-spec §4.4). A page in the compact or full
 * view, or a server-side review (interface.md §6): filters the API lacks, sorting and
 * per-currency summaries over every page of the period, with progress.
 */
import { z } from "zod";
import type { BudgetQuery } from "../src/client/types.js";
import { apiStatus, checkAsk, snapshotKey } from "../src/domain/budget-ask.js";
import {
  budgetsText,
  listBudgets,
  lookupWords,
  type QueryBudgetsResult,
  reviewBudgets,
  settleList,
} from "../src/domain/budget-query.js";
import { GROUPS, wantsReview } from "../src/domain/budget-review.js";
import { calendarWord } from "../src/domain/calendar.js";
import { resolvePeriod, TYPE_DATES, type TypeDate } from "../src/domain/period.js";
import { parseCompareTo } from "../src/domain/review/remember.js";
import {
  createReviewServices,
  type Deadline as ReviewDeadline,
  type ReviewServices,
} from "../src/domain/review/services.js";
import { slowedForTest } from "../src/domain/review/test-slowdown.js";
import { UserInputError } from "../src/errors/api-error.js";
import { countSnapshot } from "../src/telemetry/metrics.js";
import { type AnyTool, defineTool, type ToolConfig, type ToolContext } from "./define.js";
import { all, isoDate, limit, pageInfo, start, text } from "./params.js";

const DEFAULT_LIMIT = 25;
const SHORT_VIEW_DEFAULT_LIMIT = 10;
/** A record list reads at most this many; a summary (group_by) holds no record and reads up to MAX_REVIEW. */
const MAX_LIST_RECORDS = 10_000;
const MAX_REVIEW = 100_000;

/** A bound on a budget total: far beyond any real amount is a mistake (and past 10^21 not a plain decimal). */
const totalBound = z.number().refine((v) => Math.abs(v) <= 1e15, {
  error: "must be between -10^15 and 10^15 (1000000000000000): no budget total comes near it",
});

export const QueryBudgetsInput = z.strictObject({
  id: text(100, "Budget folio.").optional(),
  status: z.literal(["pending", "approved", "rejected", "cancelled", 1, 2, 3]).optional(),
  wo_folio: text(100).optional(),
  since: isoDate(
    'ISO 8601, P90D back, "all", yesterday, last_month, this_quarter, last_quarter, this_year (UTC); default P30D.',
  ),
  until: isoDate('ISO 8601, a since word or "now" (default).'),
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
  compare_to: text(40).optional(),
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
  // `changes` (interface.md §6e) is left out of the schema: tools/list must stay small, and extra keys pass.
  rankings: z.array(z.looseObject({})).optional(),
  repeated_work_orders: z.array(z.looseObject({})).optional(),
  // {code, text, params?} (src/domain/notes.ts, docs/tools.md "Notes"): described there, not here, to keep tools/list small.
  notes: z.array(z.looseObject({})).optional(),
});

type Input = z.output<typeof QueryBudgetsInput>;
type Deadline = ReviewDeadline | undefined;

/** The call resolved: its window, what is sent upstream, the arguments and services of the query. */
function planQuery(input: Input, ctx: ToolContext) {
  const window = resolvePeriod(
    {
      ...input,
      lookup: lookupWords({ id: input.id, wo_folio: input.wo_folio }),
      lookbackDays: ctx.budgetLookbackDays,
    },
    ctx.now(),
  );
  const query = {
    id: input.id,
    status: apiStatus(input.status),
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
    // Lists and lookups are remembered too (interface.md §6f): a later compare_to knows what they saw.
    ledger: ctx.reviews?.history,
    fetchPage: (start: number, limit: number) =>
      ctx.api.queryBudgets({ ...query, start, limit }, { signal: ctx.signal, deadline: ctx.deadline }),
  };
  const args = {
    ...input,
    currency: typeof input.currency === "string" ? [input.currency] : input.currency,
  };
  return { window, query, deps, args };
}

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

/**
 * The ask as a snapshot knows it: a calendar word with what it resolved to, since "yesterday" names
 * another day after midnight UTC (a duration moves by minutes, within a snapshot's life).
 */
function asSnapshotted(input: Input, query: Omit<BudgetQuery, "start" | "limit">): Input {
  const fixed = (raw: string | undefined, sent: string | undefined) =>
    raw !== undefined && calendarWord(raw) !== undefined ? `${raw} (${sent})` : raw;
  return { ...input, since: fixed(input.since, query.since), until: fixed(input.until, query.until) };
}

function reviewSource(
  input: Input,
  query: Omit<BudgetQuery, "start" | "limit">,
  ctx: ToolContext,
  reviews: ReviewServices,
  deadline: Deadline,
) {
  return {
    ...snapshotKey(asSnapshotted(input, query)),
    history:
      reviews.history === undefined
        ? undefined
        : {
            of: reviews.history,
            compareTo:
              input.compare_to === undefined
                ? undefined
                : parseCompareTo(input.compare_to, ctx.now().getTime()),
            // What became of budgets that left the review: one work order (or one id) at a time, paced.
            lookup: async (q: Omit<BudgetQuery, "start" | "limit">) =>
              (
                await ctx.api.queryBudgets(
                  { ...q, start: 0, limit: 100 },
                  { signal: ctx.signal, deadline: deadline?.at },
                )
              ).data,
          },
    resume: input.resume,
    fresh: input.fresh,
    deadlineMs: deadline === undefined ? undefined : reviews.deadlineMs,
    snapshots: reviews.snapshots,
    inflight: reviews.inflight,
    stopGraceMs: reviews.stopGraceMs,
    signal: ctx.signal,
    deadline,
    clock: Date.now,
    asOfClock: () => ctx.now().getTime(),
    onSnapshot: countSnapshot,
    fetchPage: (start: number, limit: number, signal: AbortSignal) =>
      // The client's budget waits end at the deadline (RATE_LIMITED with retryAt) rather than past it.
      ctx.api.queryBudgets({ ...query, start, limit }, { signal, deadline: deadline?.at }),
    status: query.status,
    other:
      input.id !== undefined || input.wo_folio !== undefined
        ? undefined
        : otherBasis(input, query, ctx, deadline),
  };
}

/** The same call on another date basis (or since "all"): its snapshot key, window and pages (interface.md §6g). */
function otherBasis(
  input: Input,
  query: Omit<BudgetQuery, "start" | "limit">,
  ctx: ToolContext,
  deadline: Deadline,
) {
  return (ask: { type_date: TypeDate; since?: string }) => {
    const asked = { ...input, ...ask };
    const window = resolvePeriod({ ...asked, lookbackDays: ctx.budgetLookbackDays }, ctx.now());
    const sent = { ...query, ...window.api };
    return {
      ...snapshotKey(asked),
      window,
      fetchPage: (start: number, limit: number, signal: AbortSignal) =>
        ctx.api.queryBudgets({ ...sent, start, limit }, { signal, deadline: deadline?.at }),
    };
  };
}

const queryBudgets = defineTool({
  name: "query_budgets",
  title: "Query work-order budgets",
  description: [
    "List work-order budgets; view detail adds discount, note and lines.",
    "items_total: sum of line totals, before discount and taxes.",
    "Use this tool to review: filters, sort and group_by (age: days old) cover every page; sums never mix currencies; id/wo_folio lookups, every date.",
    'Budgets created in a period: type_date "budget_created".',
    "A partial review continues with its resume; rereads use a snapshot (as_of) unless fresh.",
    'What changed: compare_to "yesterday", "previous", an instant or P1D works with any filters and needs none of the earlier review\'s.',
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
    checkAsk(input, {
      discountKnown: ctx.budgetDiscount !== undefined,
      maxListRecords: MAX_LIST_RECORDS,
      maxReview: MAX_REVIEW,
    });
    const plan = planQuery(input, ctx);
    // budget_created filters what the API sends on the budget's own date, and compare_to needs every match: only a review can.
    if (
      !wantsReview(plan.args) &&
      plan.window.period.type_date !== "budget_created" &&
      input.compare_to === undefined
    ) {
      if (input.resume !== undefined)
        throw new UserInputError(
          "resume continues a review (a call with group_by, sort or a filter the API lacks); this call lists one page: use start instead",
          { field: "resume" },
        );
      const listed = await listBudgets(plan.args, plan.deps);
      if (!listed.complete) return listed;
      // The whole window in one list: its other date bases are settled as a review's (interface.md §6g).
      const services = ctx.reviews ?? createReviewServices().forTenant(undefined);
      return withDeadline(ctx.asTask ? undefined : services, async (deadline) => {
        const source = reviewSource(input, plan.query, ctx, services, deadline);
        await settleList(listed, plan.args, { ...plan.deps, source });
        return listed;
      });
    }
    const reviews = ctx.reviews ?? createReviewServices().forTenant(undefined);
    return slowedForTest(() =>
      withDeadline(ctx.asTask ? undefined : reviews, (deadline) =>
        reviewBudgets(plan.args, {
          ...plan.deps,
          source: reviewSource(input, plan.query, ctx, reviews, deadline),
        }),
      ),
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
