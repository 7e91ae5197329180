/**
 * bench:check's review figures (interface.md 9c), each server answering from a fresh walk (no review
 * snapshot: MMS_REVIEW_CACHE_SECONDS=0), over REVIEW_BUDGETS budgets spread over the last year:
 *   review:  one `query_budgets` call with group_by month + currency (history off), against a direct
 *            concurrent walk of the same pages (undici, 10 in flight, JSON.parse only);
 *   history: the same review with `compare_to: "previous"` (read the stored review, compare, store
 *            this one) against the review without history, two servers side by side.
 * Written against the tool's interface only (`compare_to`, `changes`, `review.scanned`), so that it
 * holds whatever stores the history.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { interleave } from "../lib/measure.mjs";
import { callOk, childEnv, connectStdio, cpuMs, OURS_BIN } from "../lib/servers.mjs";
import { directClient } from "../lib/upstream.mjs";

export const REVIEW_BUDGETS = 2_000;
const PAGE = 100;
const CONCURRENCY = 10; // src/domain/paging.ts DEFAULT_CONCURRENCY
const DAY = 86_400_000;
const iso = (ms) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/**
 * The window: two years back to a day ahead, wider than the budgets' spread (a year and the seed's
 * ~90 days), so that every budget is in it on any date; both sides read the same pages whatever it holds.
 */
function reviewArgs() {
  const now = Date.now();
  return {
    since: iso(now - 2 * 366 * DAY),
    until: iso(now + DAY),
    group_by: ["month", "currency"],
    max_records: 100_000,
  };
}

/**
 * What the figures compare: CPU time, each series' own (ours: the server process, /proc; the direct
 * walk: this process, during the walk), summed over the rounds. The sandbox's work, the same for both,
 * is left out. Wall time on the shared 2-core box (load 10-16) was no guard: a process waits its turn
 * for a core at each of the walk's round trips, and the ratio of the same build moved from 0.7 to 1.8
 * between runs (medians, per-round ratios or fastest rounds alike), so a review twice as slow could
 * read 1.4. Wall times are reported beside (fastest rounds). A review that waited more without
 * working more (fewer pages in flight) is the HTTP and pace figures' to see, not this one's.
 */
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const fastest = (samples) => Math.min(...samples);
const cpuSince = (start) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/** Run `call` timed: its wall time into `wall`, and the CPU time `cpu()` counts during it, returned. */
async function timedCpu(cpu, wall, call) {
  const c0 = cpu();
  const t0 = performance.now();
  await call();
  wall.push(performance.now() - t0);
  return cpu() - c0;
}

/** A server of ours for reviews: no snapshot, `extra` env (history, the test's slowdown). */
function reviewServer(sb, extra) {
  return connectStdio(OURS_BIN, childEnv({ ...sb.env(), MMS_REVIEW_CACHE_SECONDS: "0", ...extra }));
}

/** One review call; throws unless complete over every budget. */
async function review(server, args) {
  const r = await callOk(server.client, "query_budgets", args);
  const sc = r.structuredContent;
  if (sc.complete !== true || sc.review?.scanned !== REVIEW_BUDGETS)
    throw new Error(`review not complete over ${REVIEW_BUDGETS} budgets: ${r.content[0].text.slice(0, 300)}`);
  return sc;
}

/** The direct walk of the review's pages: the first, then the rest CONCURRENCY at a time; throws unless it read every budget. */
async function directWalk(get, args) {
  const query = { since: args.since, until: args.until, limit: PAGE };
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
  if (read !== REVIEW_BUDGETS) throw new Error(`direct walk read ${read} budgets, not ${REVIEW_BUDGETS}`);
}

/** ours / direct walk in CPU time over `rounds` interleaved (one warm-up). `env`: more for ours (the test's slowdown). */
export async function reviewFigure(sb, { rounds = 8, env = {} } = {}) {
  const args = reviewArgs();
  const ours = await reviewServer(sb, { MMS_REVIEW_HISTORY_DAYS: "0", ...env });
  try {
    const get = await directClient(sb);
    const wall = { ours: [], direct: [] };
    const here = process.cpuUsage();
    const samples = await interleave(
      {
        ours: () =>
          timedCpu(
            () => cpuMs(ours.pid),
            wall.ours,
            () => review(ours, args),
          ),
        direct: () =>
          timedCpu(
            () => cpuSince(here),
            wall.direct,
            () => directWalk(get, args),
          ),
      },
      { rounds, warmup: 1 },
    );
    return {
      ratio: sum(samples.ours) / sum(samples.direct),
      cpuMs: [sum(samples.ours) / rounds, sum(samples.direct) / rounds],
      ms: [fastest(wall.ours.slice(1)), fastest(wall.direct.slice(1))],
      rounds,
    };
  } finally {
    await ours.close();
  }
}

/** compare call / review without history in CPU time over `rounds` interleaved (one warm-up: the first stored review). */
export async function historyFigure(sb, { rounds = 8, env = {} } = {}) {
  const args = reviewArgs();
  const dir = mkdtempSync(join(tmpdir(), "mms-check-history-"));
  const off = await reviewServer(sb, { MMS_REVIEW_HISTORY_DAYS: "0", ...env });
  const on = await reviewServer(sb, { MMS_STATE_DIR: dir, ...env }).catch(async (error) => {
    await off.close();
    throw error;
  });
  let compared = 0;
  const wall = { off: [], compare: [] };
  try {
    const samples = await interleave(
      {
        off: () =>
          timedCpu(
            () => cpuMs(off.pid),
            wall.off,
            () => review(off, args),
          ),
        compare: () =>
          timedCpu(
            () => cpuMs(on.pid),
            wall.compare,
            async () => {
              const sc = await review(on, { ...args, compare_to: "previous" });
              // The warm-up's call stores the first review: every later one has one to compare with.
              if (compared++ > 0 && sc.changes === undefined)
                throw new Error('compare_to "previous" gave no changes');
            },
          ),
      },
      { rounds, warmup: 1 },
    );
    return {
      ratio: sum(samples.compare) / sum(samples.off),
      cpuMs: [sum(samples.compare) / rounds, sum(samples.off) / rounds],
      ms: [fastest(wall.compare.slice(1)), fastest(wall.off.slice(1))],
      rounds,
    };
  } finally {
    await off.close();
    await on.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
