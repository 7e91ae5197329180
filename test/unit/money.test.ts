import { describe, expect, it } from "vitest";
import { currencyMatches, currencyOf, exact, formatMoney, sum, toNumber } from "../../src/domain/money.js";

describe("currencyOf", () => {
  it.each([
    ["US Dollar", "USD"],
    ["US dollars", "USD"],
    ["U.S. Dollar", "USD"],
    ["Dólar estadounidense", "USD"],
    ["dolares estadounidenses", "USD"],
    ["Euro", "EUR"],
    ["euros", "EUR"],
    ["Chilean Peso", "CLP"],
    ["Peso chileno", "CLP"],
    ["PESOS CHILENOS", "CLP"],
    ["Peso mexicano", "MXN"],
    ["Mexican pesos", "MXN"],
    ["Libra esterlina", "GBP"],
    ["yen japonés", "JPY"],
    ["usd", "USD"],
  ])("maps %j to %s with Intl's own names", (name, code) => {
    expect(currencyOf(name)).toEqual({ code, mapped: true });
  });

  it.each([["Crédito interno"], ["Dólar"], ["$"], ["Peso"]])(
    "keeps %j as written, flagged unmapped",
    (name) => {
      expect(currencyOf(name)).toEqual({ code: name, mapped: false });
    },
  );

  it("matches a user's code or name against a currency", () => {
    expect(currencyMatches("peso chileno", currencyOf("Chilean Peso"))).toBe(true);
    expect(currencyMatches("CLP", currencyOf("Peso chileno"))).toBe(true);
    expect(currencyMatches("MXN", currencyOf("Peso chileno"))).toBe(false);
    expect(currencyMatches("credito interno", currencyOf("Crédito interno"))).toBe(true);
  });
});

describe("exact amounts", () => {
  it("sums without float drift", () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    const usd = currencyOf("USD");
    const total = sum([0.1, 0.2].map((n) => exact(n)));
    expect(toNumber(total, usd)).toBe(0.3);
    expect(formatMoney(total, usd)).toBe("USD 0.30");
    expect(toNumber(sum(Array.from({ length: 1000 }, () => exact(0.01))), usd)).toBe(10);
  });

  it.each([
    [744, "USD", "USD 744.00"],
    [51300, "CLP", "CLP 51,300"],
    [1234567.891, "EUR", "EUR 1,234,567.89"],
    [0.005, "USD", "USD 0.01"],
    [-2.5, "MXN", "MXN -2.50"],
    [12112.5, "CLP", "CLP 12,113"],
    ["10.10", "JPY", "JPY 10"],
  ])("formats %j %s as %j (code first, the currency's own digits)", (amount, code, text) => {
    expect(formatMoney(exact(amount), currencyOf(code))).toBe(text);
  });

  it("formats an unmapped currency under its name with two decimals", () => {
    expect(formatMoney(exact(10), currencyOf("Crédito interno"))).toBe(
      "Crédito interno (unmapped currency) 10.00",
    );
  });

  it("refuses text that is not a decimal amount", () => {
    expect(() => exact("12,50")).toThrow(/not a decimal amount/);
    expect(() => exact(Number.NaN)).toThrow(/not a finite amount/);
  });
});
