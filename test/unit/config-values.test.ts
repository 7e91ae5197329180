/**
 * The steps of parseValues (src/config/config.ts), each on its own: the reader that turns one variable
 * into a value or a problem, and the value schemas of the variables whose rule is more than a range.
 * config.test.ts loads whole environments.
 */
import { describe, expect, it } from "vitest";
import {
  authSchemeValue,
  discountValue,
  httpTokenValue,
  logLevelValue,
  rateShareValue,
  valueReader,
} from "../../src/config/config.js";
import type { ConfigProblem } from "../../src/errors/api-error.js";

describe("valueReader", () => {
  it("reads a set value, and the fallback for an unset, empty or placeholder one", () => {
    const problems: ConfigProblem[] = [];
    const parse = valueReader(
      { MMS_RATE_SHARE: " 0.25 ", EMPTY: "", HOST_LEFT: ["$", "{user_config.share}"].join("") },
      problems,
    );
    expect(parse("MMS_RATE_SHARE", rateShareValue, 0.5)).toBe(0.25);
    expect(parse("UNSET", rateShareValue, 0.5)).toBe(0.5);
    expect(parse("EMPTY", rateShareValue, 0.5)).toBe(0.5);
    expect(parse("HOST_LEFT", rateShareValue, 0.5)).toBe(0.5);
    expect(problems).toEqual([]);
  });

  it("turns a bad value into a problem naming the variable and what it expects, never the value", () => {
    const problems: ConfigProblem[] = [];
    const parse = valueReader({ MCP_HTTP_TOKEN: "short-secret" }, problems);
    expect(parse<string | undefined>("MCP_HTTP_TOKEN", httpTokenValue, undefined)).toBeUndefined();
    expect(problems).toEqual([
      {
        variable: "MCP_HTTP_TOKEN",
        expected: "expected at least 16 characters (e.g. the output of `openssl rand -hex 32`)",
      },
    ]);
    expect(JSON.stringify(problems)).not.toContain("short-secret");
  });
});

describe("value schemas", () => {
  const expected = (
    schema: { safeParse(v: unknown): { success: boolean; error?: { issues: { message: string }[] } } },
    raw: string,
  ) => schema.safeParse(raw).error?.issues[0]?.message;

  it.each([
    ["0.5", 0.5],
    [".01", 0.01],
    ["1", 1],
    ["1.00", 1],
  ])("MMS_RATE_SHARE %s is %s", (raw, value) => {
    expect(rateShareValue.parse(raw)).toBe(value);
  });

  it.each([
    ["1.5", "expected a share from 0.01 to 1, e.g. 0.5"],
    ["half", "expected a share from 0.01 to 1, e.g. 0.5"],
    ["0", "expected at least 0.01 (0.5 leaves half to other integrations)"],
    ["0.001", "expected at least 0.01 (0.5 leaves half to other integrations)"],
  ])("MMS_RATE_SHARE %s: %s", (raw, message) => {
    expect(expected(rateShareValue, raw)).toBe(message);
  });

  it("MMS_AUTH, MMS_BUDGET_DISCOUNT and LOG_LEVEL take their words and name them otherwise", () => {
    expect(authSchemeValue.parse("hawk")).toBe("hawk");
    expect(expected(authSchemeValue, "basic")).toBe("expected oauth or hawk");
    expect(discountValue.parse("amount")).toBe("amount");
    expect(expected(discountValue, "%")).toMatch(
      /^expected percent or amount: whether the API's budget discount/,
    );
    expect(logLevelValue.parse("debug")).toBe("debug");
    expect(expected(logLevelValue, "verbose")).toMatch(/^expected one of .*debug/);
  });

  it("MCP_HTTP_TOKEN needs 16 characters", () => {
    expect(httpTokenValue.parse("0123456789abcdef")).toBe("0123456789abcdef");
    expect(expected(httpTokenValue, "0123456789abcde")).toMatch(/^expected at least 16 characters/);
  });
});
