/**
 * query_budgets answers an agent can trust alone (interface.md §6b), through the SDK client against
 * the sandbox, with the server's and the sandbox's clocks fixed: the window in full, relative and
 * open periods, complete or not, groups in key order with subtotals, the pending queue by age, what
 * an amount is (items_total, discount, net_total with MMS_BUDGET_DISCOUNT), and the detail view.
 * Expected figures come from the sandbox's raw records (plain fetch), summed here in integer cents.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SummaryRow } from "../../src/domain/budget-summary.js";
import { QueryBudgetsOutput } from "../../tools/query-budgets.js";
import { connect, textOf } from "../helpers/mcp.js";
import { useSandbox } from "../helpers/sandbox.js";
import { bearer, type Envelope, token } from "../sandbox/helpers.js";

type Raw = {
  folio: string;
  status: number;
  third_parties_name: string;
  third_parties_address: string;
  third_parties_email: string;
  third_parties_telephone_1: string;
  currency_description: string;
  date_create: string;
  discount: number | string;
  note: string;
  list_items: { total_cost: number }[];
};

const NOW = Date.parse("2026-06-15T12:00:00Z");
const DAY = 86_400_000;
const CODE: Record<string, string> = {
  "US Dollar": "USD",
  Euro: "EUR",
  "Chilean Peso": "CLP",
  "Peso chileno": "CLP",
  "Mexican Peso": "MXN",
  "Peso mexicano": "MXN",
  "Crédito interno": "Crédito interno",
};
const code = (b: Raw) => CODE[b.currency_description]!;
const cents = (b: Raw) => b.list_items.reduce((n, l) => n + Math.round(l.total_cost * 100), 0);
const ageDays = (b: Raw) => Math.floor(NOW / DAY) - Math.floor(Date.parse(b.date_create) / DAY);
const bucket = (d: number) =>
  d <= 7 ? "0-7" : d <= 30 ? "8-30" : d <= 60 ? "31-60" : d <= 90 ? "61-90" : "over 90";

const fx = useSandbox({ clock: { now: () => NOW } });
let mcp: Awaited<ReturnType<typeof connect>>;
let percent: Awaited<ReturnType<typeof connect>>;
/** Every budget of company 1 at every date, and those of the last 90 days (work-order creation). */
let all: Raw[];
let last90: Raw[];

async function rawSince(since: string): Promise<Raw[]> {
  const tok = await token(fx.sb);
  const out: Raw[] = [];
  for (let start = 0; ; start += 100) {
    const page = await bearer<Envelope<Raw[]>>(
      fx.sb,
      tok,
      "GET",
      `/api/wo_budget?since=${encodeURIComponent(since)}&until=${encodeURIComponent("2026-06-15T12:00:00+00")}&start=${start}&limit=100`,
    );
    out.push(...page.body.data);
    if (page.body.data.length < 100) return out;
  }
}

beforeAll(async () => {
  const now = () => new Date(NOW);
  mcp = await connect({ clients: fx.clients(), now });
  percent = await connect({ clients: fx.clients(), now, budgetDiscount: "percent" });
  all = await rawSince("1970-01-01T00:00:00+00");
  last90 = await rawSince("2026-03-17T12:00:00+00");
});
afterAll(async () => {
  await mcp.close();
  await percent.close();
});

async function call(args: Record<string, unknown>, client = mcp) {
  const result = await client.client.callTool({ name: "query_budgets", arguments: args });
  expect(result.isError, textOf(result)).toBeFalsy();
  const out = QueryBudgetsOutput.parse(result.structuredContent);
  return {
    out: { ...out, groups: out.groups as SummaryRow[] | undefined },
    text: textOf(result),
    lines: textOf(result).split("\n"),
  };
}

describe("query_budgets: the window in full", () => {
  it("answers 'over the last 90 days' in one call, stating the exact window and today", async () => {
    const { out, lines } = await call({ since: "P90D", group_by: ["status"] });
    expect(out.period).toEqual({
      since: "2026-03-17T12:00:00Z",
      until: "2026-06-15T12:00:00Z",
      type_date: "creation_date",
      default: false,
    });
    expect(out).toMatchObject({ today: "2026-06-15", complete: true, review: { scanned: last90.length } });
    expect(lines[0]).toBe(
      `[sandbox] All ${last90.length} budgets of the window (${last90.length} scanned; the API reports ${last90.length}), in ${new Set(last90.map((b) => `${b.status} ${code(b)}`)).size} groups. Window: work orders created 2026-03-17T12:00:00Z to 2026-06-15T12:00:00Z (P90D back from now; the work order's date; the budget's own: type_date budget_created); today 2026-06-15.`,
    );
    expect(lines).toContain(
      `Matched budgets were created (date_create) ${last90
        .map((b) => b.date_create)
        .sort()[0]!
        .slice(0, 10)} to ${last90
        .map((b) => b.date_create)
        .sort()
        .at(-1)!
        .slice(0, 10)}.`,
    );
  });

  it("answers 'all pending budgets, across all dates' in one call, complete, with no page-cap doubt", async () => {
    const pending = all.filter((b) => b.status === 1);
    const { out, lines } = await call({ since: "all", status: "pending", limit: 100 });
    expect(out).toMatchObject({
      complete: true,
      total: pending.length,
      returned: pending.length,
      next_start: null,
    });
    expect(out.period).toMatchObject({ since: null, until: "2026-06-15T12:00:00Z" });
    expect(lines[0]).toBe(
      `[sandbox] All ${pending.length} pending budgets of the window; the API reports ${pending.length}. Window: work orders created every date to 2026-06-15T12:00:00Z (the work order's date; the budget's own: type_date budget_created); today 2026-06-15.`,
    );
    // A page whose size equals the count is still complete, and says so.
    const exact = await call({ since: "all", status: "pending", limit: pending.length });
    expect(exact.out).toMatchObject({ complete: true, next_start: null });
    const paged = await call({ since: "all", status: "pending", limit: 10 });
    expect(paged.out.complete).toBe(false);
    expect(paged.lines[0]).toMatch(
      new RegExp(
        `^\\[sandbox\\] 10 of ${pending.length} pending budgets of the window, from start=0; the rest: start=10\\. Window: `,
      ),
    );
  });

  it("says a lookup covers every date", async () => {
    const { out, lines } = await call({ id: "104" });
    expect(out.period).toEqual({ since: null, until: null, type_date: "creation_date", default: false });
    expect(out.complete).toBe(true);
    expect(lines[0]).toBe(
      "[sandbox] The only budget of folio 104. Window: every date (lookup by folio 104); today 2026-06-15.",
    );
  });
});

describe("query_budgets: groups in order, with subtotals", () => {
  it("orders month groups chronologically, then by currency code", async () => {
    const { out } = await call({ since: "all", group_by: ["month"] });
    const keys = out.groups!.map((g) => [g.month!, g.currency]);
    const sorted = [...keys].sort((a, b) =>
      a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : a[1]! < b[1]! ? -1 : 1,
    );
    expect(keys).toEqual(sorted);
    expect(new Set(keys.map((k) => k[0])).size).toBeGreaterThan(2);
  });

  it("gives a per-third-party subtotal across currencies, equal to the raw records", async () => {
    const { out, text } = await call({ since: "all", group_by: ["third_party", "currency"] });
    const expected = new Map<string, { count: number; cents: Map<string, number> }>();
    for (const b of all) {
      const e = expected.get(b.third_parties_name) ?? { count: 0, cents: new Map() };
      e.count += 1;
      e.cents.set(code(b), (e.cents.get(code(b)) ?? 0) + cents(b));
      expected.set(b.third_parties_name, e);
    }
    const got = new Map(
      out.subtotals!.map((s) => [
        s.third_party as string,
        {
          count: s.count as number,
          cents: new Map(
            (s.totals as { currency: string; items_total: number }[]).map((m) => [
              m.currency,
              Math.round(m.items_total * 100),
            ]),
          ),
        },
      ]),
    );
    expect(got).toEqual(expected);
    expect(out.subtotals!.map((s) => s.third_party)).toEqual([...expected.keys()].sort());
    const andes = expected.get("Andes Mining (customer)")!;
    expect(text).toMatch(
      new RegExp(
        `^Andes Mining \\(customer\\) \\(CUS-001\\): ${andes.count} budgets: CLP [\\d,]+, "Crédito interno" \\(unmapped currency\\) [\\d,.]+, EUR [\\d,.]+, MXN [\\d,.]+, USD [\\d,.]+$`,
        "m",
      ),
    );
  });

  it("groups by age at today, and carries the pending queue per currency with all five buckets", async () => {
    const pending = all.filter((b) => b.status === 1);
    const { out } = await call({ since: "all", status: "pending", group_by: ["age", "currency"] });
    const order = ["0-7", "8-30", "31-60", "61-90", "over 90"];
    const ages = out.groups!.map((g) => order.indexOf(g.age!));
    expect(ages).toEqual([...ages].sort((a, b) => a - b));
    const expected = new Map<string, number[]>();
    for (const b of pending) {
      const counts = expected.get(code(b)) ?? [0, 0, 0, 0, 0];
      counts[order.indexOf(bucket(ageDays(b)))]! += 1;
      expected.set(code(b), counts);
    }
    expect(out.pending_age!.map((q) => q.currency)).toEqual([...expected.keys()].sort());
    for (const q of out.pending_age!) {
      const buckets = q.buckets as { age: string; count: number; items_total: number }[];
      expect(buckets.map((b) => b.age)).toEqual(order);
      expect(buckets.map((b) => b.count)).toEqual(expected.get(q.currency as string));
    }
    const usd = out.pending_age!.find((q) => q.currency === "USD")!.buckets as {
      age: string;
      items_total: number;
    }[];
    const usdCents = pending
      .filter((b) => code(b) === "USD" && bucket(ageDays(b)) === "8-30")
      .reduce((n, b) => n + cents(b), 0);
    expect(Math.round(usd[1]!.items_total * 100)).toBe(usdCents);
    // No pending budget among the matches: no queue.
    const approved = await call({ since: "all", status: "approved", group_by: ["currency"] });
    expect(approved.out.pending_age).toBeUndefined();
  });

  it("reads up to 100,000 budgets for a summary", async () => {
    const { out } = await call({ since: "all", max_records: 100_000, group_by: ["currency"] });
    expect(out).toMatchObject({ complete: true, review: { scanned: all.length } });
  });
});

describe("query_budgets: what an amount is", () => {
  it("defines items_total in the text and shows a discount as given, saying the API does not tell what it is", async () => {
    const { lines } = await call({ since: "all", currency: "USD", min_total: 1500 });
    expect(lines[1]).toBe(
      "items_total: the sum of a budget's line totals, before its discount and before taxes. discount: as the API gives it; the API does not say whether it is a percentage or an amount.",
    );
  });

  it("answers 'over 1,500' with the detail view: discount, note and lines, and no address, e-mail or phone", async () => {
    const over = all.filter((b) => code(b) === "USD" && cents(b) > 150_000);
    expect(over.length).toBeGreaterThan(0);
    const { out, text } = await call({
      since: "all",
      currency: "USD",
      min_total: 1500.01,
      view: "detail",
      all: true,
    });
    expect(out.budgets.map((b) => b.folio)).toEqual(over.map((b) => b.folio));
    const first = out.budgets[0]!;
    expect(Object.keys(first)).toEqual(expect.arrayContaining(["discount", "note", "lines", "items_total"]));
    expect(first.lines).toHaveLength(over[0]!.list_items.length);
    for (const b of over) {
      expect(text).not.toContain(b.third_parties_email);
      expect(text).not.toContain(b.third_parties_telephone_1);
      expect(text).not.toContain(b.third_parties_address);
    }
    expect(JSON.stringify(out)).not.toMatch(/third_parties_(address|email|telephone)/);
  });

  it("pins the detail view of one budget", async () => {
    const { text, out } = await call({ id: "104", view: "detail" });
    expect(text).toMatchInlineSnapshot(`
      "[sandbox] The only budget of folio 104. Window: every date (lookup by folio 104); today 2026-06-15.
      items_total: the sum of a budget's line totals, before its discount and before taxes. discount: as the API gives it; the API does not say whether it is a percentage or an amount.
      104 WO 4004 | pending approval | Maintenance | Industrial Supply Co. (SUP-001, supplier) | USD 0.30 (2 lines) discount 12.5 (net USD 0.26 if %, USD -12.20 if an amount, below zero: not its reading) | created 2026-06-07
        - type 1 Washer M6: 1 x USD 0.10 = USD 0.10
        - type 1 Washer M6: 1 x USD 0.20 = USD 0.20"
    `);
    expect(out.budgets[0]).toMatchInlineSnapshot(`
      {
        "approval_date": null,
        "cost_center": "Maintenance",
        "currency": "USD",
        "date_create": "2026-06-07",
        "discount": 12.5,
        "folio": "104",
        "items_total": 0.3,
        "line_count": 2,
        "lines": [
          {
            "description": "Washer M6",
            "qty": 1,
            "total_cost": 0.1,
            "type_resource": 1,
            "unit_cost": 0.1,
          },
          {
            "description": "Washer M6",
            "qty": 1,
            "total_cost": 0.2,
            "type_resource": 1,
            "unit_cost": 0.2,
          },
        ],
        "note": null,
        "status": 1,
        "status_label": "pending approval",
        "third_party": "Industrial Supply Co.",
        "third_party_code": "SUP-001",
        "third_party_role": "supplier",
        "wo_folio": "4004",
        "work_order_status": "in review",
      }
    `);
  });

  it("adds net_total with MMS_BUDGET_DISCOUNT=percent, and amount net bounds on it", async () => {
    // In thousandths of a cent: exact for discounts with one decimal, as the seed has.
    const net = (b: Raw) => cents(b) * (1000 - Math.round(Number(b.discount) * 10));
    const { out, lines } = await call({ id: "104" }, percent);
    expect(out.budgets[0]).toMatchObject({ items_total: 0.3, discount: 12.5, net_total: 0.26 });
    expect(lines[1]).toBe(
      "items_total: the sum of a budget's line totals, before its discount and before taxes. net_total: after the discount, read as a percentage (operator setting MMS_BUDGET_DISCOUNT).",
    );
    expect(lines[2]).toMatch(/USD 0\.30 \(2 lines\) discount 12\.5 net USD 0\.26 \|/);
    const usd = all.filter((b) => code(b) === "USD");
    const netOver = usd.filter((b) => net(b) >= 100_000_000).map((b) => b.folio);
    const itemsOver = usd.filter((b) => cents(b) >= 100_000).map((b) => b.folio);
    expect(netOver).not.toEqual(itemsOver);
    const byNet = await call(
      { since: "all", currency: "USD", amount: "net", min_total: 1000, all: true },
      percent,
    );
    expect(byNet.out.budgets.map((b) => b.folio)).toEqual(netOver);
    const groups = await call({ since: "all", currency: "USD", group_by: ["currency"] }, percent);
    expect(Math.round(groups.out.groups![0]!.net_total! * 100)).toBe(
      Math.round(usd.reduce((n, b) => n + net(b), 0) / 1000),
    );
  });
});
