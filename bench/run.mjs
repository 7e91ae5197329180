#!/usr/bin/env node
/**
 * `npm run bench`: every benchmark of issue 5 against dist/ (build first), in one process tree:
 * the sandbox and the servers under test are child processes of this one. Prints a markdown
 * table (medians, p95, ratios) and the targets, met or not, on stdout, progress on stderr, and
 * writes both with machine info to bench/results/latest.md.
 *   node bench/run.mjs [section ...]     sections: per-call records cold-start memory context budget-review pagination http oauth tenants scale rate-limit review-pace review-history
 */
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { now } from "./lib/measure.mjs";
import { startSandbox } from "./lib/upstream.mjs";
import budgetReview from "./sections/budget-review.mjs";
import coldStart from "./sections/cold-start.mjs";
import context from "./sections/context.mjs";
import heapGrowth from "./sections/heap-growth.mjs";
import http from "./sections/http.mjs";
import memory from "./sections/memory.mjs";
import oauth from "./sections/oauth.mjs";
import pagination from "./sections/pagination.mjs";
import perCall from "./sections/per-call.mjs";
import rateLimit from "./sections/rate-limit.mjs";
import records from "./sections/records.mjs";
import reviewHistory from "./sections/review-history.mjs";
import reviewPace from "./sections/review-pace.mjs";
import scale from "./sections/scale.mjs";
import tenants from "./sections/tenants.mjs";

const SECTIONS = {
  "per-call": perCall,
  records,
  "cold-start": coldStart,
  memory,
  context,
  // Before pagination, which adds budgets and upstream latency to the shared sandbox.
  "budget-review": budgetReview,
  pagination,
  http,
  oauth,
  tenants,
  // Last: it grows the shared sandbox to 30,000 budgets (and puts the count back after).
  scale,
  // Its own sandbox, playing the platform's limit.
  "rate-limit": rateLimit,
  // Its own sandbox too: reviews through resume at the platform's pace, and the snapshot.
  "review-pace": reviewPace,
  "review-history": reviewHistory,
  // Child processes of its own, no upstream (once test/e2e/heap.test.ts).
  "heap-growth": heapGrowth,
};
const RESULTS = fileURLToPath(new URL("./results/latest.md", import.meta.url));

const fmt = (v, digits = 2) =>
  v === undefined ? "" : Number.isInteger(v) ? v.toLocaleString("en-US") : v.toFixed(digits);

function renderTables(rows, targets) {
  const lines = [
    "| benchmark | series | n | median | p95 | ≈tokens | ratio | note |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ...rows.map(
      (r) =>
        `| ${r.bench} | ${r.series} | ${fmt(r.n)} | ${fmt(r.median)} | ${fmt(r.p95)} | ${fmt(r.tokens)} | ${fmt(r.ratio)} | ${r.note ?? ""} |`,
    ),
    "",
    "| target | figure | goal | met |",
    "| --- | --- | --- | --- |",
    ...targets.map((t) => `| ${t.name} | ${t.figure} | ${t.target} | ${t.met ? "met" : "**not met**"} |`),
  ];
  return lines.join("\n");
}

async function main(selected) {
  const unknown = selected.filter((s) => !(s in SECTIONS));
  if (unknown.length > 0) {
    process.stderr.write(
      `unknown section(s): ${unknown.join(", ")}; known: ${Object.keys(SECTIONS).join(" ")}\n`,
    );
    return 2;
  }
  const names = selected.length > 0 ? selected : Object.keys(SECTIONS);
  const t0 = now();
  const sb = await startSandbox();
  const rows = [];
  const targets = [];
  try {
    for (const name of names) {
      process.stderr.write(`[bench] ${name}...\n`);
      const t = now();
      const out = await SECTIONS[name]({ sb });
      rows.push(...out.rows);
      targets.push(...out.targets);
      process.stderr.write(`[bench] ${name} done in ${((now() - t) / 1000).toFixed(1)} s\n`);
    }
  } finally {
    await sb.close();
  }
  const seconds = (now() - t0) / 1000;
  const table = renderTables(rows, targets);
  process.stdout.write(`${table}\n`);
  const cpu = cpus();
  const info = [
    "# Benchmark results (latest run)",
    "",
    `Produced by \`npm run bench\` (bench/run.mjs) on ${new Date().toISOString()}: Node ${process.version},`,
    `${cpu.length} CPU(s) (${cpu[0]?.model.trim() ?? "unknown"}), ${process.platform}/${process.arch}; run time ${seconds.toFixed(0)} s.`,
    "Times in ms unless the benchmark says otherwise; series run interleaved call by call; ratios are",
    "what to compare (absolute times on these machines are noisy). Result sizes are whole",
    "CallToolResult JSON (structuredContent + content text); tokens ≈ bytes / 4. Sections run: " +
      `${names.join(", ")}. Explanations: docs/quality.md.`,
    "",
  ].join("\n");
  if (names.length === Object.keys(SECTIONS).length) writeFileSync(RESULTS, `${info}\n${table}\n`);
  const missed = targets.filter((t) => !t.met).length;
  process.stderr.write(
    `[bench] ${targets.length - missed} of ${targets.length} targets met, ${seconds.toFixed(0)} s` +
      `${names.length === Object.keys(SECTIONS).length ? `; wrote ${RESULTS}` : " (partial run: results file not written)"}\n`,
  );
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
