#!/usr/bin/env node
/**
 * The test files that name a date of their own (issue 40), one path a line: the part of the suite
 * .ci/run runs again with the machine's clock moved (libfaketime). Only a test that names a date can
 * disagree with the machine's clock (a fixed server clock beside a sandbox seeded on the real date
 * was main's red of 2026-12-07); a test on the machine's clock alone moves with it. Picked from each
 * file's text, so a new test that names a date is never left out. MCP protocol versions
 * ("2025-11-25") are not dates. A file whose dates never meet a clock says so and why, in a line
 * `// dated-tests: skip (its dates are invalid arguments)`, and is left out (it saves the loop time).
 * test/unit/dated-tests.test.ts checks the pick and the one-clock rule.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The browser tests have their own run (vitest.browser.config.ts) and their own fixed page clock. */
const SKIP = new Set(["node_modules", "ui", "fixtures"]);
const PROTOCOL_VERSIONS = /20(?:24-11-05|25-03-26|25-06-18|25-11-25|26-07-28)/g;
const A_DATE = /["'`]\d{4}-\d{2}-\d{2}|Date\.UTC\(\d{4}/;
const SKIP_MARK = /^\/\/ dated-tests: skip \(.+\)$/m;

/** Every *.test.ts under test/ (browser tests aside), relative to the repository, sorted. */
export function testFiles(dir = join(ROOT, "test")) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      if (e.isDirectory()) return SKIP.has(e.name) ? [] : testFiles(join(dir, e.name));
      return e.name.endsWith(".test.ts") ? [relative(ROOT, join(dir, e.name))] : [];
    })
    .sort();
}

/** Whether a test file's text names a date of its own, and does not say its dates meet no clock. */
export const namesADate = (text) => A_DATE.test(text.replace(PROTOCOL_VERSIONS, "")) && !SKIP_MARK.test(text);

/** The test files that name a date. */
export const datedTests = () =>
  testFiles().filter((file) => namesADate(readFileSync(join(ROOT, file), "utf8")));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`${datedTests().join("\n")}\n`);
}
