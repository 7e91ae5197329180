/**
 * "Did you mean …?" for misspelt flags and variable names: the closest candidate by
 * Damerau-Levenshtein distance (case-insensitive, `-`/`_` ignored), if it is close enough to
 * be a typo rather than a different word.
 */

/** The form names are compared in: lower case, without `-` and `_`. */
export const normalise = (s: string) => s.toLowerCase().replace(/[-_]/g, "");

/** Edit distance with adjacent transpositions (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `input`, or undefined when none is within a third of its length
 * (at least 1, at most 3 edits), so `--readonly` finds `--read-only` but `--colour` finds nothing.
 */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  const needle = normalise(input);
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(needle, normalise(name));
    if (!best || distance < best.distance) best = { name, distance };
  }
  const limit = Math.min(3, Math.max(1, Math.floor(needle.length / 3)));
  return best && best.distance <= limit ? best.name : undefined;
}
