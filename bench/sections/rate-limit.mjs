/**
 * 9. The platform's pace (issue 27): a sandbox of its own plays the platform's limit (200 requests
 * per company per "minute", the minute played as 6 s: bench/lib/upstream.mjs startRateLimitedUpstream)
 * and counts, per client id, the most requests it accepted in any rolling window and the 406s it gave.
 * Our server (stdio, learning the limit from the headers, MMS_RATE_WINDOW_MS=6000) reviews 20,000
 * budgets (200 pages of 100, so more than two windows' worth of its share) while a second integration
 * of the same company (readonly-client) reads at 50 a minute (5 per window, evenly). Targets: no 406
 * for either; ours never more than its share (L x 0.5 = 100) in any window; the review exact.
 * The 30,000-budget review through `resume` builds on this helper (issue 27, the review's section).
 */

import { now } from "../lib/measure.mjs";
import { callOk, childEnv, connectStdio, OURS_BIN } from "../lib/servers.mjs";
import {
  BENCH_RATE_LIMIT,
  clientStats,
  otherIntegration,
  rateLimitedEnv,
  startRateLimitedUpstream,
} from "../lib/upstream.mjs";

const BUDGETS = 20_000;
const SHARE = 0.5;
const YEAR = 366 * 86_400_000;
const iso = (ms) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

export default async function rateLimit() {
  const limit = BENCH_RATE_LIMIT;
  const sb = await startRateLimitedUpstream(limit);
  const rows = [];
  let stats;
  let review;
  let elapsed;
  let otherSent = 0;
  try {
    await sb.setBudgets(BUDGETS);
    const ours = await connectStdio(OURS_BIN, childEnv(rateLimitedEnv(sb, limit)));
    try {
      await ours.client.listTools();
      const other = await otherIntegration(sb, limit);
      const started = now();
      try {
        const r = await callOk(ours.client, "query_budgets", {
          since: iso(Date.now() - YEAR),
          until: iso(Date.now()),
          group_by: ["currency"],
          max_records: 100_000,
        });
        review = r.structuredContent;
      } finally {
        elapsed = now() - started;
        otherSent = await other.stop();
      }
    } finally {
      await ours.close();
    }
    stats = await sb.rateStats();
  } finally {
    await sb.close();
  }
  const share = Math.floor(limit.perMinute * SHARE);
  const mine = clientStats(stats, "demo-client");
  const theirs = clientStats(stats, "readonly-client");
  const scanned = review?.review?.scanned ?? review?.count ?? 0;
  const windows = elapsed / limit.windowMs;
  const bench = `9. platform pace: review of ${BUDGETS.toLocaleString("en-US")} budgets at ${limit.perMinute} / ${limit.windowMs / 1000} s`;
  rows.push(
    {
      bench,
      series: "ours: one query_budgets call (s)",
      n: 1,
      median: elapsed / 1000,
      p95: elapsed / 1000,
      note: `${mine.accepted} requests, at most ${mine.maxInWindow} in any ${limit.windowMs / 1000} s window (share ${share}), ${mine.refused} refused; ${scanned.toLocaleString("en-US")} budgets, complete: ${review?.complete}; ${windows.toFixed(1)} windows`,
    },
    {
      bench,
      series: "another integration of the company, 50 / minute",
      n: theirs.accepted + theirs.refused,
      note: `${theirs.accepted} accepted, ${theirs.refused} refused (sent ${otherSent})`,
    },
  );
  return {
    rows,
    targets: [
      {
        name: "9. platform pace: 406s met by our server / by the other integration",
        figure: `${mine.refused} / ${theirs.refused}`,
        target: "0 / 0",
        met: mine.refused === 0 && theirs.refused === 0,
      },
      {
        name: "9. platform pace: our most requests in any window",
        figure: `${mine.maxInWindow} of ${limit.perMinute}`,
        target: `<= ${share} (L x MMS_RATE_SHARE)`,
        met: mine.maxInWindow <= share && mine.maxInWindow > 0,
      },
      {
        name: "9. platform pace: review exact",
        figure: `${scanned.toLocaleString("en-US")} of ${BUDGETS.toLocaleString("en-US")}, complete ${review?.complete}`,
        target: "all, complete",
        met: scanned === BUDGETS && review?.complete === true,
      },
    ],
  };
}
