/**
 * Results fit the host (interface.md §6): at most about 20,000 tokens, i.e. 80,000 characters of
 * text and 80,000 of serialized structuredContent. A list is cut at a record boundary, never in
 * the middle of one, and the caller reports where to go on.
 */

/** Characters allowed for each of text and structuredContent. */
export const RESULT_MAX_CHARS = 80_000;
/** Kept free for everything around the records (page facts, notes, headers). */
const RESERVE = 4_000;

/**
 * How many of `items` (a prefix, at least one) fit when each costs `structured(item)` characters
 * of JSON and `text(item)` characters of text.
 */
export function fitCount<T>(
  items: readonly T[],
  cost: { structured: (item: T, index: number) => number; text: (item: T, index: number) => number },
  max = RESULT_MAX_CHARS,
): number {
  let json = 0;
  let text = 0;
  for (let i = 0; i < items.length; i++) {
    json += cost.structured(items[i]!, i) + 1;
    text += cost.text(items[i]!, i) + 1;
    if (json > max - RESERVE || text > max - RESERVE) return Math.max(i, 1);
  }
  return items.length;
}

/**
 * How many records of the sample's average size one result can carry, with a 10 % margin: a walk
 * of every page (all=true) stops reading there, since fitCount would cut the rest anyway.
 */
export function fitEstimate<T>(
  sample: readonly T[],
  cost: { structured: (item: T) => number; text: (item: T) => number },
  max = RESULT_MAX_CHARS,
): number {
  if (sample.length === 0) return Number.POSITIVE_INFINITY;
  let json = 0;
  let text = 0;
  for (const item of sample) {
    json += cost.structured(item) + 1;
    text += cost.text(item) + 1;
  }
  const perRecord = Math.max(json, text) / sample.length;
  return Math.ceil(((max - RESERVE) / perRecord) * 1.1);
}

// A string JSON.stringify writes as is, between quotes: nothing to escape (quote, backslash, control
// characters) and no surrogate (a lone one is escaped; pairs are left to JSON.stringify too).
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters JSON escapes.
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

function valueLength(v: unknown): number | undefined {
  switch (typeof v) {
    case "string":
      return PLAIN.test(v) ? v.length + 2 : JSON.stringify(v).length;
    case "number":
      return Number.isFinite(v) ? String(v).length : 4;
    case "boolean":
      return v ? 4 : 5;
    case "undefined":
      return undefined;
    default: {
      if (v === null) return 4;
      const text = JSON.stringify(v) as string | undefined; // undefined for functions and symbols
      return text?.length;
    }
  }
}

/**
 * `JSON.stringify(record).length` for a plain data record, without building the text: the size
 * check measures every record of every result, and most are flat records of text and numbers.
 * Keys JSON.stringify leaves out (undefined, functions) are left out; nested values are measured
 * by JSON.stringify itself.
 */
export function jsonLength(record: Record<string, unknown>): number {
  let n = 2;
  let fields = 0;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const v = valueLength(record[key]);
    if (v === undefined) continue;
    n += valueLength(key)! + 1 + v;
    fields++;
  }
  return fields === 0 ? n : n + fields - 1;
}
