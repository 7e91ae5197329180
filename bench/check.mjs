#!/usr/bin/env node
/**
 * `npm run bench:check`: the regression guard CI runs after `npm test` (issues 33 and 43), against
 * dist/ as built (build first). Under a minute, side by side in one run (every series interleaved
 * with its floor, medians), it measures what a user feels first, what every call costs, a review, its
 * history step and the HTTP edge, and fails past the limits of docs/quality.md ("Regression check"):
 *   cold start (spawn → `tools/list` answered)   <= 1.25 x the bare v2 SDK server
 *   spawn → first tool result                     <= 1.4 x the bare v2 SDK server
 *   per call (list_warehouse_groups_1)            <= 1.3 x the relay floor (same request, no work of ours)
 *   peak RSS (VmHWM) after the calls              <= 1.3 x the relay floor
 *   `tools/list` (JSON of the result)             <= 11,500 bytes
 *   review (query_budgets group_by, 2,000 budgets) <= 4.0 x a direct walk of the same pages, CPU time
 *   history step (compare_to "previous")          <= 1.45 x the same review without history, CPU time
 *   HTTP edge at 32 clients (calls/s)             >= 0.8 x the relay floor over HTTP, no failed call
 * Timing ratios are noisy on a busy machine: a group with a timing figure past its limit is measured
 * once more (fresh processes, the start with twice the spawns), and that measure REPLACES the first
 * (pooling would dilute a real regression); it fails only when past the limit again.
 *   node bench/check.mjs [--only start,calls,review,history,http] [--rounds N] [--json]
 * --only runs some groups; --rounds sets the review and history rounds (default 8); --json prints the
 * figures and the failed names as JSON on stdout. Figures and the load average go to stderr. Exit 0
 * within every limit, 1 past one, 2 when dist/ is missing or an option is unknown, 3 when a
 * measure broke (an error, not a figure).
 * MMS_TEST_SLOW_REVIEW_FACTOR (test only, see src/domain/review/test-slowdown.ts) is passed on to the
 * review servers: the guard's own test makes reviews twice as slow and expects exit 1.
 */
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { HTTP_CLIENTS, httpFigure } from "./check/http.mjs";
import { historyFigure, REVIEW_BUDGETS, reviewFigure } from "./check/review.mjs";
import { interleave, median } from "./lib/measure.mjs";
import {
  callOk,
  childEnv,
  connectRelay,
  connectStdio,
  FLOOR_V2_BIN,
  OURS_BIN,
  peakRssMiB,
  rssMiB,
} from "./lib/servers.mjs";
import { startSandbox } from "./lib/upstream.mjs";
import { coldStart } from "./sections/cold-start.mjs";

/** The limits of docs/quality.md, "Regression check": ceilings, except `http`, a floor. */
const LIMITS = Object.freeze({
  cold: 1.25,
  first: 1.4,
  perCall: 1.3,
  rss: 1.3,
  listBytes: 11_500,
  review: 4.0,
  history: 1.45,
  http: 0.8,
});

const COLD_ROUNDS = 12;
const CALL_ROUNDS = 300;
const CALL_WARMUP = 30;
const REVIEW_ROUNDS = 8;
const TOOL = "list_warehouse_groups_1";
const PAGE = 100;
const SLOW_REVIEW = "MMS_TEST_SLOW_REVIEW_FACTOR";

const bytes = (value) => Buffer.byteLength(JSON.stringify(value));

/** Spawn → tools/list and spawn → first result, ours against the v2 floor: median ratios over `rounds` interleaved spawns. */
async function startFigures(sb, rounds) {
  const first = { ours: [], floor: [] };
  const oursEnv = childEnv(sb.env());
  const cold = await interleave(
    {
      ours: () => coldStart(OURS_BIN, oursEnv, TOOL, first.ours),
      floor: () => coldStart(FLOOR_V2_BIN, childEnv(), "constant", first.floor),
    },
    { rounds, warmup: 1 },
  );
  const figure = ({ ours, floor }) => ({
    ratio: median(ours) / median(floor),
    ms: [median(ours), median(floor)],
    spawns: ours.length,
  });
  // The warm-up round's first results are not counted, like its tools/list times.
  const firsts = { ours: first.ours.slice(-rounds), floor: first.floor.slice(-rounds) };
  return { cold: figure(cold), first: figure(firsts) };
}

/** Per-call time against the relay floor, peak RSS against the v2 floor, and the tools/list bytes. */
async function callFigures(sb) {
  const ours = await connectStdio(OURS_BIN, childEnv(sb.env()));
  const floor = await connectStdio(FLOOR_V2_BIN);
  let relay;
  try {
    const listBytes = bytes(await ours.client.listTools());
    relay = await connectRelay(sb, ours, {
      page: {
        tool: TOOL,
        args: { limit: PAGE },
        path: "/warehouses_groups_1",
        query: { start: 0, limit: PAGE },
      },
    });
    const calls = await interleave(
      {
        ours: () => callOk(ours.client, TOOL, { limit: PAGE }),
        relay: () => callOk(relay.client, "relay", { key: "page" }),
        floor: () => callOk(floor.client, "constant"),
      },
      { rounds: CALL_ROUNDS, warmup: CALL_WARMUP },
    );
    // Peak against the relay floor: carrying this answer (undici, JSON) costs any server a transient
    // of 30-40 MiB in its first calls, which the bare floor, answering a constant, never pays.
    const rss = [peakRssMiB(ours.pid), peakRssMiB(relay.pid)];
    return {
      perCall: {
        ratio: median(calls.ours) / median(calls.relay),
        ms: [median(calls.ours), median(calls.relay)],
      },
      rss: { ratio: rss[0] / rss[1], mib: rss, now: [rssMiB(ours.pid), rssMiB(floor.pid)] },
      listBytes,
    };
  } finally {
    await ours.close();
    await floor.close();
    await relay?.close();
  }
}

/** `measure` with company 1 holding the review's budgets, the count put back after. */
async function withReviewBudgets(sb, measure) {
  const before = await sb.addBudgets(0);
  await sb.setBudgets(REVIEW_BUDGETS);
  try {
    return await measure();
  } finally {
    await sb.setBudgets(before);
  }
}

/**
 * The groups of figures: each measured together; `again` is true for a second measure. The
 * review servers get the test's slowdown when it is set (childEnv passes no MMS_* on its own).
 */
function groupsOf(options) {
  const env = process.env[SLOW_REVIEW] === undefined ? {} : { [SLOW_REVIEW]: process.env[SLOW_REVIEW] };
  const rounds = options.rounds;
  return {
    start: {
      figures: ["cold", "first"],
      measure: (sb, again) => startFigures(sb, again ? 2 * COLD_ROUNDS : COLD_ROUNDS),
    },
    calls: { figures: ["perCall", "rss", "listBytes"], measure: (sb) => callFigures(sb) },
    http: { figures: ["http"], measure: async (sb) => ({ http: await httpFigure(sb) }) },
    review: {
      figures: ["review"],
      measure: (sb) =>
        withReviewBudgets(sb, async () => ({ review: await reviewFigure(sb, { rounds, env }) })),
    },
    history: {
      figures: ["history"],
      measure: (sb) =>
        withReviewBudgets(sb, async () => ({ history: await historyFigure(sb, { rounds, env }) })),
    },
  };
}

/** The figures past their limits, by name; `httpErrors` (failed calls) is not a timing figure. */
function failures(figures) {
  const failed = [];
  for (const k of ["cold", "first", "perCall", "rss", "review", "history"])
    if (figures[k] !== undefined && figures[k].ratio > LIMITS[k]) failed.push(k);
  if (figures.listBytes !== undefined && figures.listBytes > LIMITS.listBytes) failed.push("listBytes");
  if (figures.http !== undefined && figures.http.ratio < LIMITS.http) failed.push("http");
  if (figures.http !== undefined && figures.http.errors > 0) failed.push("httpErrors");
  return failed;
}

/** The report lines of the figures measured. */
function lines(figures) {
  const f = (x) => x.toFixed(2);
  const ms = (pair, digits = 1) => `${pair[0].toFixed(digits)} vs ${pair[1].toFixed(digits)} ms`;
  const out = [];
  const { cold, first, perCall, rss, listBytes, review, history, http } = figures;
  if (cold) {
    out.push(
      `  cold start (spawn → tools/list): ${f(cold.ratio)} x the v2 floor (${ms(cold.ms)}, medians of ${cold.spawns} spawns), limit ${LIMITS.cold}`,
    );
    out.push(
      `  spawn → first result:            ${f(first.ratio)} x the v2 floor (${ms(first.ms)}), limit ${LIMITS.first}`,
    );
  }
  if (perCall) {
    out.push(
      `  per call:                        ${f(perCall.ratio)} x the relay floor (${ms(perCall.ms, 2)}), limit ${LIMITS.perCall}`,
    );
    out.push(
      `  peak RSS:                        ${f(rss.ratio)} x the relay floor (${rss.mib.map((x) => x.toFixed(1)).join(" vs ")} MiB), limit ${LIMITS.rss}; RSS now ${f(rss.now[0] / rss.now[1])} x the v2 floor (${rss.now.map((x) => x.toFixed(1)).join(" vs ")} MiB)`,
    );
    out.push(
      `  tools/list:                      ${listBytes.toLocaleString("en-US")} bytes, limit ${LIMITS.listBytes.toLocaleString("en-US")}`,
    );
  }
  if (review)
    out.push(
      `  review of ${REVIEW_BUDGETS.toLocaleString("en-US")} budgets:        ${f(review.ratio)} x a direct walk of its pages in CPU time (${ms(review.cpuMs, 0)} a round over ${review.rounds}; fastest wall ${ms(review.ms, 0)}), limit ${LIMITS.review}`,
    );
  if (history)
    out.push(
      `  history step (compare_to):       ${f(history.ratio)} x the review without history in CPU time (${ms(history.cpuMs, 0)} a round over ${history.rounds}; fastest wall ${ms(history.ms, 0)}), limit ${LIMITS.history}`,
    );
  if (http)
    out.push(
      `  HTTP edge, ${HTTP_CLIENTS} clients:            ${f(http.ratio)} x the relay floor over HTTP (${http.perSecond.map((x) => x.toFixed(0)).join(" vs ")} calls/s), limit >= ${LIMITS.http}; ${http.errors} failed calls (limit 0)`,
    );
  return out;
}

function report(figures, label) {
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  process.stderr.write(`[bench:check] ${label} (load average ${load})\n${lines(figures).join("\n")}\n`);
}

/** The options, or a message naming the bad one. */
function optionsOf(argv) {
  const { values } = parseArgs({
    args: argv,
    options: { only: { type: "string" }, rounds: { type: "string" }, json: { type: "boolean" } },
  });
  const names = ["start", "calls", "http", "review", "history"];
  const only = values.only === undefined ? names : values.only.split(",").map((s) => s.trim());
  const unknown = only.filter((g) => !names.includes(g));
  if (unknown.length > 0)
    throw new Error(`unknown group(s) ${unknown.join(", ")}; known: ${names.join(", ")}`);
  const rounds = Number(values.rounds ?? REVIEW_ROUNDS);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error(`--rounds must be a whole number >= 1, not ${values.rounds}`);
  return { only, rounds, json: values.json === true };
}

/** `measure()`, its duration said on stderr (the whole check is to stay under a minute on a quiet machine). */
async function timed(name, measure) {
  const started = performance.now();
  const figures = await measure();
  process.stderr.write(`[bench:check] ${name}: ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return figures;
}

/** Measure the selected groups; measure again, replacing, the groups with a timing figure past its limit. */
async function measureAll(sb, options) {
  const groups = groupsOf(options);
  const figures = {};
  for (const name of options.only)
    Object.assign(figures, await timed(name, () => groups[name].measure(sb, false)));
  report(figures, "first measure");
  const failed = failures(figures);
  const again = options.only.filter((g) =>
    groups[g].figures.some((k) => failed.includes(k) && k !== "listBytes"),
  );
  if (again.length > 0) {
    process.stderr.write(
      `[bench:check] past the limit: ${failed.join(", ")}; measuring ${again.join(" and ")} once more\n`,
    );
    const errorsBefore = figures.http?.errors ?? 0;
    for (const name of again) Object.assign(figures, await timed(name, () => groups[name].measure(sb, true)));
    // Failed calls are not noise: those of the first measure still count.
    if (figures.http !== undefined) figures.http.errors += again.includes("http") ? errorsBefore : 0;
    report(figures, "second measure");
  }
  return { figures, failed: failures(figures) };
}

async function main(argv) {
  let options;
  try {
    options = optionsOf(argv);
  } catch (error) {
    process.stderr.write(`[bench:check] ${error.message}\n`);
    return 2;
  }
  if (!existsSync(OURS_BIN)) {
    process.stderr.write(`[bench:check] ${OURS_BIN} is missing: npm run build first\n`);
    return 2;
  }
  const sb = await startSandbox();
  try {
    const { figures, failed } = await measureAll(sb, options);
    if (options.json) process.stdout.write(`${JSON.stringify({ figures, failed, limits: LIMITS })}\n`);
    if (failed.length > 0) {
      process.stderr.write(`[bench:check] FAILED: ${failed.join(", ")} past the limits of docs/quality.md\n`);
      return 1;
    }
    process.stderr.write("[bench:check] every figure within its limit\n");
    return 0;
  } finally {
    await sb.close();
  }
}

process.exitCode = await main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(`[bench:check] a measure broke: ${error.stack ?? error}\n`);
  return 3;
});
