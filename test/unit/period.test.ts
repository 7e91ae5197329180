import { describe, expect, it } from "vitest";
import { minusDuration, resolvePeriod } from "../../src/domain/period.js";
import { UserInputError } from "../../src/errors/api-error.js";

const NOW = new Date("2026-11-26T08:30:12.700Z");

describe("minusDuration", () => {
  it.each([
    ["P90D", "2026-08-28T08:30:12Z"],
    ["p90d", "2026-08-28T08:30:12Z"],
    ["P1W", "2026-11-19T08:30:12Z"],
    ["PT12H", "2026-11-25T20:30:12Z"],
    ["PT90M", "2026-11-26T07:00:12Z"],
    ["P1Y", "2025-11-26T08:30:12Z"],
    ["P3M", "2026-08-26T08:30:12Z"],
    ["P1DT2H", "2026-11-25T06:30:12Z"],
    ["P0D", "2026-11-26T08:30:12Z"],
  ])("%s back from 2026-11-26T08:30:12Z is %s", (duration, expected) => {
    const at = minusDuration(duration, Date.parse("2026-11-26T08:30:12Z"));
    expect(new Date(at!).toISOString().replace(".000", "")).toBe(expected);
  });

  it("counts months by the calendar: the last day of a shorter month, never a spill into the next", () => {
    const back = (d: string, dur: string) => new Date(minusDuration(dur, Date.parse(d))!).toISOString();
    expect(back("2026-05-31T00:00:00Z", "P3M")).toBe("2026-02-28T00:00:00.000Z");
    expect(back("2028-05-31T00:00:00Z", "P3M")).toBe("2028-02-29T00:00:00.000Z");
    expect(back("2028-02-29T12:00:00Z", "P1Y")).toBe("2027-02-28T12:00:00.000Z");
    expect(back("2026-01-15T00:00:00Z", "P13M")).toBe("2024-12-15T00:00:00.000Z");
  });

  it.each(["P", "PT", "P1DT", "P1.5D", "P-1D", "90D", "P1H", "PT1D", "P1234567D"])(
    "%s is no duration",
    (raw) => {
      expect(minusDuration(raw, NOW.getTime())).toBeUndefined();
    },
  );
});

describe("resolvePeriod", () => {
  it("states the default window as two instants to the second, today, and sends the same", () => {
    const r = resolvePeriod({}, NOW);
    expect(r.period).toEqual({
      since: "2026-10-27T08:30:12Z",
      until: "2026-11-26T08:30:12Z",
      type_date: "creation_date",
      default: true,
    });
    expect(r.today).toBe("2026-11-26");
    expect(r.api).toEqual({
      since: "2026-10-27T08:30:12+00",
      until: "2026-11-26T08:30:12+00",
      type_date: "creation_date",
    });
    // The API's creation_date is the work order's: the words say so, and name the budget's own.
    expect(r.text).toBe(
      "work orders created 2026-10-27T08:30:12Z to 2026-11-26T08:30:12Z (the default: last 30 days; the work order's date; the budget's own: type_date budget_created); today 2026-11-26",
    );
  });

  it("reads a duration back from now, and says so", () => {
    const r = resolvePeriod({ since: "P90D", type_date: "approval_date" }, NOW);
    expect(r.period).toMatchObject({
      since: "2026-08-28T08:30:12Z",
      until: "2026-11-26T08:30:12Z",
      default: false,
    });
    expect(r.text).toBe(
      "budgets approved 2026-08-28T08:30:12Z to 2026-11-26T08:30:12Z (P90D back from now); today 2026-11-26",
    );
    expect(r.api.type_date).toBe("approval_date");
  });

  it("budget_created: asks the API for the work orders from the lookback before since, and says so", () => {
    const r = resolvePeriod({ since: "P14D", type_date: "budget_created" }, NOW);
    expect(r.period).toEqual({
      since: "2026-11-12T08:30:12Z",
      until: "2026-11-26T08:30:12Z",
      type_date: "budget_created",
      default: false,
      work_orders_since: "2025-11-12T08:30:12Z",
      lookback_days: 365,
    });
    expect(r.api).toEqual({
      since: "2025-11-12T08:30:12+00",
      until: "2026-11-26T08:30:12+00",
      type_date: "creation_date",
    });
    expect(r.text).toBe(
      "budgets created 2026-11-12T08:30:12Z to 2026-11-26T08:30:12Z (P14D back from now), from the work orders created since 2025-11-12T08:30:12Z (MMS_BUDGET_LOOKBACK_DAYS=365; complete for budgets created within 365 days of their work order); today 2026-11-26",
    );
    const short = resolvePeriod({ since: "2026-11-01", type_date: "budget_created", lookbackDays: 10 }, NOW);
    expect(short.api.since).toBe("2026-10-22T00:00:00+00");
    // "all" reads every work order: nothing to look back past, so nothing to state.
    const all = resolvePeriod({ since: "all", type_date: "budget_created" }, NOW);
    expect(all.api.since).toBe("1970-01-01T00:00:00+00");
    expect(all.period.lookback_days).toBeUndefined();
    expect(all.text).toBe("budgets created every date to 2026-11-26T08:30:12Z; today 2026-11-26");
  });

  it('"all" is every date up to until; a lookup is every date, both ways', () => {
    const all = resolvePeriod({ since: "all", until: "now" }, NOW);
    expect(all.period).toMatchObject({ since: null, until: "2026-11-26T08:30:12Z", default: false });
    expect(all.api.since).toBe("1970-01-01T00:00:00+00");
    const lookup = resolvePeriod({ lookup: "work order 4001" }, NOW);
    expect(lookup.period).toMatchObject({ since: null, until: null, default: false });
    expect(lookup.text).toBe("every date (lookup by work order 4001); today 2026-11-26");
    // A year ahead: planned final dates lie in the future.
    expect(lookup.api.until).toBe("2027-11-27T08:30:12+00");
  });

  it("keeps an explicit date's own offset for the API and states it in UTC", () => {
    const r = resolvePeriod({ since: "2026-05-01T00:00:00-03:00", until: "2026-06-01" }, NOW);
    expect(r.api).toMatchObject({ since: "2026-05-01T00:00:00-03", until: "2026-06-01T23:59:59+00" });
    expect(r.period).toMatchObject({ since: "2026-05-01T03:00:00Z", until: "2026-06-01T23:59:59Z" });
  });

  const message = (input: Parameters<typeof resolvePeriod>[0]) => {
    try {
      resolvePeriod(input, NOW);
    } catch (error) {
      expect(error).toBeInstanceOf(UserInputError);
      return (error as Error).message;
    }
    throw new Error("no error");
  };

  it("names the resolved default when since falls after it", () => {
    expect(message({ since: "2026-11-27" })).toBe(
      "since 2026-11-27T00:00:00Z is after until, now 2026-11-26T08:30:12Z: since must not be in the future (today is 2026-11-26)",
    );
    expect(message({ until: "2026-10-01" })).toBe(
      "since, 30 days ago by default, 2026-10-27T08:30:12Z is after until 2026-10-01T23:59:59Z: give a since before until (since defaults to 30 days ago)",
    );
  });

  it("shows today's date and the accepted forms for a value it cannot read", () => {
    expect(message({ since: "last week" })).toBe(
      'since: "last week" is not a date, a duration, a calendar word or "all". Today is 2026-11-26 (now 2026-11-26T08:30:12Z). since takes an ISO 8601 date or date-time (2026-08-28, 2026-08-28T08:00:00-03:00; UTC without offset), a duration back from now (P90D, P3M, P1Y, PT12H), a calendar word (today, yesterday, this_month, last_month, this_quarter, last_quarter, this_year, last_year; UTC, both ends included) or "all" (every date).',
    );
    expect(message({ until: "all" })).toMatch(
      /^until: "all" is not a date, a calendar word or "now"\. Today is 2026-11-26/,
    );
    expect(message({ since: "P3000Y" })).toMatch(/reaches back before 1970: use "all" for every date/);
    expect(message({ since: "2026-13-01" })).toMatch(
      /^since: "2026-13-01" is not a real calendar date\. Today is/,
    );
  });
});
