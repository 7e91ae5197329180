/** The walk's state (src/domain/review/walk.ts): plan, dedupe by id, integrity faults, resume. */
import { describe, expect, it } from "vitest";
import type { Budget } from "../../../src/client/types.js";
import type { ResolvedPeriod } from "../../../src/domain/period.js";
import { WalkState } from "../../../src/domain/review/walk.js";
import { ApiError } from "../../../src/errors/api-error.js";
import { makeBudget } from "../../helpers/budget-upstream.js";

const list = Array.from({ length: 1000 }, (_, i) => makeBudget(i));
const newState = () => new WalkState({} as ResolvedPeriod, 0, { keep: "compact", discount: undefined });
const page = (at: number, n: number, total = 1000) => ({ data: list.slice(at, at + n), total });

/** Take every page due and answer each from `answer`. */
function drain(
  s: WalkState,
  max: number,
  answer: (at: number, limit: number) => { data: Budget[]; total: number },
) {
  for (let ask = s.take(max); ask; ask = s.take(max)) s.accept(ask.at, answer(ask.at, ask.limit), ask.limit);
}

describe("WalkState", () => {
  it("plans the first page alone, then every page its total announces, within max_records", () => {
    const s = newState();
    expect(s.take(1000)).toEqual({ at: 0, limit: 100 });
    expect(s.take(1000)).toBeUndefined();
    s.accept(0, page(0, 100), 100);
    const asks = [];
    for (let a = s.take(250); a; a = s.take(250)) asks.push(a);
    expect(asks).toEqual([
      { at: 100, limit: 100 },
      { at: 200, limit: 50 },
    ]);
  });

  it("counts each id once across pages, whatever their order", () => {
    const s = newState();
    drain(s, 1000, (at, limit) => page(at, limit));
    expect(s.distinct).toBe(1000);
    expect(s.records).toHaveLength(1000);
    expect(s.faults.size).toBe(0);
    expect(s.finished(1000)).toBe(true);
    expect(s.readUpTo).toBe(1000);
  });

  it("stops when a page repeats what was read (start ignored)", () => {
    const s = newState();
    drain(s, 1000, () => page(0, 100));
    expect(s.distinct).toBe(100);
    expect(s.faults.get("repeat")?.code).toBe("page_repeated");
    expect(s.faults.get("repeat")?.text).toMatch(/answered start=\d+ with budgets already read/);
    expect(s.finished(1000)).toBe(true);
  });

  it("says when pages overlap, a page is short, or the total changes", () => {
    const s = newState();
    drain(s, 1000, (at, limit) => (at === 300 ? page(at, 40, 1010) : page(Math.max(0, at - 50), limit)));
    expect([...s.faults.keys()].sort()).toEqual(["overlap", "short", "total"]);
    expect(s.repeated).toBeGreaterThan(0);
  });

  it("a total that is not a non-negative integer is a BAD_RESPONSE naming the field", () => {
    for (const total of [-5, 1.5, Number.NaN]) {
      const s = newState();
      const ask = s.take(1000)!;
      const thrown = (() => {
        try {
          s.accept(ask.at, { data: [], total }, ask.limit);
        } catch (e) {
          return e;
        }
      })() as ApiError;
      expect(thrown).toBeInstanceOf(ApiError);
      expect(thrown.code).toBe("BAD_RESPONSE");
      expect(thrown.details).toEqual({ field: "total", value: total });
    }
  });

  it("leaves out and counts a budget with an absurd amount", () => {
    const s = newState();
    const bad = { ...makeBudget(0), list_items: [{ ...makeBudget(0).list_items[0]!, total_cost: 1e21 }] };
    const ask = s.take(1000)!;
    s.accept(ask.at, { data: [bad, makeBudget(1)], total: 2 }, ask.limit);
    expect(s.skippedCount).toBe(1);
    expect(s.skipped[0]).toEqual({ folio: "B-1", reason: expect.stringMatching(/total_cost is 1e\+21/) });
    expect(s.records).toHaveLength(1);
  });

  it("a page given back is due again; max_records raised later continues where the walk stopped", () => {
    const s = newState();
    const first = s.take(50)!;
    expect(first).toEqual({ at: 0, limit: 50 });
    s.accept(0, page(0, 50), 50);
    expect(s.finished(50)).toBe(true);
    expect(s.capped(50)).toBe(true);
    const next = s.take(1000)!;
    expect(next).toEqual({ at: 50, limit: 100 });
    s.giveBack(next.at);
    expect(s.take(1000)).toEqual(next);
  });

  it("follows full pages when total is only the page length (upstream-notes)", () => {
    const s = newState();
    drain(s, 1000, (at, limit) => ({
      data: list.slice(at, at + limit).slice(0, at < 300 ? limit : 30),
      total: limit,
    }));
    expect(s.totalIsPageLength).toBe(true);
    expect(s.distinct).toBe(330);
    expect(s.faults.size).toBe(0);
  });
});
