/**
 * 8. A review that scales (issue 21): one `query_budgets` call with group_by (month and currency)
 * over a year of 1,000, 10,000 and 30,000 budgets (the sandbox's seed cloned and spread over the
 * year, bench/sandbox-child.mjs `setBudgets`) at 20 ms upstream latency, against a direct
 * concurrent walk of the same pages with undici (same page size and concurrency, JSON.parse only).
 * Each size gets a fresh server, so its peak RSS (VmHWM) is that size's. Both count the same
 * budgets. Targets: at 30,000, ours <= 1.25 x the direct walk; the server's peak RSS at 30,000
 * <= 1.15 x its peak at 1,000 (it aggregates each page as it arrives and keeps no record).
 */
import { readFileSync } from "node:fs";
import { interleave, summarize } from "../lib/measure.mjs";
import { callOk, childEnv, connectStdio, OURS_BIN } from "../lib/servers.mjs";
import { directClient } from "../lib/upstream.mjs";

const SIZES = [
  [1_000, 9],
  [10_000, 5],
  [30_000, 3],
];
const LATENCY_MS = 20;
const PAGE = 100;
const CONCURRENCY = 10; // src/domain/paging.ts DEFAULT_CONCURRENCY
const YEAR = 366 * 86_400_000;
const SEED_BUDGETS = 260;

/** Peak and current resident set size of a process in MiB (VmHWM, VmRSS). */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1]) / 1024;
  return { peak: kb("VmHWM"), now: kb("VmRSS") };
}

const iso = (ms) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

export default async function scale({ sb }) {
  const get = await directClient(sb);
  const rows = [];
  const figures = {};
  // addBudgets(0) adds nothing and returns the count, put back at the end for any later section.
  const before = await sb.addBudgets(0);
  await sb.setBudgets(SEED_BUDGETS);
  await sb.latency(LATENCY_MS, "/api/wo_budget");
  try {
    for (const [size, rounds] of SIZES) {
      await sb.setBudgets(size);
      const until = iso(Date.now());
      const since = iso(Date.now() - YEAR);
      // No review snapshot: each round walks the pages (with one, every round after the first read the
      // snapshot, and ours read 0.03 x the direct walk at 30,000).
      const ours = await connectStdio(OURS_BIN, childEnv({ ...sb.env(), MMS_REVIEW_CACHE_SECONDS: "0" }));
      const counts = { ours: [], direct: [] };
      try {
        await ours.client.listTools();
        const atStart = memory(ours.pid);
        const samples = await interleave(
          {
            ours: async () => {
              const r = await callOk(ours.client, "query_budgets", {
                since,
                until,
                group_by: ["month", "currency"],
                max_records: 100_000,
              });
              const sc = r.structuredContent;
              if (!sc.complete) throw new Error(`review of ${size} not complete: ${r.content[0].text}`);
              counts.ours.push(sc.review.scanned);
            },
            direct: async () => {
              const query = { since, until, limit: PAGE };
              const first = await get("/wo_budget", { ...query, start: 0 });
              let read = first.data.length;
              const offsets = [];
              for (let at = PAGE; at < first.total; at += PAGE) offsets.push(at);
              let next = 0;
              const worker = async () => {
                while (next < offsets.length) {
                  const page = await get("/wo_budget", { ...query, start: offsets[next++] });
                  read += page.data.length;
                }
              };
              await Promise.all(Array.from({ length: Math.min(CONCURRENCY, offsets.length) }, worker));
              counts.direct.push(read);
            },
          },
          { rounds, warmup: 1, label: `scale ${size}` },
        );
        const mem = memory(ours.pid);
        const s = { ours: summarize(samples.ours), direct: summarize(samples.direct) };
        const same = [...counts.ours, ...counts.direct].every((n) => n === size);
        figures[size] = { ratio: s.ours.median / s.direct.median, peak: mem.peak, same };
        const bench = `8. scale: group_by review of ${size.toLocaleString("en-US")} budgets / year, +${LATENCY_MS} ms (ms)`;
        rows.push(
          {
            bench,
            series: "ours: one query_budgets call, group_by month + currency",
            ...s.ours,
            ratio: figures[size].ratio,
            note: `ratio = ours / direct; server peak RSS ${mem.peak.toFixed(1)} MiB (at start ${atStart.now.toFixed(1)}, after ${mem.now.toFixed(1)})`,
          },
          {
            bench,
            series: `direct: undici walk of the same ${Math.ceil(size / PAGE)} pages, ${CONCURRENCY} in flight, JSON.parse only`,
            ...s.direct,
            note: same ? `both read ${size.toLocaleString("en-US")} budgets every run` : "COUNTS DIFFER",
          },
        );
      } finally {
        await ours.close();
      }
    }
  } finally {
    await sb.latency(0, "/api/wo_budget");
    await sb.setBudgets(before);
  }
  const small = figures[SIZES[0][0]];
  const large = figures[SIZES.at(-1)[0]];
  const growth = large.peak / small.peak;
  return {
    rows,
    targets: [
      {
        name: "8. scale: group_by review of 30,000 budgets / direct concurrent walk",
        figure: `${large.ratio.toFixed(2)} (10,000: ${figures[10_000].ratio.toFixed(2)}; 1,000: ${small.ratio.toFixed(2)})`,
        target: "<= 1.25 (about as long)",
        met: large.ratio <= 1.25,
      },
      {
        name: "8. scale: server peak RSS, 30,000 vs 1,000 budgets",
        figure: `${large.peak.toFixed(1)} vs ${small.peak.toFixed(1)} MiB (${growth.toFixed(2)} x; 10,000: ${figures[10_000].peak.toFixed(1)})`,
        target: "<= 1.15 x (flat)",
        met: growth <= 1.15,
      },
      {
        name: "8. scale: same budgets read by both",
        figure: Object.values(figures).every((f) => f.same) ? "yes, every run" : "NO",
        target: "identical",
        met: Object.values(figures).every((f) => f.same),
      },
    ],
  };
}
