/**
 * The steps of walkPages (src/domain/paging.ts), each on its own: the tally of pages taken, the plan
 * from the first page's total, the bounded concurrency, the walk on past an understated total, and the
 * account of what was read. paging.test.ts walks them together.
 */
import { describe, expect, it } from "vitest";
import type { Page } from "../../src/client/types.js";
import {
  eachConcurrently,
  followFullPages,
  MAX_PAGE_SIZE,
  PageTally,
  plannedOffsets,
  walkedOf,
} from "../../src/domain/paging.js";

const rows = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

describe("PageTally", () => {
  it("cuts the page that crosses max_records, counts records and pages, and keeps the furthest page", () => {
    const seen: [number, number][] = [];
    const tally = new PageTally<number>(10, 150, (items, at) => seen.push([at, items.length]));
    tally.take(rows(110, 100), 110);
    tally.take(rows(10, 100), 10);
    expect(seen).toEqual([
      [110, 50],
      [10, 100],
    ]);
    expect(tally).toMatchObject({ read: 150, pages: 2, last: { at: 110, length: 100, head: "110" } });
  });
});

describe("plannedOffsets", () => {
  it.each([
    ["a full first page: the pages up to the target", 0, 100, 350, 1000, [100, 200, 300]],
    ["from an offset", 40, 100, 250, 1000, [140, 240]],
    ["a short first page: nothing more", 0, 60, 350, 1000, []],
    ["a first page full at max_records", 0, 50, 50, 50, []],
  ])("%s", (_, start, firstLength, target, maxRecords, expected) => {
    expect(plannedOffsets(start, firstLength, target, maxRecords)).toEqual(expected);
  });
});

describe("eachConcurrently", () => {
  it("runs every offset in order of start, never more than `concurrency` at once", async () => {
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const gates = new Map<number, () => void>();
    const done = eachConcurrently([1, 2, 3, 4, 5], 2, async (at) => {
      started.push(at);
      running += 1;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => gates.set(at, resolve));
      running -= 1;
    });
    // Release each page as soon as it has started; the pool starts the next one in its place.
    for (const at of [1, 2, 3, 4, 5]) {
      while (!gates.has(at)) await Promise.resolve();
      gates.get(at)!();
    }
    await done;
    expect(started).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(2);
  });

  it("starts nothing for no offsets", async () => {
    let ran = false;
    await eachConcurrently([], 10, async () => {
      ran = true;
    });
    expect(ran).toBe(false);
  });
});

describe("followFullPages", () => {
  const pageOf = (data: number[]): Page<number> => ({ data, total: data.length });

  it("reads on while pages are full, to the first short page", async () => {
    const tally = new PageTally<number>(0, 1000, () => {});
    tally.take(rows(0, MAX_PAGE_SIZE), 0);
    const asked: number[] = [];
    const fetch = async (at: number) => {
      asked.push(at);
      return pageOf(rows(at, at < 200 ? MAX_PAGE_SIZE : 30));
    };
    const progress: number[] = [];
    expect(await followFullPages(fetch, tally, 100, async (n) => void progress.push(n))).toBeNull();
    expect(asked).toEqual([100, 200]);
    expect(progress).toEqual([200, 230]);
    expect(tally.read).toBe(230);
  });

  it("stops at a repeated page and names its offset", async () => {
    const tally = new PageTally<number>(0, 1000, () => {});
    tally.take(rows(0, MAX_PAGE_SIZE), 0);
    expect(await followFullPages(async () => pageOf(rows(0, MAX_PAGE_SIZE)), tally, 100, undefined)).toBe(
      100,
    );
    expect(tally.read).toBe(100);
  });

  it("marks the end on an empty page", async () => {
    const tally = new PageTally<number>(0, 1000, () => {});
    tally.take(rows(0, MAX_PAGE_SIZE), 0);
    expect(await followFullPages(async () => pageOf([]), tally, 100, undefined)).toBeNull();
    expect(tally.last).toEqual({ at: 100, length: 0, head: "" });
  });
});

describe("walkedOf", () => {
  const tally = (read: number, lastLength: number) => ({
    start: 0,
    maxRecords: 200,
    read,
    pages: 2,
    last: { at: 100, length: lastLength, head: "100" },
  });

  it("reports what the cap left out, and where to go on", () => {
    expect(walkedOf({ total: 500, data: rows(0, 100) }, tally(200, 100), null)).toEqual({
      read: 200,
      total: 500,
      start: 0,
      nextStart: 200,
      omitted: 300,
      pages: 2,
      repeatedPageAt: null,
    });
  });

  it("offers the next offset when total only repeats the page length and the cap stopped the walk", () => {
    expect(walkedOf({ total: 100, data: rows(0, 100) }, tally(200, 100), null)).toMatchObject({
      total: 200,
      omitted: 0,
      nextStart: 200,
    });
    // A repeated page ended it: no next offset to offer.
    expect(walkedOf({ total: 100, data: rows(0, 100) }, tally(200, 100), 200).nextStart).toBeNull();
  });

  it("claims the end when everything was read", () => {
    expect(walkedOf({ total: 150, data: rows(0, 100) }, tally(150, 50), null).nextStart).toBeNull();
  });
});
