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
  cost: { structured: (item: T) => number; text: (item: T) => number },
  max = RESULT_MAX_CHARS,
): number {
  let json = 0;
  let text = 0;
  for (let i = 0; i < items.length; i++) {
    json += cost.structured(items[i]!) + 1;
    text += cost.text(items[i]!) + 1;
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
