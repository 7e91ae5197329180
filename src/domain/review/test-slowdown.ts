/**
 * TEST ONLY: `MMS_TEST_SLOW_REVIEW_FACTOR=f` (f > 1) makes every review cost f times its CPU time (and
 * so about f times its wall time), so that the regression guard's own test (test/e2e/bench-check.test.ts)
 * can show `bench:check` failing on a review made twice as slow. Read here and nowhere else; never set
 * it in use (it is in no configuration table, and a value that is not a number above 1 changes nothing).
 */

const FACTOR_VARIABLE = "MMS_TEST_SLOW_REVIEW_FACTOR";

const cpuMsSince = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/** `review()`, then (f - 1) times the CPU time it took, spent spinning, when the test factor f is set. */
export async function slowedForTest<T>(review: () => Promise<T>): Promise<T> {
  const factor = Number(process.env[FACTOR_VARIABLE]);
  if (!(factor > 1)) return review();
  const started = process.cpuUsage();
  const result = await review();
  const extra = (factor - 1) * cpuMsSince(started);
  // CPU, not a timer: the guard reads a review's CPU time (bench/check/review.mjs), and so would a real regression.
  const spinning = process.cpuUsage();
  while (cpuMsSince(spinning) < extra);
  return result;
}
