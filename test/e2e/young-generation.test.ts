/**
 * src/young-generation.ts on the Node running the tests (CI runs test/e2e on Node 20 and 22): the
 * young generation stays at its starting size under an allocation pattern that grows it to the
 * maximum by default, and a user's own node flag is left alone.
 */
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { userSizedYoungGeneration } from "../../src/young-generation.js";

const MODULE = pathToFileURL("dist/src/young-generation.js").href;

// Objects that survive a scavenge or two: the pattern that makes V8 grow the young generation.
const CHURN = `
(await import(${JSON.stringify(MODULE)})).holdYoungGeneration();
const { getHeapSpaceStatistics } = await import("node:v8");
let keep = [];
for (let i = 0; i < 2e6; i++) { keep.push({ i, s: "x" + i }); if (keep.length > 20000) keep = []; }
const space = getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
process.stdout.write(String(space.space_size / 1048576));
`;

function youngGenerationMiB(nodeFlags: string[]): number {
  const run = spawnSync(process.execPath, [...nodeFlags, "--input-type=module", "-e", CHURN], {
    encoding: "utf8",
  });
  expect(run.stderr).toBe("");
  return Number(run.stdout);
}

describe("young generation", () => {
  it("stays at its starting size (a few MiB) where V8 would grow it", () => {
    expect(youngGenerationMiB([])).toBeLessThanOrEqual(4);
  });

  it("keeps a size the user chose with a node flag", () => {
    expect(youngGenerationMiB(["--max-semi-space-size=16"])).toBeGreaterThan(8);
  });

  it("recognises the user's own settings on the command line and in NODE_OPTIONS", () => {
    expect(userSizedYoungGeneration([], undefined)).toBe(false);
    expect(userSizedYoungGeneration(["--enable-source-maps"], "--max-old-space-size=512")).toBe(false);
    expect(userSizedYoungGeneration(["--max-semi-space-size=4"], undefined)).toBe(true);
    expect(userSizedYoungGeneration(["--semi-space-growth-factor=2"], undefined)).toBe(true);
    expect(userSizedYoungGeneration([], "--min-semi-space-size=2 --max-old-space-size=512")).toBe(true);
  });
});
