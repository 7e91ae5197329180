/**
 * 6. Budget review: "totals by currency and cost center for pending and approved budgets over
 * 90 days". Ours answers in one call (`group_by: ["status", "currency", "cost_center"]`, the
 * server walks the pages). The baseline is what an agent does with the plain tool: walk the
 * compact pages (start/limit 100) and add the amounts itself. Sizes: the whole CallToolResult of
 * the one call against the raw upstream pages it read (compact JSON). Both answers are checked
 * equal, total for total, in integer cents.
 * Targets: result < 2 % of the raw bytes; one call no slower than the page walk (ratio >= 1).
 */
import { interleave, summarize } from "../lib/measure.mjs";
import { callOk, childEnv, connectStdio, OURS_BIN } from "../lib/servers.mjs";
import { daysAgo, directClient } from "../lib/upstream.mjs";

const ROUNDS = 9;
const PAGE = 100;
const MAX_PAGES = 100;
// Summary rows name a status as the filter does; compact records carry its code.
const KEEP = new Set(["pending", "approved"]);
const STATUS_NAME = { 1: "pending", 2: "approved", 3: "rejected" };

const bytes = (value) => Buffer.byteLength(JSON.stringify(value));
const cents = (n) => Math.round(n * 100);

/** "status|currency|cost center" → cents, from summary rows or from compact records. */
function fromGroups(groups) {
  const out = {};
  for (const g of groups) {
    if (KEEP.has(g.status)) out[`${g.status}|${g.currency}|${g.cost_center}`] = cents(g.items_total);
  }
  return out;
}
function fromRecords(budgets) {
  const out = {};
  for (const b of budgets) {
    const status = STATUS_NAME[b.status];
    if (!KEEP.has(status)) continue;
    const key = `${status}|${b.currency}|${b.cost_center}`;
    out[key] = (out[key] ?? 0) + cents(b.items_total);
  }
  return out;
}
const sorted = (o) => JSON.stringify(Object.entries(o).sort());

export default async function budgetReview({ sb }) {
  const since = daysAgo(90);
  const ours = await connectStdio(OURS_BIN, childEnv(sb.env()));
  const get = await directClient(sb);
  const answers = { oneCall: [], pageWalk: [] };
  let result;
  try {
    const rawPages = [];
    for (let start = 0, page = 0; page < MAX_PAGES; page++, start += PAGE) {
      const body = await get("/wo_budget", { since, start, limit: PAGE });
      rawPages.push(body);
      if (body.data.length < PAGE) break;
    }
    const samples = await interleave(
      {
        oneCall: async () => {
          result = await callOk(ours.client, "query_budgets", {
            since,
            group_by: ["status", "currency", "cost_center"],
          });
          answers.oneCall.push(sorted(fromGroups(result.structuredContent.groups)));
        },
        pageWalk: async () => {
          const budgets = [];
          let start = 0;
          for (let page = 0; page < MAX_PAGES && start !== null; page++) {
            const r = await callOk(ours.client, "query_budgets", { start, limit: PAGE, since });
            budgets.push(...r.structuredContent.budgets);
            start = r.structuredContent.next_start;
          }
          answers.pageWalk.push(sorted(fromRecords(budgets)));
        },
      },
      { rounds: ROUNDS, warmup: 1, label: "budget-review" },
    );
    const s = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)]));
    const resultBytes = bytes(result);
    const rawBytes = rawPages.reduce((n, p) => n + bytes(p), 0);
    const share = resultBytes / rawBytes;
    const speed = s.pageWalk.median / s.oneCall.median;
    const scanned = result.structuredContent.review.scanned;
    const identical =
      answers.oneCall.every((a) => a === answers.oneCall[0]) &&
      answers.pageWalk.every((a) => a === answers.oneCall[0]) &&
      Object.keys(JSON.parse(answers.oneCall[0])).length > 0;
    const bench = `6. budget review, ${scanned} budgets / 90 days`;
    return {
      rows: [
        {
          bench: "6. budget review (bytes)",
          series: `one call group_by status+currency+cost_center: result vs ${rawPages.length} raw pages`,
          n: 1,
          median: resultBytes,
          tokens: Math.round(resultBytes / 4),
          ratio: share,
          note: `raw pages ${rawBytes.toLocaleString("en-US")} B; ratio = result / raw`,
        },
        { bench: `${bench} (ms)`, series: "ours: one query_budgets call with group_by", ...s.oneCall },
        {
          bench: `${bench} (ms)`,
          series: "agent: query_budgets start/limit 100 page walk, summed client-side",
          ...s.pageWalk,
          ratio: speed,
          note: "ratio = page walk / one call",
        },
      ],
      targets: [
        {
          name: "6. budget review: result / raw pages read",
          figure: `${(share * 100).toFixed(2)} % (${resultBytes.toLocaleString("en-US")} of ${rawBytes.toLocaleString("en-US")} B)`,
          target: "< 2 %",
          met: share < 0.02,
        },
        {
          name: "6. budget review: page walk / one call (time)",
          figure: speed.toFixed(2),
          target: ">= 1 (no slower)",
          met: speed >= 1,
        },
        {
          name: "6. budget review: same totals as the page walk",
          figure: identical ? "yes, every run, in cents" : "NO",
          target: "identical",
          met: identical,
        },
      ],
    };
  } finally {
    await ours.close();
  }
}
