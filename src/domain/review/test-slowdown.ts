/**
 * TEST ONLY: `MMS_TEST_SLOW_REVIEW_FACTOR=f` (f > 1) makes every review take f times as long,
 * so that the regression guard's own test (test/e2e/bench-check.test.ts) can show `bench:check`
 * failing on a review made twice as slow. Read here and nowhere else; never set it in use (it is
 * not in the configuration table, and a value that is not a number above 1 changes nothing).
 */

const FACTOR_VARIABLE = "MMS_TEST_SLOW_REVIEW_FACTOR";

/** `review()`, then a wait of (f - 1) times its duration when the test factor f is set. */
export async function slowedForTest<T>(review: () => Promise<T>): Promise<T> {
  const factor = Number(process.env[FACTOR_VARIABLE]);
  if (!(factor > 1)) return review();
  const started = performance.now();
  const result = await review();
  const extra = (factor - 1) * (performance.now() - started);
  await new Promise((resolve) => setTimeout(resolve, extra));
  return result;
}
