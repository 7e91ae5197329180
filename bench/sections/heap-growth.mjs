/**
 * Heap growth under src/main/heap.ts's settings (dist/src/main/heap.js), in child processes on the
 * Node running the bench, under allocation patterns that make V8's defaults grow the heap. Once
 * test/e2e/heap.test.ts: a figure that moves with the machine's load, so a measurement, not a test.
 * Targets: the young generation stays at its starting size (<= 4 MiB) where V8 would grow it; a
 * user's --max-semi-space-size=16 is kept (> 8 MiB); the old generation's peak grows < 0.75 x
 * V8's default growth (both with the young generation held, which promotes more).
 *   node bench/sections/heap-growth.mjs     (alone; or as a section of bench/run.mjs)
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

const MODULE = JSON.stringify(
  pathToFileURL(fileURLToPath(new URL("../../dist/src/main/heap.js", import.meta.url))).href,
);

/** Run `body` after `setup` in a child node with `flags`; it prints one number (MiB). */
function measure(setup, body, flags = []) {
  const script = `const { getHeapSpaceStatistics, setFlagsFromString } = await import("node:v8");
const heap = await import(${MODULE});
const space = (name) => getHeapSpaceStatistics().find((s) => s.space_name === name).space_size / 1048576;
${setup}
${body}`;
  const run = spawnSync(process.execPath, [...flags, "--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  if (run.status !== 0 || run.stderr) throw new Error(`heap-growth child failed: ${run.stderr}`);
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

export default async function heapGrowth() {
  const young = {
    v8: measure("", YOUNG_CHURN),
    ours: measure("heap.keepHeapSmall();", YOUNG_CHURN),
    user: measure("heap.keepHeapSmall();", YOUNG_CHURN, ["--max-semi-space-size=16"]),
  };
  const old = {
    untuned: measure('setFlagsFromString("--semi-space-growth-factor=1");', OLD_CHURN),
    tuned: measure("heap.keepHeapSmall();", OLD_CHURN),
  };
  const bench = "heap growth (MiB)";
  const ratio = old.tuned / old.untuned;
  return {
    rows: [
      { bench, series: "young generation, V8 defaults", median: young.v8 },
      { bench, series: "young generation, keepHeapSmall()", median: young.ours },
      { bench, series: "young generation, keepHeapSmall() + --max-semi-space-size=16", median: young.user },
      { bench, series: "old generation peak, young held (V8 growth)", median: old.untuned },
      { bench, series: "old generation peak, keepHeapSmall()", median: old.tuned, ratio },
    ],
    targets: [
      {
        name: "heap: young generation held",
        figure: `${young.ours.toFixed(1)} MiB`,
        target: "<= 4 MiB",
        met: young.ours <= 4,
      },
      {
        name: "heap: a user's semi-space size kept",
        figure: `${young.user.toFixed(1)} MiB`,
        target: "> 8 MiB",
        met: young.user > 8,
      },
      {
        name: "heap: old generation growth / V8's",
        figure: ratio.toFixed(2),
        target: "< 0.75",
        met: ratio < 0.75,
      },
    ],
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { rows, targets } = await heapGrowth();
  for (const r of rows)
    console.log(`${r.series}: ${r.median.toFixed(2)}${r.ratio ? ` (ratio ${r.ratio.toFixed(2)})` : ""}`);
  for (const t of targets) console.log(`${t.met ? "met" : "NOT MET"}: ${t.name}: ${t.figure} (${t.target})`);
  process.exitCode = targets.every((t) => t.met) ? 0 : 1;
}
