/**
 * Agent-style questions (docs/tools.md), each answered twice through the SDK client over stdio
 * against the built server in sandbox mode: "before", the calls a careful agent needs on a server
 * without the change the question is about (issue 29 for the first six, issue 42's interface 6g for
 * the rest: give the given build), and "after", the calls it needs on this one. Reports calls and
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
  // Interface 6g (issue 42): what agents re-asked after the first answer.
  {
    q: "Approved CLP budgets of 90 days by cost center: does the date basis change the answer?",
    async before(c, s) {
      const counts = [];
      for (const type_date of ["creation_date", "budget_created", "approval_date"]) {
        const args = {
          status: "approved",
          currency: "CLP",
          since: "P90D",
          group_by: ["cost_center"],
          type_date,
        };
        const [p] = await ask(c, s, args);
        counts.push(p.review.matched);
      }
      return counts;
    },
    async after(c, s) {
      const args = { status: "approved", currency: "CLP", since: "P90D", group_by: ["cost_center"] };
      const [p] = await ask(c, s, args);
      return basisCounts(p, ["budget_created", "approval_date"]);
    },
  },
  {
    q: "Rejected budgets month by month (last 20 days), on every date basis",
    async before(c, s) {
      const counts = [];
      for (const type_date of ["creation_date", "budget_created", "approval_date"]) {
        const [p] = await ask(c, s, { status: "rejected", since: "P20D", group_by: ["month"], type_date });
        counts.push(p.review.matched);
      }
      return counts;
    },
    async after(c, s) {
      const [p] = await ask(c, s, { status: "rejected", since: "P20D", group_by: ["month"] });
      return basisCounts(p, ["budget_created", "approval_date"]);
    },
  },
  {
    q: "Totals per third party (90 days): who is a supplier, who a customer, and their codes?",
    async before(c, s) {
      const [p] = await ask(c, s, { since: "P90D", group_by: ["third_party"] });
      const names = [...new Set(p.groups.map((g) => g.third_party))].sort();
      const out = [];
      for (const name of names) {
        const [one] = await ask(c, s, { since: "P90D", third_party: name, view: "full", limit: 1 });
        const code = one.budgets[0].third_parties_code;
        out.push(`${name} ${code} ${code.startsWith("SUP-") ? "supplier" : "customer"}`);
      }
      return out;
    },
    async after(c, s) {
      const [p] = await ask(c, s, { since: "P90D", group_by: ["third_party"] });
      const rows = new Map(
        p.groups.map((g) => [g.third_party, `${g.third_party_code} ${g.third_party_role}`]),
      );
      return [...rows].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, who]) => `${name} ${who}`);
    },
  },
  {
    q: "Which pending budget has waited longest, to the second (two were created that day)?",
    async before(c, s) {
      const [p] = await ask(c, s, { status: "pending", since: "all", group_by: ["currency"] });
      const day = p.review.oldest_pending.date_create;
      const [list] = await ask(c, s, {
        status: "pending",
        since: "all",
        sort: "date_asc",
        limit: 5,
        view: "full",
      });
      return list.budgets
        .filter((b) => b.date_create.slice(0, 10) === day)
        .sort((a, b) => Date.parse(a.date_create) - Date.parse(b.date_create))
        .map((b) => b.folio);
    },
    async after(c, s) {
      const [p] = await ask(c, s, { status: "pending", since: "all", group_by: ["currency"] });
      const o = p.review.oldest_pending;
      return [o.folio, ...(o.same_day ?? []).map((b) => b.folio)];
    },
  },
  {
    q: "Pending USD budgets: their total after the discount, read as a percentage and as an amount",
    async before(c, s) {
      const pages = await ask(
        c,
        s,
        { status: "pending", currency: "USD", since: "all", all: true },
        { follow: true },
      );
      let percent = 0;
      let amount = 0;
      for (const b of budgetsOf(pages)) {
        const d = Number(b.discount ?? 0);
        percent += b.items_total * (1 - d / 100);
        amount += b.items_total - d;
      }
      return [Math.round(percent), Math.round(amount)];
    },
    async after(c, s) {
      const [p] = await ask(c, s, {
        status: "pending",
        currency: "USD",
        since: "all",
        group_by: ["currency"],
      });
      const [usd] = p.review.discount_readings.totals;
      return [Math.round(usd.net_if_percent), Math.round(usd.net_if_amount)];
    },
  },
  {
    q: "Budgets created in the last 14 days, and did the lookback reach every budget?",
    async before(c, s) {
      const [p] = await ask(c, s, { type_date: "budget_created", since: "P14D", group_by: ["currency"] });
      const [every] = await ask(c, s, { since: "all", limit: 1 });
      return [p.review.matched, p.review.scanned === every.total];
    },
    async after(c, s) {
      const [p] = await ask(c, s, { type_date: "budget_created", since: "P14D", group_by: ["currency"] });
      return [p.review.matched, p.review.company?.all_read === true];
    },
  },
];

/** The review's own count, then each other basis's (the same count where the result says "the same"). */
const basisCounts = (p, bases) => [
  p.review.matched,
  ...bases.map((b) => p.review.bases.find((x) => x.type_date === b).matched),
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
