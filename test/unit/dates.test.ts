import { describe, expect, it } from "vitest";
import { toApiDate, toApiPeriod } from "../../src/domain/dates.js";
import { UserInputError } from "../../src/errors/api-error.js";

describe("toApiDate", () => {
  it.each([
    ["2024-05-01", "start", "2024-05-01T00:00:00+00"],
    ["2024-05-01", "end", "2024-05-01T23:59:59+00"],
    ["2024-05-01T08:30:00-03:00", "start", "2024-05-01T08:30:00-03"],
    ["2024-05-01T08:30:00-03", "start", "2024-05-01T08:30:00-03"],
    ["2024-05-01T08:30:00+0200", "start", "2024-05-01T08:30:00+02"],
    ["2024-05-01T08:30:00Z", "start", "2024-05-01T08:30:00+00"],
    ["2024-05-01T08:30:00.123456+00:00", "start", "2024-05-01T08:30:00+00"],
    ["2024-05-01T08:30", "start", "2024-05-01T08:30:00+00"],
    ["2024-05-01T08:30:00+05:30", "start", "2024-05-01T03:00:00+00"],
    ["2024-05-01 08:30:00z", "start", "2024-05-01T08:30:00+00"],
  ] as const)("%s (%s) → %s", (raw, edge, api) => {
    expect(toApiDate(raw, "since", edge).api).toBe(api);
  });

  it.each(["yesterday", "2024-13-01", "2024-02-30", "2024-05-01T25:00:00Z", "2024-05-01T08:00:00+15:00", ""])(
    "rejects %j with the field named",
    (raw) => {
      expect(() => toApiDate(raw, "until", "end")).toThrow(UserInputError);
      expect(() => toApiDate(raw, "until", "end")).toThrow(/^until: /);
    },
  );

  it("keeps the instant across offsets", () => {
    expect(toApiDate("2024-05-01T08:00:00-03:00", "since", "start").instant).toBe(
      Date.parse("2024-05-01T11:00:00Z"),
    );
  });
});

describe("toApiPeriod", () => {
  it("converts both ends and checks their order", () => {
    expect(toApiPeriod("2024-05-01", "2024-05-31")).toEqual({
      since: "2024-05-01T00:00:00+00",
      until: "2024-05-31T23:59:59+00",
    });
    expect(toApiPeriod(undefined, undefined)).toEqual({ since: undefined, until: undefined });
    expect(() => toApiPeriod("2024-06-01", "2024-05-01")).toThrow(/since .* is after until/);
  });
});
