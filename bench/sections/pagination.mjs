/**
 * 5. Pagination: `query_budgets` with `all: true` (default compact view) over 1,040 budgets (the
 * seed's 260 plus clones the sandbox process inserts into its live state) with 20 ms injected upstream
 * latency, against strictly sequential paging of the same records: (a) a loop of `query_budgets`
 * calls with start/limit 100 through the same server (same work per record, only the paging
 * differs: the target), (b) for reference, a direct undici loop that validates nothing.
 * Ours follows next_start, since one all=true result carries at most 80,000 characters (~260
 * compact budgets). Target: ours >= 3 x faster than (a), with identical results.
 */
import { interleave, summarize } from "../lib/measure.mjs";
import { callOk, childEnv, connectStdio, OURS_BIN } from "../lib/servers.mjs";
import { daysAgo, directClient } from "../lib/upstream.mjs";

const BUDGETS = 1_040;
const LATENCY_MS = 20;
const ROUNDS = 7;
const PAGE = 100;
const MAX_PAGES = 100; // bound on the sequential loops

const sameFolios = (a, b) => JSON.stringify(a.map((x) => x.folio)) === JSON.stringify(b.map((x) => x.folio));

export default async function pagination({ sb }) {
  const total = await sb.addBudgets(BUDGETS);
  const since = daysAgo(400);
  const ours = await connectStdio(OURS_BIN, childEnv(sb.env()));
  const get = await directClient(sb);
  await sb.latency(LATENCY_MS, "/api/wo_budget");
  const results = { concurrent: [], sequentialTool: [], sequentialDirect: [] };
  try {
    const samples = await interleave(
      {
        concurrent: async () => {
          // all=true results stop at what one host result can carry (80,000 characters): follow next_start.
          const budgets = [];
          let start = 0;
          for (let call = 0; call < MAX_PAGES && start !== null; call++) {
            const r = await callOk(ours.client, "query_budgets", {
              all: true,
              max_records: 5_000,
              since,
              start,
            });
            budgets.push(...r.structuredContent.budgets);
            start = r.structuredContent.next_start;
          }
          results.concurrent.push(budgets);
        },
        sequentialTool: async () => {
          const budgets = [];
          let start = 0;
          for (let page = 0; page < MAX_PAGES && start !== null; page++) {
            const r = await callOk(ours.client, "query_budgets", { start, limit: PAGE, since });
            budgets.push(...r.structuredContent.budgets);
            start = r.structuredContent.next_start;
          }
          results.sequentialTool.push(budgets);
        },
        sequentialDirect: async () => {
          const records = [];
          for (let page = 0; page < MAX_PAGES; page++) {
            const { data, total: matches } = await get("/wo_budget", {
              since,
              start: records.length,
              limit: PAGE,
            });
            records.push(...data);
            if (data.length === 0 || records.length >= matches) break;
          }
          results.sequentialDirect.push(records);
        },
      },
      { rounds: ROUNDS, warmup: 1, label: "pagination" },
    );

    const reference = JSON.stringify(results.sequentialTool[0]);
    const identical =
      results.concurrent.every((b) => JSON.stringify(b) === reference) &&
      results.sequentialTool.every((b) => JSON.stringify(b) === reference) &&
      results.sequentialDirect.every((r) => sameFolios(r, results.concurrent[0]));
    const count = results.concurrent[0].length;
    const s = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)]));
    const vsTool = s.sequentialTool.median / s.concurrent.median;
    const vsDirect = s.sequentialDirect.median / s.concurrent.median;
    const bench = `5. paging ${count} budgets, +${LATENCY_MS} ms (ms)`;
    return {
      rows: [
        {
          bench,
          series: "ours: query_budgets all=true (concurrent pages, following next_start)",
          ...s.concurrent,
        },
        {
          bench,
          series: "sequential: query_budgets start/limit 100 loop",
          ...s.sequentialTool,
          ratio: vsTool,
          note: "ratio = sequential / ours",
        },
        {
          bench,
          series: "reference: direct undici page loop, no validation",
          ...s.sequentialDirect,
          ratio: vsDirect,
          note: "ratio = direct loop / ours",
        },
      ],
      targets: [
        {
          name: `5. paging ${count} of ${total} budgets: sequential / concurrent`,
          figure: `${vsTool.toFixed(2)} (direct loop: ${vsDirect.toFixed(2)})`,
          target: ">= 3",
          met: vsTool >= 3,
        },
        {
          name: "5. paging: identical results",
          figure: identical ? `yes (${count} budgets, every run)` : "NO",
          target: "identical",
          met: identical && count === total,
        },
      ],
    };
  } finally {
    await sb.latency(0, "/api/wo_budget");
    await ours.close();
  }
}
