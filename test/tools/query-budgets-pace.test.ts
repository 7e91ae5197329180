/**
 * query_budgets reviews at the real platform's pace (interface.md §6c), through the SDK client
 * against a purpose-built hostile upstream on loopback: a deadline that returns an honest partial
 * result and a resume that reads nothing twice; a 406 that never discards what was read; pages
 * that do not add up; absurd values; the per-tenant snapshot and its tokens. Deadlines fire on
 * events (a progress notification), never on a wall-clock margin.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Budget } from "../../src/client/types.js";
import { type Deadline, type ReviewSettings, timerDeadline } from "../../src/domain/review/services.js";
import { QueryBudgetsInput, QueryBudgetsOutput } from "../../tools/query-budgets.js";
import {
  type BudgetUpstream,
  type Hostility,
  makeBudget,
  startBudgetUpstream,
} from "../helpers/budget-upstream.js";
import { connect, textOf } from "../helpers/mcp.js";
import { manualDeadline, testReviewServices } from "../helpers/review-services.js";

const budgets = (n: number, extra?: (i: number) => Record<string, unknown>) =>
  Array.from({ length: n }, (_, i) => makeBudget(i, extra?.(i)));

/** count and cents per currency description, from the records served: the oracle. */
function oracle(list: Budget[]) {
  const out = new Map<string, { count: number; cents: number }>();
  for (const b of list) {
    const g = out.get(b.currency_description!) ?? { count: 0, cents: 0 };
    g.count += 1;
    g.cents += b.list_items.reduce((n, l) => n + Math.round(l.total_cost * 100), 0);
    out.set(b.currency_description!, g);
  }
  return out;
}
const CODE: Record<string, string> = { "US Dollar": "USD", Euro: "EUR", "Peso chileno": "CLP" };

let up: BudgetUpstream | undefined;
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  await up?.close();
  up = undefined;
});

async function setUp(list: Budget[], hostility: Hostility = {}, settings: Partial<ReviewSettings> = {}) {
  up = await startBudgetUpstream(list, hostility);
  const services = testReviewServices(settings);
  const mcp = await connect({ clients: up.clients(), reviews: services.forTenant("acme"), sandbox: false });
  open.push(mcp);
  const call = async (args: Record<string, unknown>, onprogress?: (p: { progress: number }) => void) => {
    const result = await mcp.client.callTool(
      { name: "query_budgets", arguments: { since: "all", ...args } },
      undefined,
      onprogress ? { onprogress } : undefined,
    );
    return { result, text: textOf(result), error: result.isError === true };
  };
  const review = async (args: Record<string, unknown>, onprogress?: (p: { progress: number }) => void) => {
    const r = await call(args, onprogress);
    expect(r.error, r.text).toBe(false);
    // biome-ignore lint/suspicious/noExplicitAny: a result read loosely, field by field, as an agent reads it.
    return { ...r, out: QueryBudgetsOutput.parse(r.result.structuredContent) as Record<string, any> };
  };
  return { up, services, call, review, mcp };
}

/** The groups of a currency summary, as count and cents per code. */
const figures = (groups: { currency: string; count: number; items_total: number }[]) =>
  new Map(groups.map((g) => [g.currency, { count: g.count, cents: Math.round(g.items_total * 100) }]));
const expected = (list: Budget[]) => new Map([...oracle(list)].map(([name, g]) => [CODE[name]!, g]));

describe("query_budgets at the platform's pace", () => {
  it("returns a partial review by its deadline, then resume finishes it without reading a page twice", async () => {
    const list = budgets(1000);
    const deadline = manualDeadline();
    const { review } = await setUp(list, {}, { startDeadline: deadline.start });
    up!.hostility.holdFrom = 3;
    const first = await review({ group_by: ["currency"] }, (p) => {
      if (p.progress >= 300) deadline.fire();
    });
    expect(first.out.complete).toBe(false);
    expect(first.out.review).toMatchObject({ stopped: "deadline", scanned: 300, api_total: 1000 });
    expect(typeof first.out.resume).toBe("string");
    const line = first.text.split("\n")[0]!;
    expect(line).toMatch(
      /^Partial: read 300 of 1000 budgets of the window .*before the call's deadline \(MMS_REVIEW_DEADLINE_MS=45000\)/,
    );
    expect(line).toContain(`repeat this call with "resume": "${first.out.resume}"`);
    expect(first.text).not.toMatch(/max_records=/);
    expect(up!.served).toHaveLength(3);

    up!.hostility.holdFrom = undefined;
    const rest = await review({ group_by: ["currency"], resume: first.out.resume });
    expect(rest.out.complete, rest.text).toBe(true);
    expect(rest.out.resume).toBeUndefined();
    expect(figures(rest.out.groups)).toEqual(expected(list));
    // The three pages read before the deadline are not asked again (requests aborted in flight may still land).
    const firstPages = new Set(up!.served.slice(0, 3));
    expect(up!.served.filter((at) => firstPages.has(at))).toHaveLength(3);
    expect(new Set(up!.served).size).toBe(10);
  });

  it("a 406 whose reset outlasts the deadline returns what was read, with resume; resumed, the totals are exact", async () => {
    const list = budgets(1000);
    // The first call's deadline is 1 s away (the 406 says 3 s); the resume has the usual 45 s.
    let calls = 0;
    const startDeadline = (ms: number): Deadline =>
      calls++ === 0
        ? { at: Date.now() + 1_000, signal: new AbortController().signal, clear: () => {} }
        : timerDeadline(ms);
    const { review } = await setUp(list, { rateLimit: { pages: 2, resetSeconds: 3 } }, { startDeadline });
    const first = await review({ group_by: ["currency"] });
    expect(first.out.complete).toBe(false);
    expect(first.out.review).toMatchObject({ stopped: "rate-limited", scanned: 200 });
    expect(first.text.split("\n")[0]).toMatch(
      /before the upstream's rate limit, which resets at \d\d:\d\d:\d\dZ; .*"resume": "/,
    );
    expect(first.out.groups.reduce((n: number, g: { count: number }) => n + g.count, 0)).toBe(200);

    // The resume waits out what is left of the 3 s reset, then reads the other 8 pages in one window (with
    // 2 pages a window it would wait out three more resets: the waiting the next test covers, 9 s of it).
    up!.hostility.rateLimit = { pages: 1_000, resetSeconds: 3 };
    const rest = await review({ group_by: ["currency"], resume: first.out.resume });
    expect(rest.out.complete, rest.text).toBe(true);
    expect(figures(rest.out.groups)).toEqual(expected(list));
    // The pages read before the 406 are not asked again (requests aborted in flight may still land).
    expect(up!.served.filter((at) => at < 200).toSorted((a, b) => a - b)).toEqual([0, 100]);
    expect(new Set(up!.served).size).toBe(10);
  });

  it("a 406 whose reset fits the deadline waits for it and finishes, discarding nothing", async () => {
    const list = budgets(600);
    const { review } = await setUp(list, { rateLimit: { pages: 2, resetSeconds: 1 } });
    const out = (await review({ group_by: ["currency"] })).out;
    expect(out.complete).toBe(true);
    expect(figures(out.groups)).toEqual(expected(list));
    expect(up!.refused).toBeGreaterThan(0);
    expect(new Set(up!.served).size).toBe(6);
  });

  it("runs to completion as an MCP task: no deadline is started", async () => {
    const list = budgets(300);
    const deadline = manualDeadline();
    const { services } = await setUp(list, {}, { startDeadline: deadline.start });
    const tool = (await import("../../tools/query-budgets.js")).default;
    const ctx = {
      api: up!.clients().api,
      signal: new AbortController().signal,
      progress: async () => {},
      now: () => new Date(),
      reviews: services.forTenant("acme"),
      asTask: true,
    } as unknown as Parameters<typeof tool.handler>[1];
    const out = await tool.handler(QueryBudgetsInput.parse({ since: "all", group_by: ["currency"] }), ctx);
    expect(out.complete).toBe(true);
    expect(deadline.started).toBe(0);
  });
});

describe("a review's pages add up, or it says so", () => {
  it("an upstream that ignores start: each budget counted once, incomplete, and the walk stops", async () => {
    const { review } = await setUp(budgets(100), { ignoreStart: true, total: 1000 });
    const { out, text } = await review({ group_by: ["currency"] });
    expect(out.complete).toBe(false);
    expect(out.review.scanned).toBe(100);
    expect(out.groups.reduce((n: number, g: { count: number }) => n + g.count, 0)).toBe(100);
    expect(text.split("\n")[0]).toMatch(
      /^Incomplete: 100 matching of 100 distinct budgets read where the API reports 1000/,
    );
    expect(text).toMatch(/may ignore start/);
    expect(text).not.toMatch(/All 1000/);
  });

  it("pages overlapping by 50: counted once, incomplete", async () => {
    const list = budgets(1000);
    const { review } = await setUp(list, { overlap: 50 });
    const { out, text } = await review({ group_by: ["currency"] });
    expect(out.complete).toBe(false);
    const counted = out.groups.reduce((n: number, g: { count: number }) => n + g.count, 0);
    expect(counted).toBe(out.review.scanned);
    expect(counted).toBeLessThan(1000);
    expect(text).toMatch(/Pages overlapped/);
  });

  it("a short page and a total that changes are said", async () => {
    const { review } = await setUp(budgets(500), { short: { at: 200, length: 40 } });
    const short = await review({ group_by: ["currency"] });
    expect(short.out.complete).toBe(false);
    expect(short.text).toMatch(/The page at start=200 had 40 budget\(s\) where 100 were due/);
    await up!.close();
    const drift = await setUp(budgets(500), { totalFrom: { page: 1, total: 520 } });
    const changed = await drift.review({ group_by: ["currency"] });
    expect(changed.out.complete).toBe(false);
    expect(changed.text).toMatch(/total changed during the walk \(500, then 520/);
  });

  it("total -5 is a BAD_RESPONSE naming the field, never 'All -5 budgets'", async () => {
    const { call } = await setUp(budgets(10), { total: -5 });
    const r = await call({ group_by: ["currency"] });
    expect(r.error).toBe(true);
    expect(r.text).toMatch(/total is -5, not a count of records/);
    expect(r.text).not.toMatch(/All -5/);
  });

  it("an amount of 1e21 leaves its budget out, counted with its folio, and the review goes on", async () => {
    const list = budgets(250);
    list[7]!.list_items[0]!.total_cost = 1e21;
    const { review } = await setUp(list);
    const { out, text } = await review({ group_by: ["currency"] });
    expect(out.complete).toBe(false);
    expect(out.review.skipped).toEqual({
      count: 1,
      budgets: [
        { folio: "B-8", reason: "list_items[0].total_cost is 1e+21: not a finite amount within ±10^15" },
      ],
    });
    expect(figures(out.groups)).toEqual(expected(list.filter((_, i) => i !== 7)));
    expect(text).toMatch(/1 budget left out for amounts that are no money.*folio B-8/);
  });
});

describe("the snapshot", () => {
  it("a second look at the window reads nothing upstream and states its age; fresh reads again", async () => {
    const list = budgets(300);
    const { review } = await setUp(list);
    const first = await review({ group_by: ["currency"] });
    expect(first.text).not.toMatch(/^As of/);
    const served = up!.served.length;
    const checks = up!.checks;
    const again = await review({ group_by: ["status", "currency"], sort: "total_desc", currency: "USD" });
    expect(up!.served.length).toBe(served);
    // The date-basis checks of interface 6g come from their snapshots too.
    expect(up!.checks).toBe(checks);
    expect(again.out.as_of).toBe(first.out.as_of);
    expect(again.text.split("\n")[0]).toMatch(
      /^As of \d\d:\d\d:\d\dZ, \d+ s ago \(a snapshot; fresh: true reads again\): /,
    );
    const top = await review({ sort: "total_desc", limit: 3 });
    expect(up!.served.length).toBe(served);
    // A ranking by amount is per currency (interface.md §8b): the top 3 of each.
    expect(top.out.rankings!.length).toBeGreaterThan(1);
    expect(top.out.budgets).toHaveLength(3 * top.out.rankings!.length);
    await review({ group_by: ["currency"], fresh: true });
    expect(up!.served.length).toBe(served * 2);
  });

  it("a token of another tenant, another window or an expired snapshot is refused, saying which", async () => {
    let now = Date.now();
    const deadline = manualDeadline();
    const { review, call, services } = await setUp(
      budgets(1000),
      {},
      { clock: () => now, startDeadline: deadline.start },
    );
    up!.hostility.holdFrom = 2;
    const partial = await review({ group_by: ["currency"] }, (p) => {
      if (p.progress >= 200) deadline.fire();
    });
    const token = partial.out.resume as string;
    up!.hostility.holdFrom = undefined;

    const other = await connect({
      clients: up!.clients(),
      reviews: services.forTenant("globex"),
      sandbox: false,
    });
    open.push(other);
    const foreign = await other.client.callTool({
      name: "query_budgets",
      arguments: { since: "all", group_by: ["currency"], resume: token },
    });
    expect(textOf(foreign)).toMatch(/resume: this token was issued to another tenant/);

    const moved = await call({ since: "P90D", group_by: ["currency"], resume: token });
    expect(moved.text).toMatch(
      /resume: this token continues a review of another window or filters \(since all, until now/,
    );

    now += 301_000;
    const expired = await call({ group_by: ["currency"], resume: token });
    expect(expired.text).toMatch(/resume: this token expired at .* with its snapshot/);
    expect(await call({ group_by: ["currency"], resume: "garbage" })).toMatchObject({ error: true });
  });
});

describe("bytes in flight", () => {
  it("large pages lower the pages in flight, and unknown fields stay out unless view full", async () => {
    // Each budget carries a 5,000-character unknown field: a page of 100 weighs about 1 MB.
    const list = budgets(1000, () => ({ huge_field: "x".repeat(5_000) }));
    const { review, services } = await setUp(list, {}, { inflightMb: 2 });
    const { out } = await review({ sort: "total_desc", limit: 5 });
    expect(out.review).toMatchObject({ scanned: 1000, capped: false });
    expect(out.review.stopped).toBeUndefined();
    expect(up!.peakOpen).toBeLessThanOrEqual(2);
    const page = 100 * (16 + 2 * 5_000);
    expect(services.inflight.peak).toBeLessThanOrEqual(2 * 1024 * 1024 + 2 * page);
    expect(services.inflight.used).toBe(0);
    expect(JSON.stringify(out)).not.toContain("huge_field");
    const full = await review({ sort: "total_desc", limit: 1, view: "full" });
    expect(full.out.budgets[0]).toHaveProperty("huge_field");
  });
});

describe("every review fits the host", () => {
  const fits = (r: { text: string; out: unknown }) => {
    expect(r.text.length).toBeLessThanOrEqual(80_000);
    expect(JSON.stringify(r.out).length).toBeLessThanOrEqual(80_000);
  };

  it("20,000 distinct third parties: the largest groups, how many in all, and how to narrow", async () => {
    const { review } = await setUp(budgets(20_000, (i) => ({ third_parties_name: `Third party ${i}` })));
    const r = await review({ group_by: ["third_party"], max_records: 20_000 });
    fits(r);
    expect(r.out.complete).toBe(false);
    expect(r.out.review).toMatchObject({ scanned: 20_000, groups_total: 20_000 });
    expect(r.text.split("\n")[0]).toMatch(
      /in 20000 groups, the \d+ largest per currency shown \(narrow with fewer group_by keys or a filter/,
    );
  });

  it("group_by on five keys over 3,000 budgets", async () => {
    const { review } = await setUp(
      budgets(3_000, (i) => ({
        third_parties_name: `Third party ${i}`,
        costs_center_description: `Center ${i % 40}`,
      })),
    );
    const r = await review({
      group_by: ["cost_center", "third_party", "month", "status", "work_order_status"],
      max_records: 3_000,
    });
    fits(r);
    expect(r.out.complete).toBe(false);
    expect(r.out.review.groups_total).toBe(3_000);
    const three = await review({ group_by: ["cost_center", "status", "third_party"], max_records: 3_000 });
    fits(three);
  });
});
