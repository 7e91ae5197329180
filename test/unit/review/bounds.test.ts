/**
 * A review's summary fits the host (src/domain/review/bounds.ts, result.ts): 20,000 distinct third
 * parties (a 10.5 MB line before) and five group keys stay within 80,000 characters of text and of
 * structuredContent, keeping the largest groups of each currency.
 */
import { describe, expect, it } from "vitest";
import type { SummaryRow } from "../../../src/domain/budget-summary.js";
import { largestGroups } from "../../../src/domain/review/bounds.js";
import { admit, type Kept } from "../../../src/domain/review/records.js";
import { summarize } from "../../../src/domain/review/result.js";
import { makeBudget } from "../../helpers/budget-upstream.js";

const records = (n: number, name: (i: number) => string): Kept[] =>
  Array.from({ length: n }, (_, i) => {
    const admitted = admit(makeBudget(i, { third_parties_name: name(i) }), {
      keep: "compact",
      discount: undefined,
    });
    if (!("kept" in admitted)) throw new Error("not admitted");
    return { p: admitted.kept, seq: i };
  });

const now = new Date("2026-11-26T12:00:00Z");

describe("review bounds", () => {
  it("20,000 third parties: the largest groups per currency fit, and the count in all is kept", () => {
    const figures = summarize(
      { group_by: ["third_party"] },
      records(20_000, (i) => `Third party number ${i}`),
      {
        now,
        discount: undefined,
      },
    );
    const { groups, subtotals } = figures.parts;
    expect(groups.all).toBe(20_000);
    expect(groups.kept.length).toBeLessThan(20_000);
    expect(groups.kept.length).toBeGreaterThan(300);
    const size = JSON.stringify({ groups: groups.kept, subtotals: subtotals?.kept }).length;
    expect(size).toBeLessThan(80_000);
    // Every currency keeps its largest group.
    for (const code of ["USD", "EUR", "CLP"]) expect(groups.kept.some((g) => g.currency === code)).toBe(true);
  });

  it("names longer than 300 characters are cut with … in summary rows", () => {
    const figures = summarize(
      { group_by: ["third_party"] },
      records(3, () => "n".repeat(5_000)),
      {
        now,
        discount: undefined,
      },
    );
    const name = figures.parts.groups.kept[0]!.third_party!;
    expect(name).toHaveLength(300);
    expect(name.endsWith("…")).toBe(true);
  });

  it("largestGroups keeps the original order of the groups it keeps", () => {
    const rows = [5, 50, 1, 40].map((t, i) => ({
      currency: "USD",
      items_total: t,
      count: 1,
      oldest: "",
      newest: "",
      i,
    })) as unknown as SummaryRow[];
    const { kept } = largestGroups(rows, JSON.stringify(rows[1]).length + JSON.stringify(rows[3]).length + 2);
    expect(kept.map((r) => r.items_total)).toEqual([50, 40]);
  });
});
