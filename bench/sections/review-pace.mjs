/**
 * 10. Reviews through `resume` at the platform's pace (issue 27, interface.md §6c). A sandbox plays the
 * platform's limit (200 requests per company per "minute", played as 6 s: startRateLimitedUpstream).
 * Our server (stdio, MMS_REVIEW_DEADLINE_MS=8000, so a review of thousands of pages must go through
 * `resume`) reviews 10,000, 20,000 and 30,000 budgets, each with a fresh server, calling again with
 * `resume` until complete, while a second integration of the same company reads at 50 a minute
 * throughout. Then five regroups of the same window (other group_by), answered from the snapshot.
 * Targets: the 30,000 review complete with totals equal to a direct (paced) read's; no 406 for
 * either client; ours never above its share (100) in any window; the regroup under 2 % of the
 * first review's time; the server's peak RSS flat in N (30,000 within 1.15 x of 10,000).
 */
import { now } from "../lib/measure.mjs";
import { callOk, childEnv, connectStdio, OURS_BIN, peakRssMiB } from "../lib/servers.mjs";
import {
  BENCH_RATE_LIMIT,
  clientStats,
  directClient,
  otherIntegration,
  rateLimitedEnv,
  startRateLimitedUpstream,
} from "../lib/upstream.mjs";

const SIZES = [10_000, 20_000, 30_000];
const DEADLINE_MS = 8_000;
const SHARE = 0.5;
const YEAR = 366 * 86_400_000;
const iso = (ms) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/** Cents per currency code of a summary's groups. */
const centsOf = (groups) =>
  Object.fromEntries((groups ?? []).map((g) => [g.currency, Math.round(g.items_total * 100)]));

/** One review of the window through resume: calls, time, the final result. */
async function reviewThroughResume(client, args) {
  const started = now();
  let calls = 1;
  let r = (await callOk(client, "query_budgets", args)).structuredContent;
  while (r.complete !== true && typeof r.resume === "string") {
    calls += 1;
    r = (await callOk(client, "query_budgets", { ...args, resume: r.resume })).structuredContent;
  }
  return { r, calls, ms: now() - started };
}

/** The window's cents per currency read directly, paced within the company's limit. */
async function directTotals(sb, limit, since, until) {
  const get = await directClient(sb);
  const cents = {};
  // The sandbox's names (src/sandbox/seed-bulk.ts), written out here: an oracle, not our mapping.
  const codes = {
    "US Dollar": "USD",
    Euro: "EUR",
    "Chilean Peso": "CLP",
    "Peso chileno": "CLP",
    "Mexican Peso": "MXN",
    "Peso mexicano": "MXN",
  };
  const perWindow = Math.floor(limit.perMinute * SHARE);
  for (let start = 0, sent = 0; ; start += 100) {
    if (++sent % perWindow === 0) await new Promise((r) => setTimeout(r, limit.windowMs));
    const page = await get("/wo_budget", { since, until, start, limit: 100 });
    for (const b of page.data) {
      const code = codes[b.currency_description] ?? b.currency_description;
      cents[code] = (cents[code] ?? 0) + b.list_items.reduce((n, l) => n + Math.round(l.total_cost * 100), 0);
    }
    if (page.data.length < 100) break;
  }
  // Our totals are rounded once to the currency's digits (CLP has none).
  if (cents.CLP !== undefined) cents.CLP = Math.round(cents.CLP / 100) * 100;
  return cents;
}

export default async function reviewPace() {
  const limit = BENCH_RATE_LIMIT;
  const sb = await startRateLimitedUpstream(limit);
  const rows = [];
  const figures = {};
  let stats;
  let exact = false;
  let otherSent = 0;
  try {
    const other = await otherIntegration(sb, limit);
    try {
      for (const size of SIZES) {
        await sb.setBudgets(size);
        const args = {
          since: iso(Date.now() - YEAR),
          until: iso(Date.now()),
          group_by: ["currency"],
          max_records: 100_000,
        };
        const env = rateLimitedEnv(sb, limit, { MMS_REVIEW_DEADLINE_MS: String(DEADLINE_MS) });
        const ours = await connectStdio(OURS_BIN, childEnv(env));
        try {
          await ours.client.listTools();
          const first = await reviewThroughResume(ours.client, args);
          // Five regroups of the window (the view's controls), each answered from the snapshot: the median.
          const regroups = [];
          let fromSnapshot = true;
          for (const group_by of [
            ["status", "currency"],
            ["month", "currency"],
            ["cost_center"],
            ["age"],
            ["third_party"],
          ]) {
            const t = now();
            const regroup = await callOk(ours.client, "query_budgets", { ...args, group_by });
            regroups.push(now() - t);
            fromSnapshot &&= /^(\[sandbox\] )?As of /.test(regroup.content[0].text);
          }
          const regroupMs = regroups.sort((a, b) => a - b)[2];
          figures[size] = { ...first, regroupMs, fromSnapshot, peak: peakRssMiB(ours.pid), args };
        } finally {
          await ours.close();
        }
        process.stderr.write(`  review-pace: ${size} budgets in ${figures[size].calls} calls\n`);
      }
    } finally {
      otherSent = await other.stop();
    }
    stats = await sb.rateStats();
    // The oracle, after the measured runs (its requests count for the company too).
    await new Promise((r) => setTimeout(r, limit.windowMs));
    const last = figures[SIZES.at(-1)];
    const direct = await directTotals(
      sb,
      limit,
      last.args.since.replace("Z", "+00:00"),
      last.args.until.replace("Z", "+00:00"),
    );
    exact =
      JSON.stringify(centsOf(last.r.groups)) ===
      JSON.stringify(Object.fromEntries(Object.entries(direct).sort()));
    last.direct = direct;
  } finally {
    await sb.close();
  }

  const share = Math.floor(limit.perMinute * SHARE);
  const mine = clientStats(stats, "demo-client");
  const theirs = clientStats(stats, "readonly-client");
  const bench = `10. review through resume at ${limit.perMinute} / ${limit.windowMs / 1000} s, deadline ${DEADLINE_MS / 1000} s`;
  for (const size of SIZES) {
    const f = figures[size];
    rows.push({
      bench,
      series: `ours: ${size.toLocaleString("en-US")} budgets, first review (s)`,
      n: f.calls,
      median: f.ms / 1000,
      note: `${f.calls} calls (resume), ${f.r.review?.scanned?.toLocaleString("en-US")} scanned, complete ${f.r.complete}; regroup from the snapshot ${f.regroupMs.toFixed(0)} ms (median of 5) (${((100 * f.regroupMs) / f.ms).toFixed(2)} %, as of: ${f.fromSnapshot}); peak RSS ${f.peak.toFixed(1)} MiB`,
    });
  }
  rows.push({
    bench,
    series: "another integration of the company, 50 / minute",
    n: theirs.accepted + theirs.refused,
    note: `${theirs.accepted} accepted, ${theirs.refused} refused (sent ${otherSent}); ours: ${mine.accepted} requests, at most ${mine.maxInWindow} in any window, ${mine.refused} refused`,
  });
  const small = figures[SIZES[0]];
  const large = figures[SIZES.at(-1)];
  const regroupShare = large.regroupMs / large.ms;
  const growth = large.peak / small.peak;
  return {
    rows,
    targets: [
      {
        name: "10. review through resume: 30,000 budgets complete and exact (vs a direct read)",
        figure: `${large.r.review?.scanned} scanned in ${large.calls} calls, complete ${large.r.complete}, totals ${exact ? "equal" : "differ"}`,
        target: "complete, equal",
        met: large.r.complete === true && large.r.review?.scanned === 30_000 && exact,
      },
      {
        name: "10. review through resume: 406s met by ours / by the other integration",
        figure: `${mine.refused} / ${theirs.refused}`,
        target: "0 / 0",
        met: mine.refused === 0 && theirs.refused === 0,
      },
      {
        name: "10. review through resume: our most requests in any window",
        figure: `${mine.maxInWindow} of ${limit.perMinute}`,
        target: `<= ${share}`,
        met: mine.maxInWindow > 0 && mine.maxInWindow <= share,
      },
      {
        name: "10. review through resume: regroup from the snapshot (median of 5) / first review, 30,000",
        figure: `${(100 * regroupShare).toFixed(2)} % (${large.regroupMs.toFixed(0)} ms of ${(large.ms / 1000).toFixed(1)} s)`,
        target: "< 2 %, read from the snapshot",
        met: regroupShare < 0.02 && large.fromSnapshot,
      },
      {
        name: "10. review through resume: server peak RSS, 30,000 vs 10,000",
        figure: `${large.peak.toFixed(1)} vs ${small.peak.toFixed(1)} MiB (${growth.toFixed(2)} x)`,
        target: "<= 1.15 x",
        met: growth <= 1.15,
      },
    ],
  };
}
