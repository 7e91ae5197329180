/**
 * Pagination shared by the list tools: one page, or every page (`all`) fetched with bounded
 * concurrency, in order, capped by `maxRecords`, with progress. Nothing is cut silently: the
 * result says how many records were left out.
 */
import type { Page } from "../client/types.js";

/** The API's page-size maximum (api-spec §8). */
export const MAX_PAGE_SIZE = 100;

/** Records one `all: true` call (or one budget review) reads unless `max_records` says otherwise. */
export const DEFAULT_MAX_RECORDS = 1000;

/**
 * Pages in flight at once when walking every page: 1,000 records arrive in one wave after the
 * first page, far below the platform's 200 requests a minute (upstream-notes, 406).
 */
export const DEFAULT_CONCURRENCY = 10;

export interface CollectOptions<T = unknown> {
  start: number;
  limit: number;
  all: boolean;
  maxRecords: number;
  /** Pages in flight at once when walking every page. */
  concurrency?: number;
  onProgress?: (fetched: number, target: number) => Promise<void>;
  /**
   * With `all`: how many records one result can carry, judged from the first page. The walk reads
   * no further (what it leaves is reported as omitted, with nextStart), so a result that will be
   * cut to fit the host does not read pages only to drop them.
   */
  fitsAfterFirstPage?: (firstPage: readonly T[]) => number;
  /**
   * One page: when it is full and `total` equals its length (upstream-notes: `total` may be the
   * page length), read one record past it to know whether more follow, instead of leaving the
   * caller to guess.
   */
  probeWhenFull?: boolean;
}

export interface Collected<T> {
  items: T[];
  /** What the API reported as the number of matches. */
  total: number;
  start: number;
  /** Offset of the next page, or null when there is none. */
  nextStart: number | null;
  /** Set when records that match were not returned (max_records reached). */
  omitted: number;
  pages: number;
  /** Set when the upstream repeated a page (a paging bug upstream): walking stopped there. */
  repeatedPageAt: number | null;
}

type FetchPage<T> = (start: number, limit: number) => Promise<Page<T>>;

export async function collectPages<T>(
  fetchPage: FetchPage<T>,
  options: CollectOptions<T>,
): Promise<Collected<T>> {
  if (!options.all) {
    const page = await fetchPage(options.start, options.limit);
    const n = page.data.length;
    // upstream-notes: `total` is the page length on some deployments; a full page whose
    // total equals its length may have a successor, so offer it.
    let more = n > 0 && (options.start + n < page.total || (n === options.limit && page.total === n));
    if (more && options.probeWhenFull && options.start + n >= page.total)
      more = (await fetchPage(options.start + n, 1)).data.length > 0;
    return {
      items: page.data,
      total: page.total,
      start: options.start,
      nextStart: more ? options.start + n : null,
      omitted: 0,
      pages: 1,
      repeatedPageAt: null,
    };
  }
  return walkAll(fetchPage, options);
}

async function walkAll<T>(fetchPage: FetchPage<T>, options: CollectOptions<T>): Promise<Collected<T>> {
  const pages = new Map<number, readonly T[]>();
  const walked = await walkPages(fetchPage, {
    ...options,
    onPage: (items, at) => {
      pages.set(at, items);
    },
  });
  const items = [...pages.keys()].sort((a, b) => a - b).flatMap((at) => pages.get(at)!);
  return { ...walked, items };
}

export interface WalkOptions<T> {
  start: number;
  maxRecords: number;
  /** Pages in flight at once. */
  concurrency?: number;
  onProgress?: (fetched: number, target: number) => Promise<void>;
  /** See CollectOptions. */
  fitsAfterFirstPage?: (firstPage: readonly T[]) => number;
  /**
   * Each page as it arrives (not necessarily in offset order), with the offset of its first record;
   * never more than max_records in all. The walk keeps no page: what to keep is the caller's.
   */
  onPage: (items: readonly T[], at: number) => void;
}

export type Walked = Omit<Collected<never>, "items"> & { read: number };

/**
 * Every page from `start`, at most `concurrency` in flight, each handed to `onPage` and dropped:
 * memory holds the pages in flight, not the walk. Plans the pages from the first page's `total`,
 * then goes on one page at a time while pages are full (`total` may be the page length).
 */
export async function walkPages<T>(fetchPage: FetchPage<T>, options: WalkOptions<T>): Promise<Walked> {
  const { start } = options;
  const pageSize = MAX_PAGE_SIZE;
  const first = await fetchPage(start, Math.min(pageSize, options.maxRecords));
  const fits = options.fitsAfterFirstPage?.(first.data) ?? Number.POSITIVE_INFINITY;
  const maxRecords = Math.min(options.maxRecords, Math.max(first.data.length, fits));
  const tally = new PageTally(start, maxRecords, options.onPage);
  tally.take(first.data, start);
  const target = Math.min(Math.max(first.total - start, tally.read), maxRecords);
  await options.onProgress?.(tally.read, target);

  // Plan the remaining pages from `total`, then fetch them with bounded concurrency.
  const offsets = plannedOffsets(start, first.data.length, target, maxRecords);
  await eachConcurrently(offsets, options.concurrency ?? DEFAULT_CONCURRENCY, async (at) => {
    const page = await fetchPage(at, Math.min(pageSize, start + maxRecords - at));
    tally.take(page.data, at);
    await options.onProgress?.(tally.read, target);
  });

  const repeatedPageAt = await followFullPages(fetchPage, tally, target, options.onProgress);
  return walkedOf(first, tally, repeatedPageAt);
}

/**
 * What a walk has taken: records and pages so far, each page cut at max_records and handed to
 * `onPage`; `last` is the page at the highest offset, whose length and first record decide whether
 * to go on.
 */
export class PageTally<T> {
  read = 0;
  pages = 0;
  last: { at: number; length: number; head: string };

  constructor(
    readonly start: number,
    readonly maxRecords: number,
    private readonly onPage: (items: readonly T[], at: number) => void,
  ) {
    this.last = { at: start, length: 0, head: "" };
  }

  take(data: readonly T[], at: number): void {
    const room = this.start + this.maxRecords - at;
    const items = data.length > room ? data.slice(0, room) : data;
    this.read += items.length;
    this.pages += 1;
    if (at >= this.last.at) this.last = { at, length: data.length, head: JSON.stringify(data[0]) };
    this.onPage(items, at);
  }
}

/** The offsets of the pages after the first, up to `target` records, when the first page was full. */
export function plannedOffsets(
  start: number,
  firstLength: number,
  target: number,
  maxRecords: number,
): number[] {
  const offsets: number[] = [];
  if (firstLength === Math.min(MAX_PAGE_SIZE, maxRecords)) {
    for (let at = start + firstLength; at < start + target; at += MAX_PAGE_SIZE) offsets.push(at);
  }
  return offsets;
}

/** `run` for each offset in order of start, at most `concurrency` at once. */
export async function eachConcurrently(
  offsets: readonly number[],
  concurrency: number,
  run: (at: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < offsets.length) await run(offsets[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, offsets.length) }, worker));
}

/**
 * `total` may understate (page-length semantics): read on one page at a time while pages are full,
 * up to max_records. Returns the offset of a page the upstream repeated (walking stops there), or null.
 */
export async function followFullPages<T>(
  fetchPage: FetchPage<T>,
  tally: PageTally<T>,
  target: number,
  onProgress: WalkOptions<T>["onProgress"],
): Promise<number | null> {
  const { start, maxRecords } = tally;
  let at = start + tally.read;
  while (tally.last.length === MAX_PAGE_SIZE && at - start < maxRecords) {
    const page = await fetchPage(at, Math.min(MAX_PAGE_SIZE, start + maxRecords - at));
    if (page.data.length === 0) {
      tally.last = { at, length: 0, head: "" };
      return null;
    }
    if (JSON.stringify(page.data[0]) === tally.last.head) return at;
    tally.take(page.data, at);
    at += page.data.length;
    await onProgress?.(tally.read, Math.max(target, tally.read));
  }
  return null;
}

/** The walk's account: what was read, what the upstream holds, and where to go on. */
export function walkedOf(
  first: { total: number; data: readonly unknown[] },
  tally: Pick<PageTally<unknown>, "start" | "maxRecords" | "read" | "pages" | "last">,
  repeatedPageAt: number | null,
): Walked {
  const { start, read, maxRecords } = tally;
  const total = Math.max(first.total, start + read);
  const omitted = Math.max(0, total - start - read);
  // upstream-notes: when `total` only repeats the first page's length, a walk stopped by the cap
  // on a full page cannot know it saw everything: offer the next offset rather than claim the end.
  const maybeMore =
    read === maxRecords &&
    first.total <= first.data.length &&
    tally.last.length > 0 &&
    repeatedPageAt === null;
  return {
    read,
    total,
    start,
    nextStart: omitted > 0 || maybeMore ? start + read : null,
    omitted,
    pages: tally.pages,
    repeatedPageAt,
  };
}
