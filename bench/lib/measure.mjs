/**
 * The one measurement helper of the benchmarks: run several series interleaved call by call
 * (A, B, C, A, B, C...), so that machine noise (other processes, CPU frequency, GC of the
 * benchmark process) hits every series alike, then summarise each series the same way.
 */

/** High-resolution milliseconds. */
export const now = () => Number(process.hrtime.bigint()) / 1e6;

/**
 * Run `rounds` rounds; each round calls every series once, in order, and records its duration.
 * `warmup` rounds run first and are not recorded. A series may return a number to report its own
 * duration (ms) instead of the wall time of the call (cold start uses this).
 * @param {Record<string, () => Promise<unknown>>} series
 * @returns {Promise<Record<string, number[]>>} durations in ms per series
 */
export async function interleave(series, { rounds, warmup = 0, label = "", progressEvery = 0 }) {
  const names = Object.keys(series);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = -warmup; r < rounds; r++) {
    for (const name of names) {
      const t0 = now();
      const own = await series[name]();
      const ms = typeof own === "number" ? own : now() - t0;
      if (r >= 0) samples[name].push(ms);
    }
    if (progressEvery > 0 && r >= 0 && (r + 1) % progressEvery === 0) {
      process.stderr.write(`  ${label} ${r + 1}/${rounds}\n`);
    }
  }
  return samples;
}

/** The value at quantile q (0..1) of the samples, nearest rank. */
export function quantile(samples, q) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export const median = (samples) => quantile(samples, 0.5);
export const p95 = (samples) => quantile(samples, 0.95);

/** Median and p95 of one series. */
export const summarize = (samples) => ({ n: samples.length, median: median(samples), p95: p95(samples) });
