/**
 * A review's read as the ledger sees it (interface.md §6f): what it asked the API (its coverage),
 * every budget it fetched (matching or not: the filters the API lacks are the server's), and what
 * the compare needs of it (the matching budgets, its filters on a budget as it was, and how to read
 * the budgets that left it).
 */
import type { Budget } from "../../client/types.js";
import { apiStatus } from "../budget-ask.js";
import { type DiscountKind, type PricedBudget, price } from "../budget-view.js";
import type { ApiTypeDate, ResolvedPeriod } from "../period.js";
import { budgetLine } from "../review/history-codec.js";
import type { Kept } from "../review/records.js";
import type { ThisRead } from "../review/remember.js";
import { matching, type ReviewAsk } from "../review/result.js";
import type { Coverage } from "./coverage.js";

/** How the compare reads budgets one work order or one id at a time (the tool's client, paced). */
export type Lookup = (q: {
  wo_folio?: string;
  id?: string;
  since?: string;
  until?: string;
  type_date?: ApiTypeDate;
}) => Promise<Budget[]>;

export interface ReadFacts {
  ask: ReviewAsk & {
    status?: string | number | undefined;
    id?: string | undefined;
    wo_folio?: string | undefined;
  };
  /** The window the read covered (a snapshot's may date from before this call). */
  window: ResolvedPeriod;
  /** Every record the walk fetched, in the order read. */
  records: readonly Kept[];
  at: number;
  complete: boolean;
  discount: DiscountKind | undefined;
  lookup: Lookup;
}

const instant = (iso: string | null | undefined) =>
  iso === null || iso === undefined ? null : Date.parse(iso);

export function coverageOf(f: ReadFacts): Coverage {
  const p = f.window.period;
  return {
    at: f.at,
    b: f.window.api.type_date,
    f: instant(p.work_orders_since ?? p.since),
    t: instant(p.until),
    s: (apiStatus(f.ask.status as never) as number | undefined) ?? null,
    id: f.ask.id ?? null,
    wo: f.ask.id === undefined ? (f.ask.wo_folio ?? null) : null,
    c: f.complete,
  };
}

/** Never a thrown error out of a lookup: undefined says it could not be read. */
const settled = (p: Promise<Budget[]>) =>
  p.then(
    (v) => v,
    () => undefined,
  );

export function thisRead(f: ReadFacts): ThisRead {
  const coverage = coverageOf(f);
  const api = f.window.api;
  return {
    at: f.at,
    coverage,
    // In the API's order: versions of one budget meet in the same order each morning.
    eachLine: (add) => {
      for (const r of [...f.records].sort((a, b) => a.seq - b.seq)) add(budgetLine(r.p));
    },
    today: {
      basis: coverage.b,
      from: coverage.f,
      to: coverage.t,
      status: coverage.s,
      id: coverage.id,
      wo: coverage.wo,
      at: f.at,
      ownDate: f.window.period.type_date === "budget_created",
      complete: f.complete,
      // Only a compare needs it: a read that does not ask compare_to pays only the write.
      get matching() {
        return matching(f.ask, f.records, f.window);
      },
      fetched: f.records,
      matchesThen: (p) => matching(f.ask, [{ p, seq: 0 }], f.window).length === 1,
      price: (b) => price(b, f.discount),
      lookupWo: (wo) =>
        settled(f.lookup({ wo_folio: wo, since: api.since, until: api.until, type_date: api.type_date })),
      lookupId: (folio) => settled(f.lookup({ id: folio })),
    },
  };
}

/** A list's page (or pages) as a read: its budgets recorded, covering its filters only when whole. */
export function listRead(
  f: Omit<ReadFacts, "records" | "lookup"> & { priced: readonly PricedBudget[] },
): ThisRead {
  return thisRead({
    ...f,
    records: f.priced.map((p, seq) => ({ p, seq })),
    lookup: async () => [],
  });
}
