import { describe, expect, it } from "vitest";
import type { Page } from "../../src/client/types.js";
import { collectPages, walkPages } from "../../src/domain/paging.js";

/** An in-memory list endpoint; `reportTotal` lets a test mimic deployments whose total is the page length. */
function endpoint(count: number, reportTotal: (page: number[]) => number = () => count) {
  const calls: [number, number][] = [];
  const rows = Array.from({ length: count }, (_, i) => i);
  const fetch = async (start: number, limit: number): Promise<Page<number>> => {
    calls.push([start, limit]);
    const data = rows.slice(start, start + limit);
    return { data, total: reportTotal(data) };
  };
  return { fetch, calls };
}

describe("collectPages", () => {
  it("returns one page with next_start", async () => {
    const { fetch } = endpoint(250);
    const r = await collectPages(fetch, { start: 0, limit: 25, all: false, maxRecords: 1000 });
    expect(r.items).toHaveLength(25);
    expect(r).toMatchObject({ total: 250, nextStart: 25, omitted: 0 });
    const last = await collectPages(fetch, { start: 225, limit: 25, all: false, maxRecords: 1000 });
    expect(last.nextStart).toBeNull();
  });

  it("walks every page in order with progress that only grows", async () => {
    const { fetch, calls } = endpoint(1050);
    const progress: number[] = [];
    const r = await collectPages(fetch, {
      start: 0,
      limit: 25,
      all: true,
      maxRecords: 5000,
      onProgress: async (n) => {
        progress.push(n);
      },
    });
    expect(r.items).toEqual(Array.from({ length: 1050 }, (_, i) => i));
    expect(r).toMatchObject({ total: 1050, nextStart: null, omitted: 0, pages: 11 });
    expect(calls.every(([, limit]) => limit <= 100)).toBe(true);
    expect(progress.at(-1)).toBe(1050);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
  });

  it("stops at max_records and says how many were left out", async () => {
    const { fetch } = endpoint(1050);
    const r = await collectPages(fetch, { start: 0, limit: 25, all: true, maxRecords: 250 });
    expect(r.items).toHaveLength(250);
    expect(r).toMatchObject({ total: 1050, omitted: 800, nextStart: 250 });
  });

  it("keeps walking when total is only the page length (upstream-notes)", async () => {
    const { fetch } = endpoint(230, (page) => page.length);
    const r = await collectPages(fetch, { start: 0, limit: 25, all: true, maxRecords: 1000 });
    expect(r.items).toHaveLength(230);
    expect(r.omitted).toBe(0);
  });

  it("offers the next page when a full single page reports total = its length (upstream-notes)", async () => {
    const { fetch } = endpoint(230, (page) => page.length);
    const first = await collectPages(fetch, { start: 0, limit: 25, all: false, maxRecords: 1000 });
    expect(first).toMatchObject({ total: 25, nextStart: 25 });
    const last = await collectPages(fetch, { start: 225, limit: 25, all: false, maxRecords: 1000 });
    expect(last).toMatchObject({ total: 5, nextStart: null });
  });

  it("does not claim the end when max_records stops a walk whose total is the page length", async () => {
    const { fetch } = endpoint(230, (page) => page.length);
    for (const maxRecords of [50, 200]) {
      const r = await collectPages(fetch, { start: 0, limit: 25, all: true, maxRecords });
      expect(r.items).toHaveLength(maxRecords);
      expect(r.nextStart).toBe(maxRecords);
    }
    // A page shorter than asked is the end, whatever total says.
    const whole = await collectPages(endpoint(40, (page) => page.length).fetch, {
      start: 0,
      limit: 25,
      all: true,
      maxRecords: 50,
    });
    expect(whole).toMatchObject({ nextStart: null, omitted: 0 });
    expect(whole.items).toHaveLength(40);
  });

  it("stops on a repeated page instead of looping", async () => {
    const page = Array.from({ length: 100 }, (_, i) => i);
    const r = await collectPages(async () => ({ data: page, total: 100 }), {
      start: 0,
      limit: 100,
      all: true,
      maxRecords: 1000,
    });
    expect(r.items).toHaveLength(100);
    expect(r.repeatedPageAt).toBe(100);
  });

  it("probes one record past a full page whose total equals its length, instead of leaving a guess", async () => {
    const ends = endpoint(25, (page) => page.length);
    const probed = await collectPages(ends.fetch, {
      start: 0,
      limit: 25,
      all: false,
      maxRecords: 1000,
      probeWhenFull: true,
    });
    expect(probed).toMatchObject({ total: 25, nextStart: null });
    expect(ends.calls).toEqual([
      [0, 25],
      [25, 1],
    ]);
    const goesOn = await collectPages(endpoint(30, (page) => page.length).fetch, {
      start: 0,
      limit: 25,
      all: false,
      maxRecords: 1000,
      probeWhenFull: true,
    });
    expect(goesOn.nextStart).toBe(25);
  });
});

describe("walkPages", () => {
  it("hands every page over once, as it arrives, and keeps none", async () => {
    const { fetch } = endpoint(1050);
    const seen: number[] = [];
    const r = await walkPages(fetch, {
      start: 0,
      maxRecords: 10_000,
      onPage: (items, at) => {
        expect(items[0]).toBe(at);
        seen.push(...items);
      },
    });
    expect(r).toMatchObject({ read: 1050, total: 1050, nextStart: null, omitted: 0, pages: 11 });
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 1050 }, (_, i) => i));
    expect(r).not.toHaveProperty("items");
  });

  it("never hands over more than max_records", async () => {
    let handed = 0;
    const r = await walkPages(endpoint(1050).fetch, {
      start: 0,
      maxRecords: 250,
      onPage: (items) => {
        handed += items.length;
      },
    });
    expect(handed).toBe(250);
    expect(r).toMatchObject({ read: 250, omitted: 800, nextStart: 250 });
  });
});
