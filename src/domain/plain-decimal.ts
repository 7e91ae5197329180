/**
 * Quantities and costs as the API can hold them, written as plain decimals. JavaScript prints
 * 1e-7 and 1e21 in exponent form, which the API misreads (issue 11 item 7, issue 9 item 12).
 * The bound: below 10^12, at most 6 decimal places, at most 15 significant digits (so every
 * accepted number is exact in a double and in a DECIMAL(18,6) column).
 */

export const MAX_DECIMAL_EXCLUSIVE = 1e12;
export const MAX_DECIMAL_PLACES = 6;
export const MAX_SIGNIFICANT_DIGITS = 15;

/** `n` as a plain decimal without exponent or trailing zeros ("0.000001", "999999999999.5"). */
export function plainDecimal(n: number): string {
  // The shortest text that reads back as n; JavaScript uses exponent form only below 1e-6 and from 1e21.
  const shortest = String(n);
  if (!/e/i.test(shortest)) return shortest;
  const fixed =
    Math.abs(n) < 1
      ? n.toFixed(20)
      : n.toLocaleString("en-US", { useGrouping: false, maximumFractionDigits: 20 });
  return fixed.includes(".") ? fixed.replace(/\.?0+$/, "") : fixed;
}

/** Why `n` cannot be sent as a quantity or cost, or undefined when it can. */
export function decimalProblem(n: number): string | undefined {
  if (!Number.isFinite(n)) return "must be a finite number";
  if (Math.abs(n) >= MAX_DECIMAL_EXCLUSIVE) {
    return `${n} is too large: quantities and costs must be below 1000000000000 (10^12)`;
  }
  const text = plainDecimal(n);
  const decimals = text.split(".")[1]?.length ?? 0;
  if (decimals > MAX_DECIMAL_PLACES) {
    return `${n} has more than ${MAX_DECIMAL_PLACES} decimal places: the smallest step is 0.000001`;
  }
  const digits = text.replace(/^-/, "").replace(".", "").replace(/^0+/, "").length;
  if (digits > MAX_SIGNIFICANT_DIGITS) {
    return `${text} has ${digits} significant digits: at most ${MAX_SIGNIFICANT_DIGITS} are kept exactly`;
  }
  return undefined;
}
