/**
 * A finished review's date basis settled and said (interface.md §6g): reads the other bases through
 * the review's own snapshot machinery (basis-line.ts says what and how) and puts the facts in
 * `review.bases` / `review.company` and the lines in the result's text.
 */
import {
  type BasisCheck,
  type BasisDeps,
  basisLine,
  companyLine,
  type OtherWindow,
  settleBases,
} from "./basis-line.js";
import { CONTEXT, type QueryBudgetsResult, type ResultContext } from "./budget-result.js";
import type { DiscountKind } from "./budget-view.js";
import type { ResolvedPeriod } from "./period.js";
import { type ReadDeps, readReview } from "./review/read.js";
import type { Kept } from "./review/records.js";
import { matching, type ReviewAsk } from "./review/result.js";

export type { BasisDeps };

interface Source extends Omit<ReadDeps, "progress"> {
  other?: BasisDeps["other"] | undefined;
  status?: number | undefined;
  fresh?: boolean | undefined;
}

interface Deps {
  view: "compact" | "detail" | "full";
  discount: DiscountKind | undefined;
  source: Source;
}

/** The read a result was built from (a review's, or a whole list's): its records and the API's count. */
export interface HereRead {
  records: Kept[];
  window: ResolvedPeriod;
  maxRecords: number;
  apiTotal: number | undefined;
  totalIsPageLength: boolean;
}

/** The priced records of a list result that holds its whole window, kept unseen for the basis check. */
export const LISTED = Symbol("listed");

/** A check as structuredContent carries it: the text has the figures and folios, not repeated here. */
function slim(c: BasisCheck): object {
  if (!c.settled)
    return {
      type_date: c.type_date,
      settled: false,
      why: c.unsettled,
      ...(c.budgets === undefined ? {} : { budgets: c.budgets }),
    };
  return {
    type_date: c.type_date,
    same: c.same,
    matched: c.matched,
    ...(c.same ? {} : { adds: c.only_there?.count ?? 0, leaves_out: c.only_here?.count ?? 0 }),
  };
}

/** Settle the other bases of a finished review (or a list of its whole window), and say it in the result. */
export async function settledLines(
  out: QueryBudgetsResult,
  input: ReviewAsk & { until?: string | undefined },
  here: HereRead,
  deps: Deps,
): Promise<void> {
  const { source } = deps;
  if (source.other === undefined) return;
  const read = (other: OtherWindow, maxRecords: number) =>
    readReview(
      {
        key: other.key,
        described: other.described,
        window: other.window,
        maxRecords,
        keep: deps.view,
        discount: deps.discount,
        fresh: source.fresh,
      },
      // No progress of their own: a call's progress only rises, and the review's walk already reached its end.
      { ...source, fetchPage: other.fetchPage, onSnapshot: undefined, progress: async () => {} },
    );
  const facts = await settleBases(
    input,
    {
      window: here.window,
      records: here.records,
      matched: matching(input, here.records, here.window),
      apiTotal: here.apiTotal,
      totalIsPageLength: here.totalIsPageLength,
    },
    { other: source.other, read, maxRecords: here.maxRecords, status: source.status },
  );
  // A list has no review block: its checks stand beside its records.
  Object.assign(out.review ?? out, {
    bases: facts.bases.map(slim),
    ...(facts.company?.all_read ? { company: facts.company } : {}),
  });
  const context = (out as { [CONTEXT]?: ResultContext })[CONTEXT];
  if (context === undefined) return;
  const lines = [
    companyLine(
      facts,
      context.status,
      input.until === undefined ? undefined : (here.window.period.until ?? undefined),
    ),
    basisLine(facts, out.review?.matched ?? out.total),
  ].filter((l): l is string => l !== undefined);
  if (lines.length > 0) context.closing = [...(context.closing ?? []), ...lines];
}
