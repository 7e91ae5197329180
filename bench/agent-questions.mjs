/**
 * Agent-style questions (docs/tools.md), each answered twice through the SDK client over stdio
 * against the built server in sandbox mode: "before", the calls a careful agent needs on a server
 * without issue 29 (the given build), and "after", the calls it needs on this one. Reports calls and
 * bytes (text plus serialized structuredContent) per question, and checks that both strategies reach
 * the same answer. A strategy that gets `next_start` follows it, as an agent would.
 *
 *   node bench/agent-questions.mjs [--before <old dist/bin/maintenance-mcp.js>]
 *
 * Without --before, only the "after" column is measured.
 */
import { childEnv, connectStdio, OURS_BIN } from "./lib/servers.mjs";

const DAY = 86_400_000;

/** Call one tool, following next_start while the strategy asks for every page; count calls and bytes. */
async function ask(client, stats, args, { follow = false } = {}) {
  const pages = [];
  let start = args.start;
  for (;;) {
    const result = await client.callTool({
      name: "query_budgets",
      arguments: start === undefined ? args : { ...args, start },
    });
    stats.calls += 1;
    const text = result.content?.map((c) => c.text ?? "").join("\n") ?? "";
    stats.bytes +=
      Buffer.byteLength(text) + Buffer.byteLength(JSON.stringify(result.structuredContent ?? {}));
    if (result.isError) throw new Error(`${JSON.stringify(args)}: ${text}`);
    pages.push(result.structuredContent);
    const next = result.structuredContent.next_start;
    if (!follow || next === null || next === undefined) return pages;
    start = next;
  }
}

const budgetsOf = (pages) => pages.flatMap((p) => p.budgets);
const twoWeeksAgo = () => new Date(Date.now() - 14 * DAY).toISOString().slice(0, 10);
const duplicates = (budgets) => {
  const n = new Map();
  for (const b of budgets) n.set(b.wo_folio, (n.get(b.wo_folio) ?? 0) + 1);
  return [...n]
    .filter(([, c]) => c > 1)
    .map(([wo]) => wo)
    .sort();
};

/**
 * Each question: what an agent calls before and after, and how it reads the answer from the pages.
 * Before: the old server's creation_date is the work order's, so budgets created in the last 14 days
 * need a wider window read in full and filtered on date_create by the agent; months were creation
 * months; the oldest pending budget took its own call; a round "All 100" drew a checking call.
 */
const QUESTIONS = [
  {
    q: "Which work orders got more than one budget in the last two weeks?",
    // From the start of the day two weeks ago: records show date_create to the day.
    async before(c, s) {
      const pages = await ask(c, s, { since: "P60D", all: true }, { follow: true });
      return duplicates(budgetsOf(pages).filter((b) => b.date_create >= twoWeeksAgo()));
    },
    async after(c, s) {
      const args = { type_date: "budget_created", since: twoWeeksAgo(), all: true };
      return duplicates(budgetsOf(await ask(c, s, args, { follow: true })));
    },
  },
  {
    q: "The three largest pending budgets in dollars",
    async before(c, s) {
      const pages = await ask(c, s, { status: "pending", currency: "USD", sort: "total_desc", limit: 3 });
      return budgetsOf(pages).map((b) => b.folio);
    },
    async after(c, s) {
      return this.before(c, s);
    },
  },
  {
    q: "Totals per cost center (last 90 days)",
    async before(c, s) {
      const [p] = await ask(c, s, { since: "P90D", group_by: ["cost_center"] });
      return p.groups.map((g) => `${g.cost_center} ${g.currency} ${g.items_total}`);
    },
    async after(c, s) {
      return this.before(c, s);
    },
  },
  {
    q: "What is pending per currency, and which budget has waited longest?",
    async before(c, s) {
      await ask(c, s, { status: "pending", since: "all", group_by: ["currency"] });
      const [oldest] = await ask(c, s, { status: "pending", since: "all", sort: "date_asc", limit: 1 });
      return oldest.budgets[0].folio;
    },
    async after(c, s) {
      const [p] = await ask(c, s, { status: "pending", since: "all", group_by: ["currency"] });
      return p.review.oldest_pending.folio;
    },
  },
  {
    q: "All pending budgets, across all dates",
    async before(c, s) {
      // Two agents of the last round read "All 100" as a page cap and checked with a second call.
      const [p] = await ask(c, s, { since: "all", status: "pending", limit: 100 });
      await ask(c, s, { since: "all", status: "pending", limit: 100, start: 100 });
      return p.total;
    },
    async after(c, s) {
      const [p] = await ask(c, s, { since: "all", status: "pending", limit: 100 });
      return p.total;
    },
  },
  {
    q: "Approved totals per month of approval, last 90 days",
    async before(c, s) {
      // group_by month was the creation month: the agent reads every record and groups by approval_date.
      const pages = await ask(
        c,
        s,
        { type_date: "approval_date", since: "P90D", status: "approved", all: true },
        { follow: true },
      );
      const n = new Map();
      for (const b of budgetsOf(pages)) {
        const k = `${b.approval_date.slice(0, 7)} ${b.currency}`;
        n.set(k, (n.get(k) ?? 0) + 1);
      }
      return [...n].map(([k, v]) => `${k} ${v}`).sort();
    },
    async after(c, s) {
      const [p] = await ask(c, s, {
        type_date: "approval_date",
        since: "P90D",
        status: "approved",
        group_by: ["month"],
      });
      return p.groups.map((g) => `${g.month} ${g.currency} ${g.count}`).sort();
    },
  },
];

async function run(bin, side) {
  const server = await connectStdio(bin, childEnv({ MMS_SANDBOX: "true" }));
  try {
    const out = [];
    for (const question of QUESTIONS) {
      const stats = { calls: 0, bytes: 0 };
      const answer = await question[side](server.client, stats);
      out.push({ ...stats, answer: JSON.stringify(answer) });
    }
    return out;
  } finally {
    await server.close();
  }
}

const at = process.argv.indexOf("--before");
const beforeBin = at > 0 ? process.argv[at + 1] : undefined;
const after = await run(OURS_BIN, "after");
const before = beforeBin ? await run(beforeBin, "before") : undefined;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const rows = [
  "| question | calls before | bytes before | calls after | bytes after | same answer |",
  "|---|---:|---:|---:|---:|---|",
];
const sum = { cb: 0, bb: 0, ca: 0, ba: 0 };
QUESTIONS.forEach((question, i) => {
  const a = after[i];
  const b = before?.[i];
  sum.ca += a.calls;
  sum.ba += a.bytes;
  sum.cb += b?.calls ?? 0;
  sum.bb += b?.bytes ?? 0;
  rows.push(
    `| ${question.q} | ${b?.calls ?? "-"} | ${b ? kb(b.bytes) : "-"} | ${a.calls} | ${kb(a.bytes)} | ${b ? (b.answer === a.answer ? "yes" : `NO: ${b.answer} / ${a.answer}`) : "-"} |`,
  );
});
rows.push(`| **total** | ${sum.cb} | ${kb(sum.bb)} | ${sum.ca} | ${kb(sum.ba)} | |`);
process.stdout.write(`${rows.join("\n")}\n`);
