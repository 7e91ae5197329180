/**
 * The product's calendar on an injected clock (issue 40, interface.md §6g "Calendar words"): calendar
 * words across a year end, 29 February and quarter starts, "today" on both sides of midnight UTC, P1M
 * from month ends, and windows given in the sandbox companies' zones (Santiago, Mexico City) across
 * their clock changes. Every "now" here is a fixed instant; nothing reads the machine's clock.
 */
import { describe, expect, it } from "vitest";
import {
  CALENDAR_WORDS,
  type CalendarWord,
  calendarPeriod,
  calendarWord,
} from "../../src/domain/calendar.js";
import { minusDuration, resolvePeriod } from "../../src/domain/period.js";
import { UserInputError } from "../../src/errors/api-error.js";

const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
/** The period of `word` at `now` as [first second, last second, name]. */
const at = (now: string, word: CalendarWord) => {
  const p = calendarPeriod(word, Date.parse(now));
  return [iso(p.start), iso(p.end), p.name];
};

describe("calendarWord", () => {
  it.each([
    ["last_month", "last_month"],
    ["Last-Month", "last_month"],
    ["last calendar month", "last_month"],
    ["  THIS QUARTER ", "this_quarter"],
    ["this calendar year", "this_year"],
    ["yesterday", "yesterday"],
  ])("%j reads as %s", (raw, word) => {
    expect(calendarWord(raw)).toBe(word);
  });

  it.each(["lastmonth", "last_week", "now", "all", "P1M", "2026-11-01", "month"])(
    "%j is no calendar word",
    (raw) => {
      expect(calendarWord(raw)).toBeUndefined();
    },
  );
});

describe("calendarPeriod", () => {
  it("on 31 December at 23:30 UTC: still the old year; a minute past midnight: the new one", () => {
    const eve = "2026-12-31T23:30:00Z";
    expect(at(eve, "today")).toEqual(["2026-12-31T00:00:00Z", "2026-12-31T23:59:59Z", "2026-12-31"]);
    expect(at(eve, "yesterday")).toEqual(["2026-12-30T00:00:00Z", "2026-12-30T23:59:59Z", "2026-12-30"]);
    expect(at(eve, "last_month")).toEqual(["2026-11-01T00:00:00Z", "2026-11-30T23:59:59Z", "November 2026"]);
    expect(at(eve, "this_quarter")).toEqual(["2026-10-01T00:00:00Z", "2026-12-31T23:59:59Z", "Q4 2026"]);
    expect(at(eve, "this_year")).toEqual(["2026-01-01T00:00:00Z", "2026-12-31T23:59:59Z", "2026"]);

    const after = "2027-01-01T00:01:00Z";
    expect(at(after, "yesterday")).toEqual(["2026-12-31T00:00:00Z", "2026-12-31T23:59:59Z", "2026-12-31"]);
    expect(at(after, "last_month")).toEqual([
      "2026-12-01T00:00:00Z",
      "2026-12-31T23:59:59Z",
      "December 2026",
    ]);
    expect(at(after, "this_month")).toEqual(["2027-01-01T00:00:00Z", "2027-01-31T23:59:59Z", "January 2027"]);
    expect(at(after, "last_quarter")).toEqual(["2026-10-01T00:00:00Z", "2026-12-31T23:59:59Z", "Q4 2026"]);
    expect(at(after, "this_quarter")).toEqual(["2027-01-01T00:00:00Z", "2027-03-31T23:59:59Z", "Q1 2027"]);
    expect(at(after, "last_year")).toEqual(["2026-01-01T00:00:00Z", "2026-12-31T23:59:59Z", "2026"]);
  });

  it("29 February: a leap month ends on the 29th, and the day after it is 1 March", () => {
    const leap = "2028-02-29T12:00:00Z";
    expect(at(leap, "this_month")).toEqual(["2028-02-01T00:00:00Z", "2028-02-29T23:59:59Z", "February 2028"]);
    expect(at(leap, "last_month")).toEqual(["2028-01-01T00:00:00Z", "2028-01-31T23:59:59Z", "January 2028"]);
    expect(at(leap, "yesterday")).toEqual(["2028-02-28T00:00:00Z", "2028-02-28T23:59:59Z", "2028-02-28"]);
    expect(at(leap, "this_quarter")).toEqual(["2028-01-01T00:00:00Z", "2028-03-31T23:59:59Z", "Q1 2028"]);
    expect(at(leap, "last_quarter")).toEqual(["2027-10-01T00:00:00Z", "2027-12-31T23:59:59Z", "Q4 2027"]);
    expect(at("2028-03-01T00:00:00Z", "last_month")).toEqual([
      "2028-02-01T00:00:00Z",
      "2028-02-29T23:59:59Z",
      "February 2028",
    ]);
    expect(at("2028-03-01T00:00:00Z", "yesterday")[0]).toBe("2028-02-29T00:00:00Z");
    expect(at("2027-03-01T09:00:00Z", "last_month")[1]).toBe("2027-02-28T23:59:59Z");
  });

  it("a quarter starts on its first second and the one before ends on the second before", () => {
    expect(at("2026-10-01T00:00:00Z", "this_quarter")).toEqual([
      "2026-10-01T00:00:00Z",
      "2026-12-31T23:59:59Z",
      "Q4 2026",
    ]);
    expect(at("2026-10-01T00:00:00Z", "last_quarter")).toEqual([
      "2026-07-01T00:00:00Z",
      "2026-09-30T23:59:59Z",
      "Q3 2026",
    ]);
    expect(at("2026-09-30T23:59:59Z", "this_quarter")[2]).toBe("Q3 2026");
    expect(at("2026-02-15T00:00:00Z", "last_quarter")).toEqual([
      "2025-10-01T00:00:00Z",
      "2025-12-31T23:59:59Z",
      "Q4 2025",
    ]);
  });

  it('"today" turns at midnight UTC, whatever the hour in Santiago or Mexico City', () => {
    // 23:59:59 UTC is 20:59 in Santiago (-03 in summer); 00:00:00 UTC is 21:00 the same evening there.
    expect(at("2026-12-31T23:59:59Z", "today")[2]).toBe("2026-12-31");
    expect(at("2027-01-01T00:00:00Z", "today")[2]).toBe("2027-01-01");
    expect(at("2027-01-01T00:00:00Z", "yesterday")[2]).toBe("2026-12-31");
  });

  it("every word names a period that holds or precedes now, ends on a last second, and starts where the one before ends", () => {
    const now = Date.parse("2028-02-29T23:59:59Z");
    for (const word of CALENDAR_WORDS) {
      const p = calendarPeriod(word, now);
      expect(p.end % 86_400_000, word).toBe(86_399_000);
      expect(p.start % 86_400_000, word).toBe(0);
      if (word.startsWith("last") || word === "yesterday") expect(p.end, word).toBeLessThan(now);
      else expect(p.start <= now && now <= p.end, word).toBe(true);
    }
  });
});

describe("calendar words in a window (resolvePeriod)", () => {
  const NOW = new Date("2027-01-01T00:30:00Z");

  it("last_month alone is the whole month, both ends shown and the end said to be included", () => {
    const r = resolvePeriod({ since: "last_month", type_date: "approval_date" }, NOW);
    expect(r.period).toEqual({
      since: "2026-12-01T00:00:00Z",
      until: "2026-12-31T23:59:59Z",
      type_date: "approval_date",
      default: false,
    });
    expect(r.api).toEqual({
      since: "2026-12-01T00:00:00+00",
      until: "2026-12-31T23:59:59+00",
      type_date: "approval_date",
    });
    expect(r.text).toBe(
      "budgets approved 2026-12-01T00:00:00Z to 2026-12-31T23:59:59Z (last_month: December 2026 in UTC, end included); today 2027-01-01",
    );
    // "last calendar month" is the same window; as until alone, too.
    expect(resolvePeriod({ since: "last calendar month" }, NOW).period).toMatchObject({
      since: "2026-12-01T00:00:00Z",
      until: "2026-12-31T23:59:59Z",
    });
    expect(resolvePeriod({ until: "last_month" }, NOW).period).toMatchObject({
      since: "2026-12-01T00:00:00Z",
      until: "2026-12-31T23:59:59Z",
    });
  });

  it("mixes with dates, durations and now, saying which end each word gives", () => {
    const quarter = resolvePeriod({ since: "last_quarter", until: "now" }, NOW);
    expect(quarter.period).toMatchObject({ since: "2026-10-01T00:00:00Z", until: "2027-01-01T00:30:00Z" });
    expect(quarter.text).toContain("(since last_quarter: Q4 2026 in UTC; the work order's date;");
    const two = resolvePeriod({ since: "last_year", until: "last_quarter", type_date: "final_date" }, NOW);
    expect(two.period).toMatchObject({ since: "2026-01-01T00:00:00Z", until: "2026-12-31T23:59:59Z" });
    expect(two.text).toBe(
      "work-order tasks ending (final_date) 2026-01-01T00:00:00Z to 2026-12-31T23:59:59Z (since last_year: 2026, until last_quarter: Q4 2026 in UTC, end included); today 2027-01-01",
    );
    const upTo = resolvePeriod({ since: "2026-06-01", until: "yesterday", type_date: "approval_date" }, NOW);
    expect(upTo.period).toMatchObject({ since: "2026-06-01T00:00:00Z", until: "2026-12-31T23:59:59Z" });
    expect(upTo.text).toContain("(until yesterday: 2026-12-31 in UTC, end included)");
  });

  it("budget_created reads the lookback before the word's start", () => {
    const r = resolvePeriod({ since: "this_year", type_date: "budget_created", lookbackDays: 10 }, NOW);
    expect(r.period).toMatchObject({ since: "2027-01-01T00:00:00Z", until: "2027-12-31T23:59:59Z" });
    expect(r.api.since).toBe("2026-12-22T00:00:00+00");
  });

  it("refuses words in the wrong order, and lists the words beside the other forms", () => {
    const fail = (input: Parameters<typeof resolvePeriod>[0]) => {
      try {
        resolvePeriod(input, NOW);
      } catch (error) {
        expect(error).toBeInstanceOf(UserInputError);
        return (error as Error).message;
      }
      throw new Error("no error");
    };
    expect(fail({ since: "this_month", until: "last_month" })).toBe(
      "since (this_month) 2027-01-01T00:00:00Z is after until (last_month) 2026-12-31T23:59:59Z: swap them or widen the period",
    );
    expect(fail({ since: "last_week" })).toContain(
      "a calendar word (today, yesterday, this_month, last_month, this_quarter, last_quarter, this_year, last_year; UTC, both ends included)",
    );
    expect(fail({ until: "tomorrow" })).toMatch(
      /^until: "tomorrow" is not a date, a calendar word or "now"\./,
    );
  });
});

describe("P1M and P1Y from month ends", () => {
  const back = (from: string, duration: string) => iso(minusDuration(duration, Date.parse(from))!);

  it.each([
    ["2026-01-31T10:00:00Z", "P1M", "2025-12-31T10:00:00Z"],
    ["2026-03-31T10:00:00Z", "P1M", "2026-02-28T10:00:00Z"],
    ["2028-03-31T10:00:00Z", "P1M", "2028-02-29T10:00:00Z"],
    ["2028-03-01T00:00:00Z", "P1M", "2028-02-01T00:00:00Z"],
    ["2028-02-29T23:30:00Z", "P1M", "2028-01-29T23:30:00Z"],
    ["2028-02-29T23:30:00Z", "P1Y", "2027-02-28T23:30:00Z"],
    ["2029-02-28T12:00:00Z", "P1Y", "2028-02-28T12:00:00Z"],
    ["2027-01-01T00:30:00Z", "P1D", "2026-12-31T00:30:00Z"],
    ["2027-01-01T00:30:00Z", "P1M1D", "2026-11-30T00:30:00Z"],
  ])("%s minus %s is %s", (from, duration, expected) => {
    expect(back(from, duration)).toBe(expected);
  });

  it("a P1M review on 31 January reads from 31 December", () => {
    const r = resolvePeriod({ since: "P1M" }, new Date("2027-01-31T08:00:00Z"));
    expect(r.period).toMatchObject({ since: "2026-12-31T08:00:00Z", until: "2027-01-31T08:00:00Z" });
  });
});

describe("windows in the sandbox companies' zones, across their clock changes", () => {
  const offset = (zone: string, instant: string) =>
    new Intl.DateTimeFormat("en", { timeZone: zone, timeZoneName: "longOffset" })
      .formatToParts(new Date(instant))
      .find((p) => p.type === "timeZoneName")?.value;

  it("Santiago leaves summer time on 5 April 2026: a day given in its offsets is 25 hours, sent as given", () => {
    // The zone data agrees with the offsets used below.
    expect(offset("America/Santiago", "2026-04-04T12:00:00Z")).toBe("GMT-03:00");
    expect(offset("America/Santiago", "2026-04-05T12:00:00Z")).toBe("GMT-04:00");
    const r = resolvePeriod(
      { since: "2026-04-04T00:00:00-03:00", until: "2026-04-04T23:59:59-04:00" },
      new Date("2026-04-10T00:00:00Z"),
    );
    expect(r.api).toMatchObject({ since: "2026-04-04T00:00:00-03", until: "2026-04-04T23:59:59-04" });
    expect(r.period).toMatchObject({ since: "2026-04-04T03:00:00Z", until: "2026-04-05T03:59:59Z" });
    expect(Date.parse(r.period.until!) + 1000 - Date.parse(r.period.since!)).toBe(25 * 3_600_000);
  });

  it("Santiago enters summer time on 6 September 2026: that day is 23 hours", () => {
    expect(offset("America/Santiago", "2026-09-05T12:00:00Z")).toBe("GMT-04:00");
    expect(offset("America/Santiago", "2026-09-06T12:00:00Z")).toBe("GMT-03:00");
    const r = resolvePeriod(
      { since: "2026-09-06T00:00:00-04:00", until: "2026-09-06T23:59:59-03:00" },
      new Date("2026-09-10T00:00:00Z"),
    );
    expect(r.period).toMatchObject({ since: "2026-09-06T04:00:00Z", until: "2026-09-07T02:59:59Z" });
    expect(Date.parse(r.period.until!) + 1000 - Date.parse(r.period.since!)).toBe(23 * 3_600_000);
  });

  it("Mexico City keeps -06:00 all year (no summer time since 2022): April's first Sunday changes nothing", () => {
    expect(offset("America/Mexico_City", "2026-04-04T12:00:00Z")).toBe("GMT-06:00");
    expect(offset("America/Mexico_City", "2026-04-06T12:00:00Z")).toBe("GMT-06:00");
    const r = resolvePeriod(
      { since: "2026-04-05T00:00:00-06:00", until: "2026-04-05T23:59:59-06:00" },
      new Date("2026-04-10T00:00:00Z"),
    );
    expect(r.api).toMatchObject({ since: "2026-04-05T00:00:00-06", until: "2026-04-05T23:59:59-06" });
    expect(r.period).toMatchObject({ since: "2026-04-05T06:00:00Z", until: "2026-04-06T05:59:59Z" });
  });

  it("a Santiago evening past midnight UTC: calendar words are UTC's, and the window line says so", () => {
    // 2027-01-01T02:00Z is 23:00 on 31 December in Santiago: "last_month" is UTC's December, not its November.
    const r = resolvePeriod({ since: "last_month" }, new Date("2027-01-01T02:00:00Z"));
    expect(r.today).toBe("2027-01-01");
    expect(r.text).toContain("(last_month: December 2026 in UTC, end included");
  });
});
