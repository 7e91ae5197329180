/**
 * The date basis settled in the result (interface.md §6g): whether the other bases (the work
 * order's creation, the budget's own date, the approval date) give the same answer as the window's,
 * and their figures where they differ. Each other basis is read as the same call with that
 * `type_date` would read it, through the tenant's snapshots (so that call, if made, reads nothing
 * upstream), under the review's deadline; a read that covered every budget of the company answers
 * the budget's own date from its own records. What cannot be settled in time names the call that does.
 */
import type { Budget, Page } from "../client/types.js";
import { basisFilter } from "./basis.js";
import type { PricedBudget } from "./budget-view.js";
import { type Exact, formatMoney, toNumber } from "./money.js";
import type { ResolvedPeriod, TypeDate } from "./period.js";
import type { Read } from "./review/read.js";
import type { Kept } from "./review/records.js";
import { matching, type ReviewAsk } from "./review/result.js";

/**
 * The bases an agent checks (interface.md §6g), in the order they are read: the approval window
 * and the work orders' usually hold fewer budgets than the budget's own date, which reads the lookback.
 */
export const BASES = ["approval_date", "creation_date", "budget_created"] as const;

const NAMES: Record<TypeDate, string> = {
  creation_date: "the work order's creation date",
  budget_created: "the budget's own date",
  approval_date: "approval date",
  initial_date: "the task's initial date",
  final_date: "the task's final date",
};

/** The same call on another basis, as the tool builds it: its snapshot key, words, window and pages. */
export interface OtherWindow {
  key: string;
  described: string;
  window: ResolvedPeriod;
  fetchPage(start: number, limit: number, signal: AbortSignal): Promise<Page<Budget>>;
}

export interface BasisDeps {
  /** The same call with another type_date (or since "all", for the company's count). */
  other(ask: { type_date: TypeDate; since?: string }): OtherWindow;
  /** Read a window as a review would (snapshot first, paced, under the call's deadline), up to `maxRecords`. */
  read(other: OtherWindow, maxRecords: number): Promise<Read>;
  maxRecords: number;
  /** The API's status filter of the call (1 pending: no approval date). */
  status: number | undefined;
}

/** One other basis: settled the same, settled different (its figures), or not settled. */
export type BasisCheck = {
  type_date: TypeDate;
  settled: boolean;
  same?: boolean;
  matched?: number;
  totals?: { currency: string; currency_unmapped?: true; items_total: number }[];
  /** Not settled: the call's time ran out (deadline, rate limit, a failure), or the check would read more than the review itself. */
  unsettled?: "time" | "size";
  /** Not settled: the budgets that basis holds, as the API reports. */
  budgets?: number;
  /** Folios matched on that basis and not on the window's, and the reverse (the first five). */
  only_there?: { count: number; folios: string[] };
  only_here?: { count: number; folios: string[] };
};

/** What the review read of the company: its count of budgets (same status, up to until) and whether all were read. */
export type CompanyRead = { budgets: number; all_read: boolean };

export interface BasisFacts {
  bases: BasisCheck[];
  company: CompanyRead | undefined;
}

/** The review's own read: its window, the records (up to max_records) and the matches. */
export interface Here {
  window: ResolvedPeriod;
  records: readonly Kept[];
  matched: readonly Kept[];
  apiTotal: number | undefined;
  totalIsPageLength: boolean;
}

const FOLIOS_SHOWN = 3;

/** The other bases checked, and the company's count when it tells whether every budget was read. */
export async function settleBases(ask: ReviewAsk, here: Here, deps: BasisDeps): Promise<BasisFacts> {
  const current = here.window.period.type_date;
  const company = await companyRead(here, deps);
  // IMPORTANT: the other bases together read at most as many budgets as this review holds (or five
  // pages, a few seconds at the platform's pace): settling never more than doubles a review's
  // requests beyond that floor; past it, the line names the call that settles.
  const allowance = { left: Math.max(FLOOR, here.records.length) };
  const bases: BasisCheck[] = [];
  // Pending budgets have no approval date: that basis is no other answer to them.
  const others = BASES.filter((b) => b !== current && !(b === "approval_date" && deps.status === 1));
  for (const b of others)
    bases.push(await checkBasis(ask, here, b, { ...deps, allowance }, company?.all_read === true));
  return { bases, company };
}

const FLOOR = 500;

const sameQuery = (a: ResolvedPeriod, b: ResolvedPeriod) =>
  a.api.since === b.api.since && a.api.until === b.api.until && a.api.type_date === b.api.type_date;

/**
 * The company's budgets up to `until` (same status): the read's own count when it was of every
 * work order, else one request of one record. All read when the read holds every one of them.
 */
async function companyRead(here: Here, deps: BasisDeps): Promise<CompanyRead | undefined> {
  if (here.apiTotal === undefined || here.totalIsPageLength) return undefined;
  const everything = deps.other({ type_date: "creation_date", since: "all" });
  let budgets = here.apiTotal;
  if (!sameQuery(everything.window, here.window)) {
    try {
      // One record, read as a review reads (paced, under the deadline) and kept as a snapshot: a
      // second look at this window asks nothing upstream (interface.md §6c).
      const { state } = await deps.read(everything, 1);
      if (state.apiTotal === undefined || state.totalIsPageLength) return undefined;
      budgets = state.apiTotal;
    } catch {
      return undefined;
    }
  }
  const all_read = here.window.api.type_date === "creation_date" && here.apiTotal === budgets;
  return { budgets, all_read: all_read && here.records.length >= budgets };
}

async function checkBasis(
  ask: ReviewAsk,
  here: Here,
  basis: TypeDate,
  deps: BasisDeps & { allowance: { left: number } },
  allRead: boolean,
): Promise<BasisCheck> {
  const other = deps.other({ type_date: basis });
  // Every budget was read, or the other basis sends the API the same query: its answer is in these records.
  if ((basis === "budget_created" && allRead) || sameQuery(other.window, here.window))
    return compare(basis, here.matched, sameRecords(ask, here, other.window), SAME_READ);
  // Every budget was read and no match was approved on an edge day: the approval window is in the records.
  if (basis === "approval_date" && allRead) {
    const there = approvedMatches(ask, here, other.window);
    if (there !== undefined) return compare(basis, here.matched, there, SAME_READ);
  }
  const up = Math.min(deps.maxRecords, deps.allowance.left);
  if (up <= 0) return { type_date: basis, settled: false, unsettled: "size" };
  let read: Read;
  try {
    read = await deps.read(other, up);
  } catch {
    return { type_date: basis, settled: false, unsettled: "time" };
  }
  if (read.readNow) deps.allowance.left -= Math.min(read.state.distinct, up);
  const { state } = read;
  // A snapshot may hold more than this call read: settled when it holds the whole window.
  if (!state.finished(deps.maxRecords) || state.capped(deps.maxRecords) || state.faults.size > 0)
    return {
      type_date: basis,
      settled: false,
      unsettled: read.stop.kind === "done" ? "size" : "time",
      ...(state.apiTotal === undefined || state.totalIsPageLength ? {} : { budgets: state.apiTotal }),
    };
  const records = state.records.filter((r) => r.seq < deps.maxRecords);
  return compare(basis, here.matched, matching(ask, records, read.state.window));
}

/** The API's bound as an instant: `2024-05-01T00:00:00+00` (an offset of hours alone) or any ISO form. */
const boundInstant = (api: string) => Date.parse(/[+-]\d{2}$/.test(api) ? `${api}:00` : api);

/**
 * The records approved in the window, or undefined when one of them was approved on an edge day.
 * The records carry the approval day only (no time, no zone): a day strictly between the window's
 * first and last day is in it, one before or after is not, one on an edge day (as the API was sent
 * it, or in UTC where that differs) may be either, and only the API's own read settles it.
 */
function approvedIn(records: readonly Kept[], window: ResolvedPeriod): Kept[] | undefined {
  const utcDay = (api: string) => new Date(boundInstant(api)).toISOString().slice(0, 10);
  const { since, until } = window.api;
  const sinceDays = [since.slice(0, 10), utcDay(since)].sort();
  const untilDays = [until.slice(0, 10), utcDay(until)].sort();
  const [firstLow, firstHigh] = [sinceDays[0]!, sinceDays[1]!];
  const [lastLow, lastHigh] = [untilDays[0]!, untilDays[1]!];
  const out: Kept[] = [];
  for (const r of records) {
    const date = r.p.budget.approval_date;
    if (date === null || date === undefined) continue;
    const day = date.trim().slice(0, 10);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
    if (day < firstLow || day > lastHigh) continue;
    if (day > firstHigh && day < lastLow) out.push(r);
    else return undefined;
  }
  return out;
}

/** The matches on another basis among the review's own records (its window's matches when it has no date filter of its own). */
function sameRecords(ask: ReviewAsk, here: Here, window: ResolvedPeriod): readonly Kept[] {
  if (here.window.period.type_date === "budget_created") return matching(ask, here.records, window);
  const basis = basisFilter(window);
  return basis === undefined ? here.matched : here.matched.filter((r) => basis.keep(r.p));
}

/**
 * The matches on the approval basis, from the records. Without a budget_created filter of its own,
 * the window's matches are every record the filters keep, and so the only ones to look at.
 */
function approvedMatches(ask: ReviewAsk, here: Here, window: ResolvedPeriod): Kept[] | undefined {
  if (here.window.period.type_date !== "budget_created") return approvedIn(here.matched, window);
  const approved = approvedIn(here.records, window);
  return approved === undefined ? undefined : matching(ask, approved, window);
}

/** Both lists filtered from the same records, in their order: the same records when element for element. */
const sameList = (a: readonly Kept[], b: readonly Kept[]) =>
  a.length === b.length && a.every((r, i) => r === b[i]);

/** Records of one read are told apart by their place in it (a number, cheaper to hash); another read's by folio. */
type Identity = (r: Kept) => string | number;
const SAME_READ: Identity = (r) => r.seq;
const BY_FOLIO: Identity = (r) => r.p.budget.folio;

function compare(
  basis: TypeDate,
  here: readonly Kept[],
  there: readonly Kept[],
  id: Identity = BY_FOLIO,
): BasisCheck {
  if (sameList(here, there)) return { type_date: basis, settled: true, same: true, matched: there.length };
  const mine = new Set(here.map(id));
  const theirs = new Set(there.map(id));
  const onlyThere = there.filter((r) => !mine.has(id(r))).map((r) => r.p.budget.folio);
  const onlyHere = here.filter((r) => !theirs.has(id(r))).map((r) => r.p.budget.folio);
  if (onlyThere.length === 0 && onlyHere.length === 0)
    return { type_date: basis, settled: true, same: true, matched: there.length };
  return {
    type_date: basis,
    settled: true,
    same: false,
    matched: there.length,
    totals: totalsOf(there.map((r) => r.p)),
    only_there: { count: onlyThere.length, folios: onlyThere.slice(0, FOLIOS_SHOWN) },
    only_here: { count: onlyHere.length, folios: onlyHere.slice(0, FOLIOS_SHOWN) },
  };
}

/** items_total per currency, exact, in currency-code order. */
function totalsOf(list: readonly PricedBudget[]): NonNullable<BasisCheck["totals"]> {
  const by = new Map<string, { p: PricedBudget; total: Exact }>();
  for (const p of list) {
    const t = by.get(p.currency.code);
    if (t === undefined) by.set(p.currency.code, { p, total: p.total });
    else t.total += p.total;
  }
  return [...by.values()]
    .sort((a, b) => (a.p.currency.code < b.p.currency.code ? -1 : 1))
    .map(({ p, total }) => ({
      currency: p.currency.code,
      ...(p.currency.mapped ? {} : { currency_unmapped: true as const }),
      items_total: toNumber(total, p.currency),
    }));
}

const budgets = (n: number) => (n === 1 ? "1 budget" : `${n} budgets`);

const folioList = (o: { count: number; folios: string[] }) =>
  `folio${o.count === 1 ? "" : "s"} ${o.folios.join(", ")}${o.count > o.folios.length ? ` and ${o.count - o.folios.length} more` : ""}`;

/** "by approval date: 14 budgets, CLP 2,410,000 (adds folio 166; leaves out folios 131, 140)". */
function differs(c: BasisCheck): string {
  const money = (c.totals ?? [])
    .map((t) => formatMoney(t.items_total, { code: t.currency, mapped: t.currency_unmapped !== true }))
    .join(", ");
  const parts = [
    ...(c.only_there!.count > 0 ? [`adds ${folioList(c.only_there!)}`] : []),
    ...(c.only_here!.count > 0 ? [`leaves out ${folioList(c.only_here!)}`] : []),
  ];
  return `by ${NAMES[c.type_date]}: ${budgets(c.matched!)}${money ? `, ${money}` : ""} (${parts.join("; ")})`;
}

/** Why a basis is not settled, and the call that settles it (it goes on from what was read). */
function unsettled(c: BasisCheck): string {
  const holds = c.budgets === undefined ? "" : `: it holds ${budgets(c.budgets)}`;
  const why =
    c.unsettled === "time"
      ? "not settled in this call's time"
      : `not settled${holds}, more than a check reads`;
  return `by ${NAMES[c.type_date]}: ${why} (this call with type_date "${c.type_date}" settles it)`;
}

/** The basis line (interface.md §6g): one sentence, or none when nothing was checked. */
export function basisLine(facts: BasisFacts, matched: number): string | undefined {
  const checks = facts.bases;
  if (checks.length === 0) return undefined;
  const same = checks.filter((c) => c.same === true);
  if (same.length === checks.length) {
    const names = same.map((c) => NAMES[c.type_date]).join(" and by ");
    if (matched === 0) return `No budget matches by ${names} either.`;
    return matched === 1
      ? `The same budget matches by ${names}.`
      : `The same ${matched} budgets match by ${names}.`;
  }
  const parts = checks.map((c) => {
    if (!c.settled) return unsettled(c);
    return c.same ? `by ${NAMES[c.type_date]}: the same ${matched}` : differs(c);
  });
  const text = parts.join("; ");
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

/** "All 260 budgets of the company were read", when they were (interface.md §6g "Completeness"). */
export function companyLine(
  facts: BasisFacts,
  status: string | undefined,
  untilAsked: string | undefined,
): string | undefined {
  const c = facts.company;
  if (c === undefined || !c.all_read) return undefined;
  const what = `${status ? `${status} ` : ""}${c.budgets === 1 ? "budget" : "budgets"}`;
  const upTo = untilAsked === undefined ? "" : ` up to ${untilAsked}`;
  if (c.budgets === 0)
    return `The company has no ${status ? `${status} ` : ""}budget${upTo} (the API's count for every date).`;
  return `All ${c.budgets} ${what} of the company${upTo} were read (the API's count for every date).`;
}
