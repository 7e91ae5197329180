/**
 * The moved-clock part of CI (issue 40, CONTRIBUTING.md "Clocks in tests"): scripts/dated-tests.mjs
 * picks every test file that names a date, so .ci/run reruns it at a year end, a leap day and a year
 * ahead; and such a file that starts a sandbox gives it the clock it gives the server (the sandbox
 * seeds its budgets relative to its clock), or says here why its sandbox needs none.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const dated = execFileSync(process.execPath, ["scripts/dated-tests.mjs"], { encoding: "utf8" })
  .trim()
  .split("\n");

/** Files that name a date and start a sandbox with no clock, and why that is right. */
const NO_SANDBOX_CLOCK: Record<string, string> = {
  "test/sandbox/state-cli.test.ts": "its dated sandboxes are given the clock; the others load state files",
  "test/client/rate-budget-redis.test.ts":
    "its dates are the request budget's own clock; the sandbox only plays the rate limit, in real time",
};

/** Each sandbox start in `text` (useSandbox(...) or startSandbox(...)), to its closing parenthesis. */
function sandboxStarts(text: string): string[] {
  const starts: string[] = [];
  for (const m of text.matchAll(/\b(?:useSandbox|startSandbox)\(/g)) {
    let depth = 0;
    let end = m.index;
    for (; end < text.length; end++) {
      if (text[end] === "(") depth++;
      if (text[end] === ")" && --depth === 0) break;
    }
    starts.push(text.slice(m.index, end + 1));
  }
  return starts;
}

describe("tests that name a date", () => {
  it("are picked for the moved-clock runs, protocol versions aside", () => {
    expect(dated).toEqual(
      expect.arrayContaining([
        "test/protocol/tasks.test.ts",
        "test/tools/review-history.test.ts",
        "test/tools/review-budgets-prompt.test.ts",
        "test/tools/list-dags.test.ts",
        "test/tools/query-budgets-calendar.test.ts",
        "test/unit/calendar.test.ts",
      ]),
    );
    // Names only MCP protocol versions ("2025-11-25"), which are no dates.
    expect(dated).not.toContain("test/e2e/eras.test.ts");
    // Say their dates meet no clock, and why (`// dated-tests: skip (...)`).
    expect(dated).not.toContain("test/quality/fuzz.test.ts");
    expect(dated).not.toContain("test/sandbox/state-store.test.ts");
    expect(dated.every((f) => f.startsWith("test/") && !f.startsWith("test/ui/"))).toBe(true);
  });

  it("give every sandbox they start a clock, or say why it needs none", () => {
    const unclocked = dated.filter((file) => {
      const starts = sandboxStarts(readFileSync(file, "utf8"));
      return starts.some((call) => !/\bclock\b/.test(call));
    });
    expect(unclocked.sort()).toEqual(Object.keys(NO_SANDBOX_CLOCK).sort());
  });
});
