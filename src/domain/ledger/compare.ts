/**
 * This review against what the ledger knew at an instant (interface.md §6f). For each budget now
 * matching: its version then (unchanged, changed, approved or rejected), or, unseen then, new only
 * where an earlier read covered where it would have been (else not compared, with the reason). For
 * each budget known then to match and not matching now: what it is now (approved, rejected, changed
 * out: `gone`, or removed), reading what this review did not (by its work order within this window,
 * then by id), paced by the client's budget and within the call's deadline.
 */
import type { Budget } from "../../client/types.js";
import type { PricedBudget } from "../budget-view.js";
import type { ApiTypeDate } from "../period.js";
import {
  budgetLine,
  type HistoryRow,
  lineOf as lineOfRow,
  parseLine,
  rowOf,
} from "../review/history-codec.js";
import type { Kept } from "../review/records.js";
import { type Changes, ChangeTally } from "./changes.js";
import { type Coverage, covers, type Miss, missReason, type Place } from "./coverage.js";
import { idKeyOfLine, type Versions } from "./versions.js";

const REMOVED = -1;
/** Budgets read one by one at most per compare; the rest are said not compared. */
export const MAX_LOOKUPS = 200;
const PARALLEL = 4;

export interface Today {
  /** The API side of this review: its date basis, window (epoch ms, null open), status, lookups. */
  basis: ApiTypeDate;
  from: number | null;
  to: number | null;
  status: number | null;
  id: string | null;
  wo: string | null;
  at: number;
  /** type_date budget_created: the window is on the budget's own date, which its record carries. */
  ownDate: boolean;
  /** Whole: every page read (else leavers are not known). */
  complete: boolean;
  /** The budgets matching every filter, and every budget the review fetched. */
  matching: readonly Kept[];
  fetched: readonly Kept[];
  /** The review's filters the API lacks, on a budget as it was (its then-version over what is known of it now). */
  matchesThen(p: PricedBudget): boolean;
  price(b: Budget): PricedBudget;
  /** The budgets of work order `wo` within this window (any status), or by id; undefined: could not be read. */
  lookupWo(wo: string): Promise<Budget[] | undefined>;
  lookupId(folio: string): Promise<Budget[] | undefined>;
}

export interface Compared {
  changes: Changes;
  tally: ChangeTally;
  /** Budgets found removed: written to the ledger as such. */
  removed: string[];
}

/** The comparison, or undefined when no whole read at or before `then` is kept (nothing is claimed). */
export async function compareWith(
  versions: Versions | undefined,
  reads: readonly Coverage[],
  then: number,
  today: Today,
): Promise<Compared | undefined> {
  const before = reads.filter((c) => c.at <= then);
  if (before.length === 0) return undefined;
  const known = versions?.knownAt(then);
  const tally = new ChangeTally();
  const seenNow = new Uint8Array(versions?.budgets ?? 0);
  const misses = new Map<Miss, number>();
  for (const r of today.matching) {
    const line = budgetLine(r.p);
    const k = versions?.ids.get(idKeyOfLine(line));
    if (k !== undefined) seenNow[k] = 1;
    const j = k === undefined ? -1 : known![k]!;
    // Nearly every budget, on a morning: the same line as then, never parsed.
    if (j !== -1 && versions!.line(j) === line) {
      tally.unchanged += 1;
      continue;
    }
    const now = parseLine(line);
    const then = j === -1 ? undefined : versions!.row(j);
    if (then !== undefined && then.status !== REMOVED) {
      tally.change(then, now);
      continue;
    }
    const miss = firstMiss(before, today, now);
    if (miss === undefined) tally.add("new", now);
    else {
      tally.notCompared += 1;
      misses.set(miss, (misses.get(miss) ?? 0) + 1);
    }
  }
  const removed = today.complete ? await leavers(versions, known, seenNow, today, tally) : [];
  const commonest = [...misses].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (commonest !== undefined) tally.reasons.unshift(missReason(commonest, before, then));
  const thenAt = Math.max(...before.map((c) => c.at));
  return { changes: tally.result(thenAt, today.at, today.complete), tally, removed };
}

/** Why no earlier read covers `row` (undefined: one does, so unseen means new). */
function firstMiss(reads: readonly Coverage[], today: Today, row: HistoryRow): Miss | undefined {
  const place = placeOf(today, row);
  let miss: Miss | undefined;
  for (const c of reads) {
    const m = covers(c, today.basis, place);
    if (m === "yes") return undefined;
    miss ??= m;
  }
  return miss;
}

const ms = (date: string) =>
  date === "" ? Number.NaN : Date.parse(date.length === 10 ? `${date}T00:00:00Z` : date);

/** Where a budget sits on this review's date basis, as far as its record tells. */
function placeOf(today: Today, row: HistoryRow): Place {
  const created = ms(row.created);
  const base = { status: row.status, folio: row.folio, wo: row.wo, created };
  if (today.basis === "approval_date" && !Number.isNaN(ms(row.approved)))
    return { ...base, from: ms(row.approved), to: ms(row.approved) };
  // A budget is made on or after its work order: the work order's date is within the window, and not after it.
  const to =
    today.basis === "creation_date" && !Number.isNaN(created)
      ? Math.min(today.to ?? created, created)
      : today.to;
  return { ...base, from: today.from, to };
}

/** What became of the budgets known then to match and not matching now; the removed ones' lines. */
async function leavers(
  versions: Versions | undefined,
  known: Int32Array | undefined,
  seenNow: Uint8Array,
  today: Today,
  tally: ChangeTally,
): Promise<string[]> {
  if (versions === undefined || known === undefined) return [];
  // Built on the first budget that left this review: nearly every morning, none did.
  let byId: Map<number | string, Kept> | undefined;
  const fetched = () => (byId ??= new Map(today.fetched.map((r) => [idKeyOfLine(String(r.p.budget.id)), r])));
  const toRead: HistoryRow[] = [];
  for (let k = 0; k < known.length; k++) {
    const j = known[k]!;
    if (j === -1 || seenNow[k] === 1) continue;
    const then = versions.row(j);
    if (!mayHaveMatched(then, today)) continue;
    const now = fetched().get(idKeyOfLine(then.id));
    if (now === undefined) toRead.push(then);
    else if (budgetLine(now.p) !== versions.line(j) && today.matchesThen(asThen(then, now.p)))
      tally.change(then, rowOf(now.p), true);
  }
  return readLeavers(toRead, today, tally);
}

/** Known then to match the API side of this review (status, lookups, a date on the basis that can be checked). */
function mayHaveMatched(then: HistoryRow, today: Today): boolean {
  if (then.status === REMOVED) return false;
  if (today.status !== null && then.status !== today.status) return false;
  if ((today.id !== null && then.folio !== today.id) || (today.wo !== null && then.wo !== today.wo))
    return false;
  const created = ms(then.created);
  // Its work order is no later than the budget: a budget made before the window's start is outside it.
  if (today.basis === "creation_date" && today.from !== null && created < today.from) return false;
  if (today.basis === "approval_date") {
    const approved = ms(then.approved);
    if (Number.isNaN(approved)) return false;
    if ((today.from !== null && approved < today.from) || (today.to !== null && approved > today.to))
      return false;
  }
  return true;
}

/** The budget as it was: its then-version's fields over what is known of it now. */
function asThen(then: HistoryRow, now: PricedBudget | undefined): PricedBudget {
  const budget = {
    ...(now?.budget ?? {}),
    id: Number(then.id),
    folio: then.folio,
    wo_folio: then.wo,
    status: then.status,
    date_create: then.created,
    approval_date: then.approved === "" ? null : then.approved,
    third_parties_code: then.thirdParty,
    ...(/^\d+$/.test(then.costCenter) ? { id_cost_center: Number(then.costCenter) } : {}),
  } as Budget;
  return {
    budget,
    currency: then.currency,
    total: then.total,
    lineCount: then.lines,
    ...(now?.net === undefined ? {} : { net: now.net }),
  };
}

/** The leavers this review did not fetch, read by work order (one request each) then by id. */
async function readLeavers(toRead: HistoryRow[], today: Today, tally: ChangeTally): Promise<string[]> {
  const removed: string[] = [];
  const byWo = new Map<string, HistoryRow[]>();
  for (const row of toRead) byWo.set(row.wo, [...(byWo.get(row.wo) ?? []), row]);
  const queue = [...byWo];
  let requests = 0;
  let unread = 0;
  const work = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const [wo, rows] = next;
      if (requests >= MAX_LOOKUPS) {
        unread += rows.length;
        continue;
      }
      requests += 1;
      const found = await today.lookupWo(wo);
      if (found === undefined) {
        unread += rows.length;
        continue;
      }
      for (const row of rows) unread += await settle(row, found, today, tally, removed, () => requests++);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, work));
  if (unread > 0) {
    tally.notCompared += unread;
    tally.reasons.push(
      `${unread} budgets that left this review could not be read or placed in this window in this call`,
    );
  }
  return removed;
}

/** One leaver: found in its work order (in the window), or looked up by id (left the window, or removed). 1: unread. */
async function settle(
  row: HistoryRow,
  inWo: Budget[],
  today: Today,
  tally: ChangeTally,
  removed: string[],
  count: () => void,
): Promise<number> {
  const here = inWo.find((b) => String(b.id) === row.id);
  if (here !== undefined) {
    const now = today.price(here);
    if (today.matchesThen(asThen(row, now)) && budgetLine(now) !== lineOfRow(row))
      tally.change(row, rowOf(now), true);
    return 0;
  }
  count();
  const byId = await today.lookupId(row.folio);
  if (byId === undefined) return 1;
  if (byId.some((b) => String(b.id) === row.id)) return 0; // still there, outside this window: not this review's
  // Gone from the API. In this window then: known when its work order's other budgets are, the window is
  // open, or the window is on a date its record carries (approval, the budget's own creation).
  if (inWo.length === 0 && today.from !== null && today.basis !== "approval_date" && !today.ownDate) return 1;
  if (!today.matchesThen(asThen(row, undefined))) return 0;
  tally.add("removed", row);
  removed.push(lineOfRow({ ...row, status: REMOVED }));
  return 0;
}
