/**
 * The regression guard guards (issue 43, interface.md 9c): `bench:check` fails when a review is
 * made twice as slow. Only its review figure runs (`--only review`, few rounds: both measures of it
 * still run), against dist/ with the test-only slowdown MMS_TEST_SLOW_REVIEW_FACTOR=2
 * (src/domain/review/test-slowdown.ts). The figure is a ratio of CPU times to a direct walk of the
 * same pages in the same run, so it holds on a busy machine and on any date.
 */
import { execFile } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

interface CheckRun {
  code: number | null;
  stderr: string;
  json: {
    figures: { review: { ratio: number; ms: [number, number]; rounds: number } };
    failed: string[];
    limits: { review: number };
  };
}

/** `node bench/check.mjs ...args` with `env` added; its exit code, stderr and --json answer. */
function runCheck(args: string[], env: Record<string, string>): Promise<CheckRun> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ["bench/check.mjs", ...args, "--json"],
      { cwd: root, env: { ...process.env, ...env }, maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        done({ code, stderr, json: JSON.parse(stdout.trim().split("\n").at(-1) ?? "null") });
      },
    );
  });
}

describe("bench:check", () => {
  it("fails on the review figure when reviews are made twice as slow", async () => {
    const run = await runCheck(["--only", "review", "--rounds", "6"], { MMS_TEST_SLOW_REVIEW_FACTOR: "2" });

    expect(run.code, run.stderr).toBe(1);
    expect(run.json.failed).toEqual(["review"]);
    expect(run.json.figures.review.ratio).toBeGreaterThan(run.json.limits.review);
    // Both measures ran (the second replaces the first) and each said why.
    expect(run.stderr).toContain("measuring review once more");
    expect(run.stderr).toMatch(/FAILED: review past the limits of docs\/quality\.md/);
  }, 120_000);
});
