/**
 * Calendar words in query_budgets (interface.md §6g), through the SDK client against the sandbox, one
 * clock for both: the server's "now" and the sandbox's seed are the same instant, moved by the test.
 * A word answers exactly what the same window in dates answers, and its window line shows both ends
 * and that the end is included; a snapshot of "yesterday" does not answer the next day's "yesterday".
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createReviewServices } from "../../src/domain/review/services.js";
import { connect, textOf } from "../helpers/mcp.js";
import { useSandbox } from "../helpers/sandbox.js";

/** Half an hour into the new year in UTC: 21:30 on New Year's Eve in Santiago. */
const SEEDED = Date.parse("2027-01-01T00:30:00Z");
let now = SEEDED;
const fx = useSandbox({ clock: { now: () => SEEDED } });
let mcp: Awaited<ReturnType<typeof connect>>;
beforeAll(async () => {
  const reviews = createReviewServices({
    deadlineMs: 45_000,
    cacheSeconds: 300,
    cacheMb: 8,
    inflightMb: 8,
    clock: () => now,
  }).forTenant(undefined);
  mcp = await connect({ clients: fx.clients(), now: () => new Date(now), reviews });
  return () => mcp.close();
});

type Out = { structuredContent: Record<string, unknown> & { as_of?: string; period: object } };
const call = async (args: Record<string, unknown>) => {
  const result = (await mcp.client.callTool({ name: "query_budgets", arguments: args })) as unknown as Out;
  return { out: result.structuredContent, text: textOf(result) };
};
const REVIEW = { group_by: ["currency"], type_date: "approval_date" };

describe("calendar words", () => {
  it("last_month and last_quarter answer what their dates answer, and say so in the window line", async () => {
    now = SEEDED;
    const month = await call({ ...REVIEW, since: "last_month", fresh: true });
    const dated = await call({ ...REVIEW, since: "2026-12-01", until: "2026-12-31", fresh: true });
    expect(month.out.period).toEqual(dated.out.period);
    expect({ ...month.out, as_of: undefined }).toEqual({ ...dated.out, as_of: undefined });
    expect(month.out.review).toMatchObject({ matched: expect.any(Number) });
    expect((month.out.review as { matched: number }).matched).toBeGreaterThan(0);
    expect(month.text).toContain(
      "budgets approved 2026-12-01T00:00:00Z to 2026-12-31T23:59:59Z (last_month: December 2026 in UTC, end included); today 2027-01-01",
    );
    const quarter = await call({ ...REVIEW, since: "Last Quarter", fresh: true });
    const q4 = await call({ ...REVIEW, since: "2026-10-01", until: "2026-12-31", fresh: true });
    expect({ ...quarter.out, as_of: undefined }).toEqual({ ...q4.out, as_of: undefined });
  });

  it("a snapshot of yesterday does not answer after midnight UTC, when yesterday is another day", async () => {
    now = Date.parse("2027-01-01T23:59:50Z");
    const before = await call({ ...REVIEW, since: "yesterday" });
    expect(before.out.period).toMatchObject({ since: "2026-12-31T00:00:00Z", until: "2026-12-31T23:59:59Z" });
    now = Date.parse("2027-01-02T00:00:10.000Z");
    const after = await call({ ...REVIEW, since: "yesterday" });
    expect(after.out.period).toMatchObject({ since: "2027-01-01T00:00:00Z", until: "2027-01-01T23:59:59Z" });
    expect(after.out.as_of).toBe("2027-01-02T00:00:10.000Z");
    // Within the same day the snapshot answers, as it does for any window.
    now = Date.parse("2027-01-02T00:01:00Z");
    const again = await call({ ...REVIEW, since: "yesterday" });
    expect(again.out.as_of).toBe("2027-01-02T00:00:10.000Z");
  });
});
