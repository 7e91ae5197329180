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
    const more = n > 0 && (options.start + n < page.total || (n === options.limit && page.total === n));
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
  const { start } = options;
  const pageSize = MAX_PAGE_SIZE;
  const first = await fetchPage(start, Math.min(pageSize, options.maxRecords));
  const fits = options.fitsAfterFirstPage?.(first.data) ?? Number.POSITIVE_INFINITY;
  const maxRecords = Math.min(options.maxRecords, Math.max(first.data.length, fits));
  const pages: T[][] = [first.data];
  let fetched = first.data.length;
  const target = Math.min(Math.max(first.total - start, fetched), maxRecords);
  await options.onProgress?.(fetched, target);

  // Plan the remaining pages from `total`, then fetch them with bounded concurrency.
  const offsets: number[] = [];
  if (first.data.length === Math.min(pageSize, maxRecords)) {
    for (let at = start + first.data.length; at < start + target; at += pageSize) offsets.push(at);
  }
  const planned: T[][] = new Array(offsets.length);
  let next = 0;
  const worker = async () => {
    while (next < offsets.length) {
      const i = next++;
      const at = offsets[i]!;
      const page = await fetchPage(at, Math.min(pageSize, start + maxRecords - at));
      planned[i] = page.data;
      fetched += page.data.length;
      await options.onProgress?.(fetched, target);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(options.concurrency ?? DEFAULT_CONCURRENCY, offsets.length) }, worker),
  );
  pages.push(...planned);

  // `total` may understate (page-length semantics): continue one page at a time while pages are full.
  let repeatedPageAt: number | null = null;
  let at = start + pages.reduce((n, p) => n + p.length, 0);
  let last = pages[pages.length - 1]!;
  while (last.length === pageSize && at - start < maxRecords) {
    const page = await fetchPage(at, Math.min(pageSize, start + maxRecords - at));
    if (page.data.length === 0) break;
    if (JSON.stringify(page.data[0]) === JSON.stringify(last[0])) {
      repeatedPageAt = at;
      break;
    }
    pages.push(page.data);
    at += page.data.length;
    last = page.data;
    fetched += page.data.length;
    await options.onProgress?.(fetched, Math.max(target, fetched));
  }

  const items = pages.flat().slice(0, maxRecords);
  const total = Math.max(first.total, start + items.length);
  const omitted = Math.max(0, total - start - items.length);
  // upstream-notes: when `total` only repeats the first page's length, a walk stopped by the cap
  // on a full page cannot know it saw everything: offer the next offset rather than claim the end.
  const maybeMore =
    items.length === maxRecords &&
    first.total <= first.data.length &&
    last.length > 0 &&
    repeatedPageAt === null;
  return {
    items,
    total,
    start,
    nextStart: omitted > 0 || maybeMore ? start + items.length : null,
    omitted,
    pages: pages.length,
    repeatedPageAt,
  };
}
