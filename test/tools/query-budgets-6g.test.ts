/**
 * Answers that leave nothing to check (interface.md §6g), through the SDK client against the sandbox
 * with both clocks fixed: the date basis settled in one line (the same, differing, and not settled),
 * what settling costs upstream, every budget of the company read, third parties with code and role,
 * the oldest pending budget with its time and its day's others, ties at a ranking's edge, and a
 * discount read both ways. Expected answers come from the sandbox's state, which keeps each budget's
 * work-order creation and approval instants apart from its own date_create.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BudgetQuery, Clients } from "../../src/client/types.js";
import { netOf } from "../../src/domain/budget-view.js";
import { exact, toNumber } from "../../src/domain/money.js";
import type { StoredBudget } from "../../src/sandbox/state.js";
import { QueryBudgetsOutput } from "../../tools/query-budgets.js";
import { connect, textOf } from "../helpers/mcp.js";
import { testReviewServices } from "../helpers/review-services.js";
import { repeatBudgets, useSandbox } from "../helpers/sandbox.js";

const NOW = Date.parse("2026-06-15T12:00:00Z");
const DAY = 86_400_000;

const fx = useSandbox({ clock: { now: () => NOW } });
const big = useSandbox({ clock: { now: () => NOW } });
let mcp: Awaited<ReturnType<typeof connect>>;
let percent: Awaited<ReturnType<typeof connect>>;
let mine: StoredBudget[];
/** Every budget query the server sent upstream, in order. */
const sent: BudgetQuery[] = [];

/** Clients whose budget queries are counted (the real client, against the real sandbox). */
function counted(clients: Clients, log: BudgetQuery[]): Clients {
  const query = clients.api.queryBudgets.bind(clients.api);
  clients.api.queryBudgets = (q, o) => {
    log.push(q);
    return query(q, o);
  };
  return clients;
}

const now = () => new Date(NOW);
beforeAll(async () => {
  mcp = await connect({
    clients: counted(fx.clients(), sent),
    now,
    reviews: testReviewServices().forTenant(undefined),
  });
  percent = await connect({ clients: fx.clients(), now, budgetDiscount: "percent" });
  mine = fx.sb.state.budgets.filter((b) => b.companyId === 1);
});
afterAll(async () => {
  await mcp.close();
  await percent.close();
});

async function call(args: Record<string, unknown>, client = mcp) {
  const result = await client.client.callTool({ name: "query_budgets", arguments: args });
  expect(result.isError, textOf(result)).toBeFalsy();
  const out = QueryBudgetsOutput.parse(result.structuredContent);
  const raw = result.structuredContent as Record<string, unknown>;
  return { out, raw, text: textOf(result), review: out.review as Record<string, unknown> };
}

const created = (b: StoredBudget) => Date.parse(String(b.record.date_create));
const folios = (list: StoredBudget[]) => list.map((b) => b.record.folio).sort();
const inWindow = (at: number | null, since: number) => at !== null && at >= since && at <= NOW;
type Check = { type_date: string; same?: boolean; matched?: number; settled?: false };
const basesOf = (review: Record<string, unknown>) => review.bases as Check[];

describe("the date basis settled in the result", () => {
  it("approved CLP budgets of 90 days by cost center: the same on every basis, said in one line", async () => {
    const since = NOW - 90 * DAY;
    const clp = mine.filter((b) => b.record.status === 2 && b.record.id_currency === 3);
    const byWorkOrder = folios(clp.filter((b) => inWindow(b.dates.creation_date, since)));
    const byApproval = folios(clp.filter((b) => inWindow(b.dates.approval_date, since)));
    const byOwnDate = folios(clp.filter((b) => inWindow(created(b), since)));
    expect(byApproval).toEqual(byWorkOrder);
    expect(byOwnDate).toEqual(byWorkOrder);

    const { out, text, review } = await call({
      status: "approved",
      currency: "CLP",
      since: "P90D",
      group_by: ["cost_center"],
    });
    expect(review.matched).toBe(byWorkOrder.length);
    expect(basesOf(review)).toEqual([
      { type_date: "approval_date", same: true, matched: byWorkOrder.length },
      { type_date: "budget_created", same: true, matched: byWorkOrder.length },
    ]);
    expect(text).toContain(
      `\nThe same ${byWorkOrder.length} budgets match by approval date and by the budget's own date.`,
    );
    expect(out.complete).toBe(true);
  });

  it("rejected budgets of 20 days: the approval date differs, with its figures and the folio it adds", async () => {
    const since = NOW - 20 * DAY;
    const rejected = mine.filter((b) => b.record.status === 3);
    const byWorkOrder = folios(rejected.filter((b) => inWindow(b.dates.creation_date, since)));
    const byApproval = rejected.filter((b) => inWindow(b.dates.approval_date, since));
    const adds = folios(byApproval).filter((f) => !byWorkOrder.includes(f));
    const leaves = byWorkOrder.filter((f) => !folios(byApproval).includes(f));
    // The sandbox's data differ here, so the test means something.
    expect(adds.length + leaves.length).toBeGreaterThan(0);

    const { text, review } = await call({ status: "rejected", since: "P20D", group_by: ["month"] });
    const approval = basesOf(review).find((c) => c.type_date === "approval_date")!;
    expect(approval).toMatchObject({
      same: false,
      matched: byApproval.length,
      adds: adds.length,
      leaves_out: leaves.length,
    });
    const line = text.split("\n").find((l) => l.startsWith("By approval date: "))!;
    expect(line).toMatch(new RegExp(`^By approval date: ${byApproval.length} budgets, `));
    if (adds.length > 0) expect(line).toContain(`adds folio${adds.length === 1 ? "" : "s"} ${adds[0]}`);
    if (leaves.length > 0) expect(line).toContain("leaves out folio");
  });

  it("reads no budget twice: a later call on another basis is answered from the check's snapshot", async () => {
    sent.length = 0;
    await call({ status: "approved", since: "P30D", group_by: ["currency"] });
    const checks = sent.filter((q) => q.type_date !== undefined || q.limit === 1).length;
    // The review's page, then: the company's count of approved budgets (one record; none when an
    // earlier test's snapshot has it), the approval window and the lookback's pages.
    expect(sent.length - checks).toBe(1);
    expect(sent.filter((q) => q.limit === 1).length).toBeLessThanOrEqual(1);
    expect(checks).toBeLessThanOrEqual(4);
    sent.length = 0;
    const { text } = await call({ status: "approved", since: "P30D", type_date: "budget_created" });
    expect(text.split("\n")[0]).toMatch(/^\[sandbox\] As of .*a snapshot/);
    // Nothing is read upstream: the review and its checks, the company's count too, come from the snapshots.
    expect(sent).toEqual([]);
  });

  it("a list that holds its whole window settles it too: pending budgets over 30 days", async () => {
    const until = NOW - 30 * DAY;
    const pending = mine.filter((b) => b.record.status === 1);
    const old = pending.filter((b) => b.dates.creation_date <= until + 999);
    const ownOld = pending.filter((b) => created(b) <= until + 999);
    const { out, raw, text } = await call({
      status: "pending",
      since: "all",
      until: new Date(until).toISOString(),
      limit: 100,
    });
    expect(out.total).toBe(old.length);
    const all = pending.filter((b) => b.dates.creation_date <= until + 999).length;
    expect(raw.company).toEqual({ budgets: all, all_read: true });
    const same = folios(ownOld).join() === folios(old).join();
    expect(text).toContain(
      same
        ? `\nThe same ${old.length} budgets match by the budget's own date.`
        : `\nBy the budget's own date: ${ownOld.length} budgets, `,
    );
    expect(text).not.toContain("approval date");
  });

  it("says every budget of the company was read when the count says so", async () => {
    const { text, review } = await call({ since: "P120D", group_by: ["status"] });
    expect(review.company).toEqual({ budgets: mine.length, all_read: true });
    expect(text).toContain(
      `\nAll ${mine.length} budgets of the company were read (the API's count for every date).\n`,
    );
    const short = await call({ since: "P14D", group_by: ["status"] });
    expect(short.review.company).toBeUndefined();
    expect(short.text).not.toContain("of the company were read");
  });

  it("names the call that settles a basis too large to check within the review's own reads", async () => {
    repeatBudgets(big.sb, 4);
    const log: BudgetQuery[] = [];
    const server = await connect({
      clients: counted(big.clients(), log),
      now,
      reviews: testReviewServices().forTenant(undefined),
    });
    try {
      const { text, review } = await call({ since: "P7D", group_by: ["currency"] }, server);
      const own = basesOf(review).find((c) => c.type_date === "budget_created")!;
      expect(own).toMatchObject({ settled: false, why: "size" });
      expect(text).toContain(
        `by the budget's own date: not settled: it holds ${(own as unknown as { budgets: number }).budgets} budgets, more than a check reads (this call with type_date "budget_created" settles it)`,
      );
      // Settling reads at most the review's own budgets, or five pages: never the whole lookback.
      const read = log.filter((q) => q.limit !== 1).length;
      expect(read).toBeLessThanOrEqual(2 * Math.ceil((review.scanned as number) / 100) + 5);
    } finally {
      await server.close();
    }
  });
});

describe("who a third party is", () => {
  it("rows, groups and subtotals by third party show its code and role; third_party filters by code", async () => {
    const { out, text } = await call({ since: "P120D", group_by: ["third_party"] });
    const rows = out.groups as { third_party: string; third_party_code: string; third_party_role: string }[];
    expect(rows.find((g) => g.third_party === "EuroParts GmbH")).toMatchObject({
      third_party_code: "SUP-002",
      third_party_role: "supplier",
    });
    expect(rows.find((g) => g.third_party === "Andes Mining (customer)")).toMatchObject({
      third_party_code: "CUS-001",
      third_party_role: "customer",
    });
    expect(text).toMatch(/^EuroParts GmbH \(SUP-002, supplier\): \d+ budgets: /m);

    const byCode = await call({ since: "P120D", third_party: "sup-002", limit: 2 });
    const byName = await call({ since: "P120D", third_party: "europarts", limit: 2 });
    expect(byCode.out.total).toBe(mine.filter((b) => b.record.third_parties_code === "SUP-002").length);
    expect(byCode.out.total).toBe(byName.out.total);
    // The form results print, copied back, filters by its code.
    const printed = await call({
      since: "P120D",
      third_party: "EuroParts GmbH (SUP-002, supplier)",
      limit: 2,
    });
    expect(printed.out.total).toBe(byCode.out.total);
    const detail = await call({ since: "P120D", third_party: "SUP-002", limit: 1, view: "detail" });
    expect(detail.out.budgets[0]).toMatchObject({
      third_party_code: "SUP-002",
      third_party_role: "supplier",
    });
    expect(byCode.text).toContain(" | EuroParts GmbH (SUP-002, supplier) | ");
  });
});

describe("the oldest and the largest, with ties", () => {
  it("names the oldest pending budget by date and time, and the others created that day", async () => {
    const pending = mine.filter((b) => b.record.status === 1).sort((a, b) => created(a) - created(b));
    const [first, second] = pending as [StoredBudget, StoredBudget];
    const sameDay = pending.filter(
      (b) =>
        b !== first &&
        String(b.record.date_create).slice(0, 10) === String(first.record.date_create).slice(0, 10),
    );
    // The seed has two pending budgets on the oldest day.
    expect(sameDay.map((b) => b.record.folio)).toEqual([second.record.folio]);
    const at = (b: StoredBudget) => `${new Date(created(b)).toISOString().slice(0, 19)}Z`;

    const { text, review } = await call({ status: "pending", since: "all", group_by: ["currency"] });
    expect(review.oldest_pending).toMatchObject({
      folio: first.record.folio,
      created_at: at(first),
      same_day: [{ folio: second.record.folio, created_at: at(second) }],
      same_day_count: 1,
    });
    expect(text).toContain(
      `Oldest pending budget overall: folio ${first.record.folio} (work order ${first.record.wo_folio}), created ${at(first)}, `,
    );
    expect(text).toContain(
      `; created the same day, later: folio ${second.record.folio} (work order ${second.record.wo_folio}) at ${at(second).slice(11)}.`,
    );
  });

  it("a ranking says when the next budget ties the last one shown", async () => {
    const usd = mine
      .filter((b) => b.record.id_currency === 1 && (b.record.list_items as unknown[]).length === 0)
      .map((b) => b.record.folio);
    // Budgets without lines total USD 0.00: more than one, so a top 1 smallest has a tie.
    expect(usd.length).toBeGreaterThan(1);
    const { text, review } = await call({ since: "all", currency: "USD", sort: "total_asc", limit: 1 });
    const [tie] = review.ties as { last: string; next: string; amount: number }[];
    expect(tie).toMatchObject({ amount: 0 });
    expect(usd).toContain(tie!.last);
    expect(usd).toContain(tie!.next);
    expect(text).toContain(
      `The next budget, folio ${tie!.next}, ties the last one shown (folio ${tie!.last}) at USD 0.00 (start=1 shows it).`,
    );
  });
});

describe("discounts read both ways when the operator has not said", () => {
  it("each discounted line shows its net as a percentage and as an amount; a review totals both", async () => {
    const { out, text } = await call({
      status: "pending",
      currency: "USD",
      sort: "total_desc",
      limit: 5,
      since: "all",
    });
    const b = out.budgets.find((r) => Number(r.discount) > 0)!;
    const cur = { code: "USD", mapped: true };
    const as = (kind: "percent" | "amount") =>
      toNumber(netOf(exact(b.items_total as number), Number(b.discount), kind), cur).toFixed(2);
    expect(text).toContain(
      `discount ${b.discount} (net USD ${Number(as("percent")).toLocaleString("en-US", { minimumFractionDigits: 2 })} if %, USD `,
    );
    expect(text).toContain(` if an amount`);
    // The totals where the result shows totals: a summary.
    const summary = await call({ status: "pending", currency: "USD", since: "all", group_by: ["currency"] });
    const review = summary.review;
    const readings = review.discount_readings as {
      discounted: number;
      matched: number;
      totals: { currency: string; net_if_percent: number; net_if_amount: number }[];
    };
    const pendingUsd = mine.filter((r) => r.record.status === 1 && r.record.id_currency === 1);
    expect(readings.matched).toBe(pendingUsd.length);
    expect(readings.discounted).toBe(pendingUsd.filter((r) => Number(r.record.discount) !== 0).length);
    const [usd] = readings.totals;
    const before = pendingUsd.reduce(
      (n, r) => n + (r.record.list_items as { total_cost: number }[]).reduce((m, l) => m + l.total_cost, 0),
      0,
    );
    expect(usd!.net_if_percent).toBeLessThan(before);
    expect(usd!.net_if_amount).toBeLessThan(before);
    expect(summary.text).toMatch(
      /\nDiscounts: \d+ of the \d+ matching budgets have one; items_total after them, read as percentages: USD [\d,.]+; as amounts: USD [\d,.]+\.\n/,
    );
  });

  it("with MMS_BUDGET_DISCOUNT set, net_total says it and no reading is offered", async () => {
    const { text } = await call(
      { status: "pending", currency: "USD", sort: "total_desc", limit: 5, since: "all" },
      percent,
    );
    const { review } = await call({ status: "pending", since: "all", group_by: ["currency"] }, percent);
    expect(review.discount_readings).toBeUndefined();
    expect(text).not.toContain("if %");
    expect(text).not.toContain("Discounts: ");
  });
});
