/**
 * Dates and words in the user's terms (interface.md §6d), through the SDK client against the sandbox
 * with both clocks fixed. The sandbox keeps each budget's work-order creation date (what the API's
 * creation_date filters on) apart from the budget's own date_create (1 to 48 hours later), so the
 * expected answers come from its state: which budgets a window on each date holds, the months on
 * each basis, the oldest pending budget.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SummaryRow } from "../../src/domain/budget-summary.js";
import type { StoredBudget } from "../../src/sandbox/state.js";
import { QueryBudgetsOutput } from "../../tools/query-budgets.js";
import { connect, textOf } from "../helpers/mcp.js";
import { useSandbox } from "../helpers/sandbox.js";

const NOW = Date.parse("2026-06-15T12:00:00Z");
const DAY = 86_400_000;
const SINCE = NOW - 14 * DAY;

const fx = useSandbox({ clock: { now: () => NOW } });
let mcp: Awaited<ReturnType<typeof connect>>;
let shortLookback: Awaited<ReturnType<typeof connect>>;
let mine: StoredBudget[];

const created = (b: StoredBudget) => Date.parse(String(b.record.date_create));
const folios = (list: StoredBudget[]) => list.map((b) => b.record.folio).sort();

beforeAll(async () => {
  const now = () => new Date(NOW);
  mcp = await connect({ clients: fx.clients(), now });
  shortLookback = await connect({ clients: fx.clients(), now, budgetLookbackDays: 1 });
  mine = fx.sb.state.budgets.filter((b) => b.companyId === 1);
});
afterAll(async () => {
  await mcp.close();
  await shortLookback.close();
});

async function call(args: Record<string, unknown>, client = mcp) {
  const result = await client.client.callTool({ name: "query_budgets", arguments: args });
  expect(result.isError, textOf(result)).toBeFalsy();
  const out = QueryBudgetsOutput.parse(result.structuredContent);
  return { out: { ...out, groups: out.groups as SummaryRow[] | undefined }, text: textOf(result) };
}

describe("which date a window is on", () => {
  it("the tool description tells an agent which type_date answers 'budgets created in ...'", async () => {
    const { tools } = await mcp.client.listTools();
    const tool = tools.find((t) => t.name === "query_budgets")!;
    expect(tool.description).toContain('Budgets created in a period: type_date "budget_created".');
    const typeDate = (tool.inputSchema.properties as Record<string, { description: string; enum: string[] }>)
      .type_date!;
    expect(typeDate.description).toContain("WORK ORDER");
    expect(typeDate.enum).toContain("budget_created");
  });

  it("says in words that creation_date is the work order's, and keeps the API's name in structuredContent", async () => {
    const { out, text } = await call({ since: "P14D", limit: 1 });
    expect(out.period).toMatchObject({ type_date: "creation_date" });
    expect(text.split("\n")[0]).toContain(
      "Window: work orders created 2026-06-01T12:00:00Z to 2026-06-15T12:00:00Z (P14D back from now; the work order's date; the budget's own: type_date budget_created)",
    );
    const approved = await call({ since: "P14D", type_date: "approval_date", limit: 1 });
    expect(approved.text.split("\n")[0]).toContain("Window: budgets approved 2026-06-01T12:00:00Z");
    expect(approved.out.period).toMatchObject({ type_date: "approval_date" });
  });

  it("budget_created: the budgets created in the window, not those of the work orders created in it", async () => {
    const wanted = mine.filter((b) => created(b) >= SINCE && created(b) <= NOW);
    const byWorkOrder = mine.filter((b) => b.dates.creation_date >= SINCE && b.dates.creation_date <= NOW);
    // The sandbox's data has both kinds of difference at the window's start, so the test means something.
    expect(folios(wanted)).not.toEqual(folios(byWorkOrder));

    const { out, text } = await call({ since: "P14D", type_date: "budget_created", all: true });
    expect(out.budgets.map((b) => b.folio).sort()).toEqual(folios(wanted));
    expect(out).toMatchObject({ total: wanted.length, complete: true });
    expect(out.period).toEqual({
      since: "2026-06-01T12:00:00Z",
      until: "2026-06-15T12:00:00Z",
      type_date: "budget_created",
      default: false,
      work_orders_since: "2025-06-01T12:00:00Z",
      lookback_days: 365,
    });
    expect(text.split("\n")[0]).toBe(
      `[sandbox] All ${wanted.length} budgets of the window (${out.review!.scanned} scanned; the API reports ${out.review!.scanned}). Window: budgets created 2026-06-01T12:00:00Z to 2026-06-15T12:00:00Z (P14D back from now), from the work orders created since 2025-06-01T12:00:00Z (MMS_BUDGET_LOOKBACK_DAYS=365; complete for budgets created within 365 days of their work order); today 2026-06-15.`,
    );
    // The upstream query is the work orders' window: every budget of a work order created since the lookback.
    const read = mine.filter(
      (b) => b.dates.creation_date >= SINCE - 365 * DAY && b.dates.creation_date <= NOW,
    );
    expect(out.review!.scanned).toBe(read.length);
  });

  it("answers 'which work orders got more than one budget in the last two weeks?' in one call", async () => {
    const { out } = await call({ since: "P14D", type_date: "budget_created", all: true });
    const count = (list: { wo_folio: unknown }[]) => {
      const n = new Map<unknown, number>();
      for (const b of list) n.set(b.wo_folio, (n.get(b.wo_folio) ?? 0) + 1);
      return [...n].filter(([, c]) => c > 1).map(([wo]) => wo);
    };
    const truth = count(
      mine.filter((b) => created(b) >= SINCE && created(b) <= NOW).map((b) => b.record),
    ).sort();
    expect(truth.length).toBeGreaterThan(0);
    expect(count(out.budgets as { wo_folio: unknown }[]).sort()).toEqual(truth);
  });

  it("reads the work orders from MMS_BUDGET_LOOKBACK_DAYS before since, and says so: a shorter lookback misses what it says it may", async () => {
    const { out, text } = await call(
      { since: "P14D", type_date: "budget_created", all: true },
      shortLookback,
    );
    const wanted = mine.filter(
      (b) => created(b) >= SINCE && created(b) <= NOW && b.dates.creation_date >= SINCE - DAY,
    );
    expect(out.budgets.map((b) => b.folio).sort()).toEqual(folios(wanted));
    expect(out.period).toMatchObject({ lookback_days: 1, work_orders_since: "2026-05-31T12:00:00Z" });
    expect(text).toContain(
      "(MMS_BUDGET_LOOKBACK_DAYS=1; complete for budgets created within 1 days of their work order)",
    );
  });

  it("budget_created keeps the other filters and summaries working on the kept budgets", async () => {
    const wanted = mine.filter((b) => created(b) >= SINCE && created(b) <= NOW && b.record.status === 1);
    const { out } = await call({
      since: "P14D",
      type_date: "budget_created",
      status: "pending",
      group_by: ["status"],
    });
    expect(out.groups!.reduce((n, g) => n + g.count, 0)).toBe(wanted.length);
  });
});

describe("months follow the date asked for", () => {
  const tally = (months: (string | null)[]) => {
    const n = new Map<string | null, number>();
    for (const m of months) n.set(m, (n.get(m) ?? 0) + 1);
    return Object.fromEntries([...n].sort());
  };
  const rows = (groups: SummaryRow[]) => {
    const n = new Map<string | null, number>();
    for (const g of groups) n.set(g.month ?? null, (n.get(g.month ?? null) ?? 0) + g.count);
    return Object.fromEntries([...n].sort());
  };

  it("approval_date: by the approval month, and says so", async () => {
    const { out, text } = await call({ since: "all", type_date: "approval_date", group_by: ["month"] });
    const approved = mine.filter((b) => b.dates.approval_date !== null);
    expect(rows(out.groups!)).toEqual(tally(approved.map((b) => String(b.record.approval_date).slice(0, 7))));
    expect(text).toContain("month: the month the budget was approved (approval_date)");
  });

  it("creation_date: by the budget's creation month, saying it is not the work order's", async () => {
    const { out, text } = await call({ since: "all", group_by: ["month"] });
    expect(rows(out.groups!)).toEqual(tally(mine.map((b) => String(b.record.date_create).slice(0, 7))));
    expect(text).toContain("month: the month the budget was created (its date_create), not the work order's");
  });
});

describe("the single oldest pending budget", () => {
  it("names it overall (folio, work order, age, its group) besides the oldest per group", async () => {
    const pending = mine.filter((b) => b.record.status === 1).sort((a, b) => created(a) - created(b));
    const first = pending[0]!;
    const { out, text } = await call({
      since: "all",
      status: "pending",
      group_by: ["cost_center"],
    });
    const age = Math.floor(NOW / DAY) - Math.floor(created(first) / DAY);
    expect(out.review!.oldest_pending).toMatchObject({
      folio: first.record.folio,
      wo_folio: first.record.wo_folio,
      age_days: age,
      group: { cost_center: first.record.costs_center_description },
    });
    const ages = out.groups!.map((g) => g.oldest_pending_days!);
    expect(Math.max(...ages)).toBe(age);
    expect(text).toContain(
      `Oldest pending budget overall: folio ${first.record.folio} (work order ${first.record.wo_folio}), created ${String(first.record.date_create).slice(0, 19)}Z, ${age} days ago; its group: cost_center ${first.record.costs_center_description}, currency `,
    );
  });

  it("a list review of pending budgets names it too; a review with no pending match does not", async () => {
    const { out } = await call({
      since: "all",
      status: "pending",
      currency: "USD",
      sort: "total_desc",
      limit: 3,
    });
    expect(out.review!.oldest_pending).toBeDefined();
    const approved = await call({ since: "all", status: "approved", group_by: ["currency"] });
    expect(approved.out.review!.oldest_pending).toBeUndefined();
    expect(approved.text).not.toContain("Oldest pending");
  });
});
