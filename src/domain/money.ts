/**
 * Money without ambiguity (interface.md §6). Currency names as the API sends them ("US Dollar",
 * "Peso chileno", "pesos mexicanos") map to ISO 4217 codes through the platform's own currency
 * data (Intl, English and Spanish names), never a hand-written table; a name that maps to no code,
 * or to two, stays as written and is flagged. Amounts are exact decimals (BigInt at a fixed
 * scale), summed without float drift and rounded once, to the currency's digits, for display.
 */

import { quote } from "./upstream-text.js";

/** A currency as results show it: an ISO code, or the API's description when it maps to none. */
export interface Currency {
  /** ISO 4217 code, or the description as the API wrote it when unmapped. */
  code: string;
  /** False when `code` is the raw description (no ISO code found). */
  mapped: boolean;
}

/** Lower case, no accents or punctuation ("U.S." is "us"), each word in the singular (English and Spanish plural endings). */
export function normalizeName(name: string): string {
  return name
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/\./g, "")
    .replace(/[^a-z0-9]+/g, " ")
    .trim()
    .split(" ")
    .map((w) =>
      w.length > 3 && /[rlndzj]es$/.test(w)
        ? w.slice(0, -2)
        : w.length > 3 && /[^s]s$/.test(w)
          ? w.slice(0, -1)
          : w,
    )
    .join(" ");
}

let names: Map<string, string | null> | undefined;

/** normalized name → code (null when two codes share the name), built once from Intl. */
function nameTable(): Map<string, string | null> {
  if (names) return names;
  const table = new Map<string, string | null>();
  const add = (name: string | undefined, code: string) => {
    if (!name) return;
    const key = normalizeName(name);
    const seen = table.get(key);
    table.set(key, seen === undefined || seen === code ? code : null);
  };
  const display = ["en", "es"].map((locale) => new Intl.DisplayNames([locale], { type: "currency" }));
  for (const code of Intl.supportedValuesOf("currency")) {
    add(code, code);
    for (const d of display) add(d.of(code), code);
  }
  names = table;
  return table;
}

/** Descriptions seen → currency: a page repeats a handful of names; bounded against odd upstream data. */
const seen = new Map<string, Readonly<Currency>>();
const SEEN_MAX = 1_000;

/** The currency a description names; unmapped (kept verbatim) when Intl knows no single code for it. */
export function currencyOf(description: string | null | undefined): Readonly<Currency> {
  const key = description ?? "";
  let currency = seen.get(key);
  if (currency === undefined) {
    currency = Object.freeze(lookUp(key.trim()));
    if (seen.size >= SEEN_MAX) seen.clear();
    seen.set(key, currency);
  }
  return currency;
}

function lookUp(raw: string): Currency {
  if (raw === "") return { code: "unknown", mapped: false };
  const code = nameTable().get(normalizeName(raw));
  return code ? { code, mapped: true } : { code: raw, mapped: false };
}

/** Whether a user's currency argument (code or name, any case) designates this currency. */
export function currencyMatches(wanted: string, currency: Currency): boolean {
  const asked = currencyOf(wanted);
  if (asked.mapped) return currency.mapped && asked.code === currency.code;
  return normalizeName(wanted) === normalizeName(currency.code);
}

/** ISO code → digits; building an Intl.NumberFormat costs ~50 µs, and there are ~300 codes. */
const digitsOf = new Map<string, number>();

/** Digits after the decimal point in the currency's usual notation (2 when unknown). */
export function fractionDigits(currency: Currency): number {
  if (!currency.mapped) return 2;
  let digits = digitsOf.get(currency.code);
  if (digits === undefined) {
    digits = new Intl.NumberFormat("en", { style: "currency", currency: currency.code }).resolvedOptions()
      .maximumFractionDigits!;
    digitsOf.set(currency.code, digits);
  }
  return digits;
}

/** Exact decimal: an integer count of 10^-SCALE units. */
export type Exact = bigint;
const SCALE = 6;
const ONE = 10n ** BigInt(SCALE);

/** A number or numeric text as the API wrote it, read exactly (0.1 is 100000 units, not 0.1000000000000000055...). */
export function exact(value: number | string): Exact {
  if (typeof value === "number") {
    const units = fastUnits(value);
    if (units !== undefined) return BigInt(units);
  }
  const text = typeof value === "number" ? numberText(value) : value.trim();
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) throw new RangeError(`not a decimal amount: ${value}`);
  const frac = (m[3] ?? "").padEnd(SCALE + 1, "0");
  let units = BigInt(m[2] || "0") * ONE + BigInt(frac.slice(0, SCALE));
  if (Number(frac[SCALE]) >= 5) units += 1n;
  return m[1] === "-" ? -units : units;
}

/**
 * exact(n) without text or regex for the amounts money has: when |n| < 2^31, two multiples of
 * 10^-SCALE never round to the same double (ulp < 10^-6), so if m / 10^6 (a correctly rounded
 * division) gives back n, m is the one decimal of at most SCALE places that reads as n: the same
 * units as parsing n's shortest text. Undefined when that does not hold (the text path decides).
 */
function fastUnits(n: number): number | undefined {
  if (!(Math.abs(n) < 2 ** 31)) return undefined;
  const m = Math.round(n * 1e6);
  return m / 1e6 === n ? m : undefined;
}

/** Shortest decimal text of a number (no exponent for the magnitudes money has). */
function numberText(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite amount: ${n}`);
  const s = String(n);
  return /e/i.test(s) ? n.toFixed(SCALE) : s;
}

export const sum = (values: Iterable<Exact>): Exact => {
  let total = 0n;
  for (const v of values) total += v;
  return total;
};

/** 10^(SCALE - digits) for digits 0..SCALE, the rounding steps (BigInt powers are not free). */
const STEPS = Array.from({ length: SCALE + 1 }, (_, digits) => 10n ** BigInt(SCALE - digits));

/** Rounded half away from zero to `digits` decimals, as an integer of 10^-digits units. */
function rounded(value: Exact, digits: number): bigint {
  const step = STEPS[digits] ?? 10n ** BigInt(SCALE - digits);
  const abs = value < 0n ? -value : value;
  const q = (abs + step / 2n) / step;
  return value < 0n ? -q : q;
}

/** The amount as a JSON number, rounded to the currency's digits (the closest double to that decimal). */
export function toNumber(value: Exact, currency: Currency): number {
  const digits = fractionDigits(currency);
  const q = rounded(value, digits);
  // q and 10^digits are exact doubles and division rounds correctly: the double closest to the
  // decimal, as Number(text) gives, without the text.
  if (q <= MAX_SAFE && q >= -MAX_SAFE) return Number(q) / 10 ** digits;
  return Number(decimalText(value, digits));
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function decimalText(value: Exact, digits: number): string {
  const q = rounded(value, digits);
  const sign = q < 0n ? "-" : "";
  const s = (q < 0n ? -q : q).toString().padStart(digits + 1, "0");
  return digits === 0 ? `${sign}${s}` : `${sign}${s.slice(0, -digits)}.${s.slice(-digits)}`;
}

/** "USD 744.00", "CLP 51,300", or "Puntos (unmapped currency) 10.00": code first, grouped digits, never a bare symbol. */
export function formatMoney(value: Exact | number, currency: Currency): string {
  return `${currencyLabel(currency)} ${grouped(amountText(value, fractionDigits(currency)))}`;
}

/** The amount rounded to `digits` decimals, as text ("-1234.50"). */
function amountText(value: Exact | number, digits: number): string {
  if (typeof value === "number" && Math.abs(value) < 2 ** 31) {
    // A number that already has at most `digits` decimals (amounts toNumber made do): toFixed
    // writes that decimal exactly, as the exact path would (see fastUnits for why below 2^31).
    const text = value.toFixed(digits);
    if (Number(text) === value) return text;
  }
  return decimalText(typeof value === "bigint" ? value : exact(value), digits);
}

/** "-1234567.50" → "-1,234,567.50". */
function grouped(text: string): string {
  const sign = text.startsWith("-") ? "-" : "";
  const point = text.indexOf(".");
  const int = text.slice(sign.length, point === -1 ? text.length : point);
  if (int.length <= 3) return text;
  let out = int.slice(0, int.length % 3 || 3);
  for (let i = out.length; i < int.length; i += 3) out += `,${int.slice(i, i + 3)}`;
  return `${sign}${out}${point === -1 ? "" : text.slice(point)}`;
}

/** What stands before an amount: "USD", or `"Puntos" (unmapped currency)`. */
export function currencyLabel(currency: Currency): string {
  // The API's own name, quoted: it is upstream text, and may even read as an amount.
  return currency.mapped ? currency.code : `${quote(currency.code)} (unmapped currency)`;
}
