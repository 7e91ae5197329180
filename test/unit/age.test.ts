import { describe, expect, it } from "vitest";
import { daysSince, ranAgo } from "../../src/domain/age.js";

const now = new Date("2026-03-10T00:30:00Z");

describe("daysSince / ranAgo", () => {
  it.each([
    ["2026-03-10", 0, "ran today"],
    ["2026-03-09T23:59:00Z", 1, "ran yesterday"],
    ["2026-03-04", 6, "ran 6 days ago"],
    ["2026-03-10T02:00:00+05:00", 1, "ran yesterday"],
    ["2026-03-11", -1, "dated 1 day ahead of today (UTC)"],
    ["2026-03-13", -3, "dated 3 days ahead of today (UTC)"],
  ])("%s is %i day(s) before 2026-03-10 UTC: %s", (when, days, text) => {
    expect(daysSince(when, now)).toBe(days);
    expect(ranAgo(days)).toBe(text);
  });

  it("has no age for text that is not a date", () => {
    expect(daysSince("last tuesday", now)).toBeUndefined();
  });
});
