import fc from "fast-check";
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
      `"Crédito interno" (unmapped currency) 10.00`,
    );
  });

  it("refuses text that is not a decimal amount", () => {
    expect(() => exact("12,50")).toThrow(/not a decimal amount/);
    expect(() => exact(Number.NaN)).toThrow(/not a finite amount/);
  });
});

describe("exact() on numbers: the arithmetic shortcut reads as the number's shortest text", () => {
  // The text path, as exact() took it for every number before the shortcut.
  const viaText = (n: number) => exact(/e/i.test(String(n)) ? n.toFixed(6) : String(n));

  it("agrees on any double (shortcut taken or declined)", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }), (n) => {
        expect(exact(n)).toBe(viaText(n));
      }),
      { numRuns: 5_000 },
    );
  });

  it("agrees on amounts written with up to 7 decimals, around 2^31 and on halves", () => {
    const decimals = fc
      .tuple(fc.integer({ min: -(2 ** 32), max: 2 ** 32 }), fc.integer({ min: 0, max: 9_999_999 }))
      .map(([i, f]) => Number(`${i}.${String(f).padStart(7, "0")}`));
    fc.assert(
      fc.property(decimals, (n) => {
        expect(exact(n)).toBe(viaText(n));
      }),
      { numRuns: 5_000 },
    );
    for (const n of [
      2 ** 31 - 0.000001,
      2 ** 31,
      -(2 ** 31) + 0.5,
      0.0000005,
      -0.0000005,
      1e-7,
      -0,
      0.1 + 0.2,
    ])
      expect(exact(n)).toBe(viaText(n));
  });
});

describe("currency lookups are memoised", () => {
  it("answers a repeated description with the same frozen currency, and unmapped names verbatim", () => {
    const a = currencyOf("US Dollar");
    expect(currencyOf("US Dollar")).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(currencyOf("  Puntos  ")).toEqual({ code: "Puntos", mapped: false });
    // Many distinct descriptions (a hostile upstream) neither grow the cache without bound nor change answers.
    for (let i = 0; i < 2_500; i++)
      expect(currencyOf(`Token ${i}`)).toEqual({ code: `Token ${i}`, mapped: false });
    expect(currencyOf("US Dollar")).toEqual({ code: "USD", mapped: true });
  });
});

describe("formatMoney and toNumber shortcuts agree with the exact path", () => {
  const currencies = [currencyOf("USD"), currencyOf("CLP"), currencyOf("KWD"), currencyOf("Puntos")];
  // Amounts as money has them (up to 7 decimals, beyond 2^31) and any double.
  const amounts = fc.oneof(
    fc
      .tuple(fc.integer({ min: -(2 ** 32), max: 2 ** 32 }), fc.integer({ min: 0, max: 9_999_999 }))
      .map(([i, f]) => Number(`${i}.${String(f).padStart(7, "0")}`)),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }),
    fc.constantFrom(0, -0, 0.005, -0.005, 0.125, 999.995, 1_000, -1_000_000.5, 2 ** 31),
  );
  // The exact path's text with the grouping regex formatMoney used before its shortcut.
  const regexGrouped = (formatted: string) => {
    const [label, amount] = [
      formatted.slice(0, formatted.lastIndexOf(" ")),
      formatted.slice(formatted.lastIndexOf(" ") + 1),
    ];
    const plain = amount.replaceAll(",", "");
    const [int, frac] = plain.replace("-", "").split(".");
    const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return `${label} ${plain.startsWith("-") ? "-" : ""}${grouped}${frac === undefined ? "" : `.${frac}`}`;
  };

  it("formats a number as its exact value formats", () => {
    fc.assert(
      fc.property(amounts, fc.constantFrom(...currencies), (n, c) => {
        const viaExact = formatMoney(exact(n), c);
        expect(formatMoney(n, c)).toBe(viaExact);
        expect(viaExact).toBe(regexGrouped(viaExact));
      }),
      { numRuns: 5_000 },
    );
  });

  it("gives the closest double to the rounded decimal", () => {
    fc.assert(
      fc.property(amounts, fc.constantFrom(...currencies), (n, c) => {
        const text = formatMoney(exact(n), c).split(" ").pop()!.replaceAll(",", "");
        expect(toNumber(exact(n), c)).toBe(Number(text));
      }),
      { numRuns: 5_000 },
    );
  });
});
