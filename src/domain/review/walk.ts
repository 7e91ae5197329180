/**
 * The walk of a review (interface.md §6c): which pages to read, and what each page read adds.
 * Records are counted once by their id across all pages, fetched in parallel or not; a repeated
 * page, pages that overlap, a page shorter than promised, or a `total` that changes during the
 * walk are recorded as faults (the result then says it is incomplete). A `total` that is not a
 * non-negative integer makes the page a BAD_RESPONSE naming the field. The state is plain data
 * kept by the snapshot, so a later call continues the walk where it stopped (nothing re-read).
 */
import { randomUUID } from "node:crypto";
import type { Budget, Page } from "../../client/types.js";
import { ApiError, ERROR_CODES } from "../../errors/api-error.js";
import type { DiscountKind } from "../budget-view.js";
import { NOTES, type Note } from "../notes.js";
import { MAX_PAGE_SIZE } from "../paging.js";
import type { ResolvedPeriod } from "../period.js";
import { admit, type Keep, type Kept, type Skipped, weightOf } from "./records.js";

/** Skipped budgets listed by folio in a result; the rest are counted. */
const SKIPPED_LISTED = 20;

/** A page to read: its offset and size. */
export interface PageAsk {
  at: number;
  limit: number;
}

export interface WalkOptions {
  keep: Keep;
  discount: DiscountKind | undefined;
}

export class WalkState {
  readonly id = randomUUID();
  /** Budgets read, each once, in arrival order (seq gives the API's order). */
  readonly records: Kept[] = [];
  readonly skipped: Skipped[] = [];
  skippedCount = 0;
  /** Records met again (an overlap or a repeated page), counted once. */
  repeated = 0;
  /** What the walk saw that makes it incomplete, one line per kind. */
  readonly faults = new Map<string, Note>();
  /** The first page's `total`; undefined until it is read. */
  apiTotal: number | undefined;
  /** upstream-notes: some deployments send the page length as `total`; then pages go on while full. */
  totalIsPageLength = false;
  /** Approximate bytes held by the records. */
  weight = 0;
  /** Calls reading pages into this state now (the snapshot never evicts it meanwhile). */
  readers = 0;
  readonly #ids = new Set<unknown>();
  /** Pages due (offset and size), lowest offset first; in flight; read. */
  readonly #pending: PageAsk[] = [];
  readonly #inflight = new Map<number, number>();
  readonly #read = new Map<number, number>();
  /** Offsets below this are planned (or read). */
  #plannedTo = 0;
  /** No more pages: a repeated page showed that the upstream ignores `start`. */
  #halted = false;
  /** In page-length mode: the last page read was full, so another may follow. */
  #lastFull = false;

  constructor(
    readonly window: ResolvedPeriod,
    readonly startedAt: number,
    readonly options: WalkOptions,
  ) {}

  /** The next page to read within `maxRecords`, marked in flight; undefined when none is due now. */
  take(maxRecords: number): PageAsk | undefined {
    this.#plan(maxRecords);
    const i = this.#pending.findIndex((p) => p.at < maxRecords);
    if (i === -1 || this.#halted) return undefined;
    const page = this.#pending.splice(i, 1)[0]!;
    const ask = { at: page.at, limit: Math.min(page.limit, maxRecords - page.at) };
    this.#inflight.set(ask.at, ask.limit);
    return ask;
  }

  /** A page that was not read (a deadline, a 406): due again, first. */
  giveBack(at: number): void {
    const limit = this.#inflight.get(at);
    if (limit === undefined) return;
    this.#inflight.delete(at);
    this.#pending.push({ at, limit });
    this.#pending.sort((a, b) => a.at - b.at);
  }

  /** Nothing left to read within `maxRecords`. */
  finished(maxRecords: number): boolean {
    this.#plan(maxRecords);
    return this.#inflight.size === 0 && (this.#halted || !this.#pending.some((p) => p.at < maxRecords));
  }

  /** The first offset not read: every page below it was read. */
  get readUpTo(): number {
    let at = 0;
    for (let n = this.#read.get(at); n !== undefined && n > 0; n = this.#read.get(at)) at += n;
    return at;
  }

  /** Distinct budgets read (kept or skipped). */
  get distinct(): number {
    return this.#ids.size;
  }

  /** Whether the window holds more than `maxRecords` (the cap stopped the walk). */
  capped(maxRecords: number): boolean {
    if (this.apiTotal === undefined) return false;
    if (this.totalIsPageLength) return this.#lastFull && this.readUpTo >= maxRecords;
    return this.apiTotal > maxRecords;
  }

  /** Plan the pages due up to `maxRecords`: the first alone, then what its total announces (or, when total is the page length, one more page after a full one). */
  #plan(maxRecords: number): void {
    if (this.#halted || (this.#inflight.size > 0 && this.apiTotal === undefined)) return;
    let end: number;
    if (this.apiTotal === undefined) end = Math.min(MAX_PAGE_SIZE, maxRecords);
    else if (this.totalIsPageLength)
      end =
        this.#lastFull && this.#inflight.size === 0 && this.#pending.length === 0
          ? this.#plannedTo + MAX_PAGE_SIZE
          : 0;
    else end = this.apiTotal;
    end = Math.min(end, maxRecords);
    for (let at = this.#plannedTo; at < end; at += MAX_PAGE_SIZE)
      this.#pending.push({ at, limit: Math.min(MAX_PAGE_SIZE, end - at) });
    this.#plannedTo = Math.max(this.#plannedTo, end);
  }

  /** Add one page read at `at` (asked for `limit` records). */
  accept(at: number, page: Page<Budget>, limit: number): void {
    checkTotal(page.total);
    this.#inflight.delete(at);
    this.#read.set(at, limit);
    if (this.apiTotal === undefined) {
      this.apiTotal = page.total;
      this.totalIsPageLength = page.total <= page.data.length && page.data.length === limit;
    } else if (!this.totalIsPageLength && page.total !== this.apiTotal) {
      this.faults.set(
        "total",
        NOTES.apiTotalChanged({ before: this.apiTotal, after: page.total, start: at }),
      );
    }
    const fresh = this.#add(page.data, at);
    const repeated = page.data.length - fresh;
    if (page.data.length > 0 && fresh === 0) {
      this.#halted = true;
      this.faults.set("repeat", NOTES.pageRepeated({ start: at }));
    } else if (repeated > 0) {
      this.faults.set("overlap", NOTES.pagesOverlapped({ repeated: this.repeated }));
    }
    this.#checkLength(at, page, limit);
    if (this.totalIsPageLength) this.#lastFull = page.data.length === limit;
  }

  #checkLength(at: number, page: Page<Budget>, limit: number): void {
    if (this.totalIsPageLength || this.apiTotal === undefined) return;
    const due = Math.min(limit, Math.max(0, this.apiTotal - at));
    if (page.data.length < due)
      this.faults.set(
        "short",
        NOTES.pageShort({ start: at, got: page.data.length, due, api_total: this.apiTotal }),
      );
  }

  /** Adds the page's new records; returns how many were new. */
  #add(data: readonly Budget[], at: number): number {
    let fresh = 0;
    for (let i = 0; i < data.length; i++) {
      const b = data[i]!;
      const id = b.id ?? b.folio;
      if (this.#ids.has(id)) {
        this.repeated += 1;
        continue;
      }
      this.#ids.add(id);
      fresh += 1;
      const admitted = admit(b, this.options);
      if ("skipped" in admitted) {
        this.skippedCount += 1;
        if (this.skipped.length < SKIPPED_LISTED) this.skipped.push(admitted.skipped);
        continue;
      }
      this.records.push({ p: admitted.kept, seq: at + i });
      this.weight += 48 + weightOf(admitted.kept.budget);
    }
    return fresh;
  }
}

/** api-spec §8: `total` counts matches; anything but a non-negative integer is no count at all. */
function checkTotal(total: number): void {
  if (Number.isInteger(total) && total >= 0) return;
  throw new ApiError({
    code: ERROR_CODES.BAD_RESPONSE,
    message: `the upstream answer's total is ${total}, not a count of budgets (a non-negative integer): the review cannot trust its pages`,
    details: { field: "total", value: total },
  });
}
