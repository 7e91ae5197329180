/**
 * src/main/heap.ts on the Node running the tests (CI runs test/e2e on Node 20 and 22), in child
 * processes under allocation patterns that make V8's defaults grow the heap: the young generation
 * stays at its starting size, the old generation grows far less, and a user's own node flags are
 * left alone.
 */
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { servesOneClient, userSetHeapGrowth, userSizedYoungGeneration } from "../../src/main/heap.js";

const MODULE = JSON.stringify(pathToFileURL("dist/src/main/heap.js").href);

/** Run `body` after `setup` in a child node with `flags`; it prints one number. */
function measure(setup: string, body: string, flags: string[] = []): number {
  const script = `const { getHeapSpaceStatistics, setFlagsFromString } = await import("node:v8");
const heap = await import(${MODULE});
const space = (name) => getHeapSpaceStatistics().find((s) => s.space_name === name).space_size / 1048576;
${setup}
${body}`;
  const run = spawnSync(process.execPath, [...flags, "--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  expect(run.stderr).toBe("");
  return Number(run.stdout);
}

// Objects that survive a scavenge or two, then die: what makes V8 grow the young generation.
const YOUNG_CHURN = `let keep = [];
for (let i = 0; i < 2e6; i++) { keep.push({ i, s: "x" + i }); if (keep.length > 20000) keep = []; }
process.stdout.write(String(space("new_space")));`;
// Objects promoted to the old generation, then dropped: what makes V8 grow the old generation.
const OLD_CHURN = `const ring = new Array(200_000); let max = 0;
for (let i = 0; i < 3e6; i++) { ring[i % ring.length] = { i, s: "x" + i }; if (i % 50_000 === 0) max = Math.max(max, space("old_space")); }
process.stdout.write(String(max));`;

describe("heap settings", () => {
  it("keep the young generation at its starting size (a few MiB) where V8 would grow it", () => {
    expect(measure("heap.keepHeapSmall();", YOUNG_CHURN)).toBeLessThanOrEqual(4);
  });

  it("keep a young-generation size the user chose with a node flag", () => {
    expect(measure("heap.keepHeapSmall();", YOUNG_CHURN, ["--max-semi-space-size=16"])).toBeGreaterThan(8);
  });

  it("let the old generation grow far less than V8's default growth would", () => {
    // Both with the young generation held, which promotes more: the case the old-generation setting is for.
    const untuned = measure('setFlagsFromString("--semi-space-growth-factor=1");', OLD_CHURN);
    const tuned = measure("heap.keepHeapSmall();", OLD_CHURN);
    expect(tuned).toBeLessThan(untuned * 0.75);
  });

  it("apply to stdio serving only (HTTP keeps V8's defaults for throughput)", () => {
    expect(servesOneClient([])).toBe(true);
    expect(servesOneClient(["--sandbox", "--read-only"])).toBe(true);
    expect(servesOneClient(["--sandbox", "--http", "--port", "0"])).toBe(false);
    expect(servesOneClient(["sandbox", "--port", "4000"])).toBe(false);
  });

  it("recognise the user's own settings on the command line and in NODE_OPTIONS", () => {
    expect(userSizedYoungGeneration([], undefined)).toBe(false);
    expect(userSizedYoungGeneration(["--enable-source-maps"], "--max-old-space-size=512")).toBe(false);
    expect(userSizedYoungGeneration(["--max-semi-space-size=4"], undefined)).toBe(true);
    expect(userSizedYoungGeneration(["--semi-space-growth-factor=2"], undefined)).toBe(true);
    expect(userSizedYoungGeneration([], "--min-semi-space-size=2 --max-old-space-size=512")).toBe(true);
    expect(userSetHeapGrowth(["--max-old-space-size=512"], undefined)).toBe(false);
    expect(userSetHeapGrowth(["--heap-growing-percent=100"], undefined)).toBe(true);
  });
});
