/**
 * The steps of resolvePeriod (src/domain/period.ts), each on its own: the since bound, the until
 * bound and the order check. period.test.ts resolves whole windows.
 */
import { describe, expect, it } from "vitest";
import { checkOrder, sinceBound, untilBound } from "../../src/domain/period.js";
import { UserInputError } from "../../src/errors/api-error.js";

const NOW = Date.UTC(2026, 10, 26, 8, 30, 12);
const DAY = 86_400_000;

describe("sinceBound", () => {
  it.each([
    [
      "default: 30 days ago, said so",
      undefined,
      false,
      { at: NOW - 30 * DAY, api: "2026-10-27T08:30:12+00", said: ", 30 days ago by default," },
    ],
    ["default of a lookup: open", undefined, true, { at: null, api: "1970-01-01T00:00:00+00", said: "" }],
    ["all: open", "ALL", false, { at: null, api: "1970-01-01T00:00:00+00", said: "" }],
    [
      "a duration, said in capitals",
      "p1d",
      false,
      { at: NOW - DAY, api: "2026-11-25T08:30:12+00", said: " (P1D)" },
    ],
    [
      "a date: from its start",
      "2026-11-01",
      false,
      { at: Date.UTC(2026, 10, 1), api: "2026-11-01T00:00:00+00", said: "" },
    ],
  ])("%s", (_, raw, lookup, expected) => {
    expect(sinceBound(raw, lookup, NOW)).toEqual(expected);
  });

  it("refuses a bad duration, one before 1970 and a non-date, naming today and the forms", () => {
    expect(() => sinceBound("P1.5D", false, NOW)).toThrow(
      /^since: "P1.5D" is not an ISO 8601 duration of whole numbers\. Today is 2026-11-26/,
    );
    expect(() => sinceBound("P100Y", false, NOW)).toThrow(/reaches back before 1970: use "all"/);
    expect(() => sinceBound("last week", false, NOW)).toThrow(
      /is not a date, a duration, a calendar word or "all"/,
    );
  });
});

describe("untilBound", () => {
  it.each([
    ["default: now", undefined, false, { at: NOW, api: "2026-11-26T08:30:12+00", said: ", now" }],
    ["now, any case", "NOW", true, { at: NOW, api: "2026-11-26T08:30:12+00", said: ", now" }],
    ["an open lookup: a year ahead", undefined, true, { at: null, api: "2027-11-27T08:30:12+00", said: "" }],
    [
      "a date: to its end",
      "2026-11-01",
      false,
      { at: Date.UTC(2026, 10, 1, 23, 59, 59), api: "2026-11-01T23:59:59+00", said: "" },
    ],
    [
      "a calendar word: to its last second",
      "Last Month",
      false,
      { at: Date.UTC(2026, 9, 31, 23, 59, 59), api: "2026-10-31T23:59:59+00", said: " (last_month)" },
    ],
  ])("%s", (_, raw, openLookup, expected) => {
    expect(untilBound(raw, openLookup, NOW)).toMatchObject(expected);
  });

  it("refuses a non-date with its forms", () => {
    expect(() => untilBound("later", false, NOW)).toThrow(
      /^until: "later" is not a date, a calendar word or "now"/,
    );
  });
});

describe("checkOrder", () => {
  const at = (ms: number | null, said = "") => ({ at: ms, api: "", said });

  it("lets an ordered or open window through", () => {
    expect(() => checkOrder(at(NOW - DAY), at(NOW), "P1D", undefined, NOW)).not.toThrow();
    expect(() => checkOrder(at(null), at(NOW), "all", undefined, NOW)).not.toThrow();
    expect(() => checkOrder(at(NOW + DAY), at(null), "2026-11-27", undefined, NOW)).not.toThrow();
  });

  it.each([
    ["since in the future", "2026-12-01", undefined, "since must not be in the future (today is 2026-11-26)"],
    [
      "until before the default since",
      undefined,
      "2026-01-01",
      "give a since before until (since defaults to 30 days ago)",
    ],
    ["both given, reversed", "2026-12-01", "2026-01-01", "swap them or widen the period"],
  ])("%s: the fix that fits", (_, rawSince, rawUntil, fix) => {
    let thrown: unknown;
    try {
      checkOrder(at(NOW + DAY, " (x)"), at(NOW, ", now"), rawSince, rawUntil, NOW);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UserInputError);
    expect((thrown as Error).message).toBe(
      `since (x) 2026-11-27T08:30:12Z is after until, now 2026-11-26T08:30:12Z: ${fix}`,
    );
    expect((thrown as UserInputError).details).toEqual({
      since: "2026-11-27T08:30:12Z",
      until: "2026-11-26T08:30:12Z",
    });
  });
});
