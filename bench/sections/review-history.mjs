/**
 * 11. Reviews that remember (issues 36 and 41, interface.md §6e, §6f): a group_by review of 30,000
 * budgets over a year, by a fresh server each time (as a desktop host starts one per conversation).
 * Series, run interleaved: "off" (MMS_REVIEW_HISTORY_DAYS=0: the review alone), "store" (the
 * review written into a fresh ledger), "compare" (a second server process with compare_to
 * "previous": reads the ledger, compares, writes its read) and "crowded" (the review written into
 * a state directory that already holds 40,000 records of other tenants). Targets: at most 60 bytes
 * a budget version on disk; the compare call within 5 % of the review's own time (median compare /
 * median off); the server's peak RSS with compare within 1.1 x of the review without history; the
 * crowded review within 1.1 x of the store into an empty directory.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { interleave, summarize } from "../lib/measure.mjs";
import { callOk, childEnv, connectStdio, OURS_BIN } from "../lib/servers.mjs";

const SIZE = 30_000;
const ROUNDS = 3;
const SEED_BUDGETS = 260;
const YEAR = 366 * 86_400_000;
const iso = (ms) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

const peakMiB = (pid) =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024;

/** One review by a fresh server; its time (the call alone) and the server's peak RSS. */
async function review(sb, env, args) {
  const server = await connectStdio(OURS_BIN, childEnv({ ...sb.env(), ...env }));
  try {
    await server.client.listTools();
    const started = performance.now();
    const r = await callOk(server.client, "query_budgets", args);
    const ms = performance.now() - started;
    if (r.structuredContent.complete !== true) throw new Error(`review not complete: ${r.content[0].text}`);
    return { ms, peak: peakMiB(server.pid), sc: r.structuredContent };
  } finally {
    await server.close();
  }
}

const OTHER_RECORDS = 40_000;

/** The tenant's ledger: its bytes and its version lines (the header's n). */
function ledgerOf(dir) {
  const [file] = readdirSync(dir).filter((f) => f.endsWith(".ledger") && !f.startsWith("ledger-other-"));
  const raw = readFileSync(join(dir, file));
  const header = JSON.parse(raw.subarray(6, raw.indexOf(10, 6)).toString());
  return { file: join(dir, file), bytes: statSync(join(dir, file)).size, versions: header.n };
}

/** A state directory holding `n` records of other tenants (small ledgers, as many tenants keep). */
function crowdedDir(n) {
  const dir = mkdtempSync(join(tmpdir(), "mms-bench-crowded-"));
  const body = Buffer.from(`MMSL1\n${JSON.stringify({ v: 1, cov: [], n: 0, raw: 0, oldest: Date.now() })}\n`);
  for (let i = 0; i < n; i++)
    writeFileSync(join(dir, `ledger-other-${String(i).padStart(8, "0")}.ledger`), body);
  return dir;
}

export default async function reviewHistory({ sb }) {
  const before = await sb.addBudgets(0);
  await sb.setBudgets(SIZE);
  const dirs = [];
  const peaks = { off: [], store: [], compare: [], crowded: [] };
  const perBudget = [];
  let changes;
  const args = {
    since: iso(Date.now() - YEAR),
    until: iso(Date.now()),
    group_by: ["month", "currency"],
    max_records: 100_000,
  };
  try {
    const dirFor = () => {
      const d = mkdtempSync(join(tmpdir(), "mms-bench-history-"));
      dirs.push(d);
      return d;
    };
    let dir;
    const crowded = crowdedDir(OTHER_RECORDS);
    dirs.push(crowded);
    const samples = await interleave(
      {
        off: async () => {
          const r = await review(sb, { MMS_REVIEW_HISTORY_DAYS: "0" }, args);
          peaks.off.push(r.peak);
          return r.ms;
        },
        store: async () => {
          dir = dirFor();
          const r = await review(sb, { MMS_STATE_DIR: dir }, args);
          peaks.store.push(r.peak);
          return r.ms;
        },
        compare: async () => {
          const r = await review(sb, { MMS_STATE_DIR: dir }, { ...args, compare_to: "previous" });
          peaks.compare.push(r.peak);
          changes = r.sc.changes;
          if (changes?.unchanged?.count !== SIZE)
            throw new Error(`compare did not see ${SIZE} unchanged: ${JSON.stringify(changes)}`);
          // Two reads of SIZE unchanged budgets: one version each.
          const ledger = ledgerOf(dir);
          perBudget.push(ledger.bytes / ledger.versions);
          return r.ms;
        },
        crowded: async () => {
          const r = await review(sb, { MMS_STATE_DIR: crowded }, args);
          peaks.crowded.push(r.peak);
          // Each round writes afresh among the 40,000, as "store" does in its empty directory.
          rmSync(ledgerOf(crowded).file);
          return r.ms;
        },
      },
      { rounds: ROUNDS, label: "review-history" },
    );
    const s = {
      off: summarize(samples.off),
      store: summarize(samples.store),
      compare: summarize(samples.compare),
      crowded: summarize(samples.crowded),
    };
    const crowdedRatio = s.crowded.median / s.store.median;
    const max = (xs) => Math.max(...xs);
    const overhead = s.compare.median / s.off.median;
    const rss = max(peaks.compare) / max(peaks.off);
    const bytes = max(perBudget);
    const bench = `11. review history: group_by review of ${SIZE.toLocaleString("en-US")} budgets, a fresh server each (ms)`;
    return {
      rows: [
        {
          bench,
          series: "off: MMS_REVIEW_HISTORY_DAYS=0",
          ...s.off,
          note: `peak RSS ${max(peaks.off).toFixed(1)} MiB`,
        },
        {
          bench,
          series: "store: the review, then stored",
          ...s.store,
          ratio: s.store.median / s.off.median,
          note: `peak RSS ${max(peaks.store).toFixed(1)} MiB`,
        },
        {
          bench,
          series: 'compare: compare_to "previous" (read, compare, store)',
          ...s.compare,
          ratio: overhead,
          note: `peak RSS ${max(peaks.compare).toFixed(1)} MiB; ${bytes.toFixed(1)} bytes a budget version on disk`,
        },
        {
          bench,
          series: `crowded: stored among ${OTHER_RECORDS.toLocaleString("en-US")} records of other tenants`,
          ...s.crowded,
          ratio: crowdedRatio,
          note: `against "store" (an empty directory); peak RSS ${max(peaks.crowded).toFixed(1)} MiB`,
        },
      ],
      targets: [
        {
          name: "11. review history: bytes a budget version on disk",
          figure: bytes.toFixed(1),
          target: "<= 60",
          met: bytes <= 60,
        },
        {
          name: "11. review history: compare call / review without history",
          figure: overhead.toFixed(3),
          target: "<= 1.05",
          met: overhead <= 1.05,
        },
        {
          name: "11. review history: peak RSS with compare / without history",
          figure: rss.toFixed(3),
          target: "<= 1.10",
          met: rss <= 1.1,
        },
        {
          name: `11. review history: a review with ${OTHER_RECORDS.toLocaleString("en-US")} stored records / with none`,
          figure: crowdedRatio.toFixed(3),
          target: "<= 1.10",
          met: crowdedRatio <= 1.1,
        },
      ],
    };
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    await sb.setBudgets(before > SEED_BUDGETS ? before : SEED_BUDGETS);
  }
}
