/**
 * query_budgets as a budget reviewer uses it (interface.md §6), through the SDK client against the
 * sandbox. Expected figures come from the sandbox's own records, read over its REST API with a
 * plain fetch and summed here in integer cents: never through the tool or the server's money code.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SummaryRow } from "../../src/domain/budget-summary.js";
import { QueryBudgetsOutput } from "../../tools/query-budgets.js";
import { connect, textOf } from "../helpers/mcp.js";
import { useSandbox } from "../helpers/sandbox.js";
import { bearer, type Envelope, token } from "../sandbox/helpers.js";

type Raw = {
  folio: string;
  wo_folio: string;
  status: number;
  id_cost_center: number;
  costs_center_description: string;
  third_parties_name: string;
  third_parties_code: string;
  currency_description: string;
  date_create: string;
  list_items: { total_cost: number }[];
};

// The seed's currency names and the codes a reader expects; "Crédito interno" names no ISO currency.
const CODE: Record<string, string> = {
  "US Dollar": "USD",
  Euro: "EUR",
  "Chilean Peso": "CLP",
  "Peso chileno": "CLP",
  "Mexican Peso": "MXN",
  "Peso mexicano": "MXN",
  "Crédito interno": "Crédito interno",
};
const DAY = 86_400_000;
// One clock for the server and the sandbox's seed; the expected figures read it too.
const NOW = Date.parse("2026-12-01T12:00:00Z");
const SINCE = new Date(NOW - 90 * DAY).toISOString().slice(0, 10);

const fx = useSandbox({ clock: { now: () => NOW } });
let mcp: Awaited<ReturnType<typeof connect>>;
let raw: Raw[];
beforeAll(async () => {
  mcp = await connect({ clients: fx.clients(), now: () => new Date(NOW) });
  const tok = await token(fx.sb);
  raw = [];
  for (let start = 0; ; start += 100) {
    const page = await bearer<Envelope<Raw[]>>(
      fx.sb,
      tok,
      "GET",
      `/api/wo_budget?since=${SINCE}T00:00:00%2B00&start=${start}&limit=100`,
    );
    raw.push(...page.body.data);
    if (page.body.data.length < 100) break;
  }
});
afterAll(() => mcp.close());

const call = async (args: Record<string, unknown>, onprogress?: (p: { progress: number }) => void) => {
  const result = await mcp.client.callTool(
    { name: "query_budgets", arguments: args },
    undefined,
    onprogress ? { onprogress } : undefined,
  );
  expect(result.isError, textOf(result)).toBeFalsy();
  const out = QueryBudgetsOutput.parse(result.structuredContent);
  return { out: { ...out, groups: out.groups as SummaryRow[] | undefined }, text: textOf(result), result };
};
const cents = (b: Raw) => b.list_items.reduce((n, l) => n + Math.round(l.total_cost * 100), 0);
const code = (b: Raw) => CODE[b.currency_description]!;

/** count and cents per key, from the raw records. */
function oracle(records: Raw[], key: (b: Raw) => string) {
  const out = new Map<string, { count: number; cents: number }>();
  for (const b of records) {
    const k = key(b);
    const g = out.get(k) ?? { count: 0, cents: 0 };
    g.count += 1;
    g.cents += cents(b);
    out.set(k, g);
  }
  return out;
}

describe("query_budgets review", () => {
  it("has a seed worth reviewing", () => {
    expect(raw.length).toBeGreaterThan(200);
    expect(new Set(raw.map(code)).size).toBe(5);
  });

  it("totals per currency and cost center in one call equal the sums of the raw records", async () => {
    const progress: number[] = [];
    const { out, text } = await call({ since: SINCE, group_by: ["currency", "cost_center"] }, (p) =>
      progress.push(p.progress),
    );
    expect(out.view).toBe("summary");
    expect(out.budgets).toEqual([]);
    expect(out.review).toMatchObject({ scanned: raw.length, matched: raw.length, capped: false });
    expect(progress.at(-1)).toBe(raw.length);
    const expected = oracle(raw, (b) => `${code(b)}|${b.costs_center_description}`);
    const got = new Map(
      out.groups!.map((g) => [
        `${g.currency}|${g.cost_center}`,
        { count: g.count, cents: Math.round(g.items_total * 100) },
      ]),
    );
    expect(got).toEqual(expected);
    // Every amount in the text carries its code; no bare symbol, no cross-currency sum.
    const money =
      /(?:USD|EUR|MXN) [\d,]+\.\d\d|CLP [\d,]+|"Crédito interno" \(unmapped currency\) [\d,]+\.\d\d/;
    const rows = text.split("\n").filter((l) => / \| \d+( \| \d+)?$/.test(l));
    expect(text.split("\n")[2]).toBe("cost_center | items_total | count | oldest pending (days)");
    expect(rows).toHaveLength(expected.size);
    for (const row of rows)
      expect(row).toMatch(new RegExp(`^[^|]+ \\| (${money.source}) \\| \\d+( \\| \\d+)?$`));
    expect(text).not.toContain("$");
  });

  it("summarizes pending budgets per currency with dates and the age of the oldest", async () => {
    const { out } = await call({ since: SINCE, status: "pending", group_by: ["currency"] });
    const pending = raw.filter((b) => b.status === 1);
    for (const [cur, { count, cents: c }] of oracle(pending, code)) {
      const row = out.groups!.find((g) => g.currency === cur)!;
      expect(row).toMatchObject({ count });
      expect(Math.round(row.items_total * 100)).toBe(c);
      const dates = pending
        .filter((b) => code(b) === cur)
        .map((b) => b.date_create)
        .sort();
      expect(row.oldest).toBe(dates[0]!.slice(0, 10));
      expect(row.newest).toBe(dates.at(-1)!.slice(0, 10));
      // Whole UTC calendar days, as the age buckets count them.
      const age = Math.floor(NOW / DAY) - Math.floor(Date.parse(dates[0]!) / DAY);
      expect(row.oldest_pending_days).toBe(age);
    }
  });

  it("gives the top N by total within one currency", async () => {
    const { out, text } = await call({
      since: SINCE,
      status: "pending",
      currency: "US Dollar",
      sort: "total_desc",
      limit: 3,
    });
    const usd = raw.filter((b) => b.status === 1 && code(b) === "USD").sort((a, b) => cents(b) - cents(a));
    expect(out.budgets.map((b) => Math.round((b.items_total as number) * 100))).toEqual(
      usd.slice(0, 3).map(cents),
    );
    expect(out).toMatchObject({ total: usd.length, returned: 3, next_start: 3 });
    expect(out.budgets.every((b) => b.currency === "USD")).toBe(true);
    expect(text.split("\n")[2]).toMatch(/ \| USD [\d,]+\.\d\d \(\d+ lines?\)/);
    const oldest = await call({ since: SINCE, sort: "date_asc", limit: 1 });
    expect(oldest.out.budgets[0]!.date_create).toBe(
      raw
        .map((b) => b.date_create)
        .sort()[0]!
        .slice(0, 10),
    );
  });

  it.each([
    ["currency by Spanish name", { currency: "peso chileno" }, (b: Raw) => code(b) === "CLP"],
    ["currency list", { currency: ["usd", "Euros"] }, (b: Raw) => ["USD", "EUR"].includes(code(b))],
    ["unmapped currency by name", { currency: "credito interno" }, (b: Raw) => code(b) === "Crédito interno"],
    ["cost center by id", { cost_center: "702" }, (b: Raw) => b.id_cost_center === 702],
    [
      "cost center by description",
      { cost_center: "maintenance" },
      (b: Raw) => b.costs_center_description === "Maintenance",
    ],
    ["third party by code", { third_party: "sup-002" }, (b: Raw) => b.third_parties_code === "SUP-002"],
    [
      "third party by part of the name",
      { third_party: "ANDES" },
      (b: Raw) => /andes/i.test(b.third_parties_name),
    ],
    [
      "total bounds in the budget's currency",
      { currency: "USD", min_total: 100, max_total: 500 },
      (b: Raw) => code(b) === "USD" && cents(b) >= 10_000 && cents(b) <= 50_000,
    ],
  ])("filters: %s", async (_name, args, keep) => {
    const { out } = await call({ since: SINCE, all: true, ...args });
    const expected = raw.filter(keep).map((b) => b.folio);
    expect(expected.length).toBeGreaterThan(0);
    expect(out.review).toMatchObject({ scanned: raw.length, matched: expected.length });
    expect(out.budgets.map((b) => b.folio)).toEqual(expected);
  });

  it("says when a currency argument names no known currency, and refuses crossed bounds", async () => {
    const { out } = await call({ since: SINCE, currency: "doubloons", group_by: ["currency"] });
    expect(out.review).toMatchObject({ matched: 0 });
    expect(out.notes).toContainEqual({
      code: "currency_filter_unknown",
      params: { currency: "doubloons" },
      text: 'currency "doubloons" is no ISO 4217 code or currency name known to Intl: matched by name as written only.',
    });
    const crossed = await mcp.client.callTool({
      name: "query_budgets",
      arguments: { min_total: 10, max_total: 5 },
    });
    expect(crossed.isError).toBe(true);
    expect(textOf(crossed)).toMatch(/min_total \(10\) is above max_total \(5\); swap them/);
  });

  it("reports a cap reached, with how to go on", async () => {
    const { out, text } = await call({ since: SINCE, max_records: 50, group_by: ["status"], fresh: true });
    expect(out.review).toMatchObject({ scanned: 50, capped: true });
    expect(out.complete).toBe(false);
    expect(out.groups!.reduce((n, g) => n + g.count, 0)).toBe(50);
    expect(text.split("\n")[0]).toMatch(
      new RegExp(
        `^\\[sandbox\\] Partial: scanned 50 of ${raw.length} budgets of the window \\(max_records=50\\), 50 match; for all of them, call again with max_records=${raw.length} \\(the budgets already read are not read again; the rest at the pace the upstream allows, resumable\\); in \\d+ groups\\. Window: `,
      ),
    );
    const all = await call({ since: SINCE, max_records: raw.length, group_by: ["status"] });
    expect(all.out).toMatchObject({ complete: true, review: { scanned: raw.length, capped: false } });
    expect(all.text).toMatch(
      new RegExp(
        `^\\[sandbox\\] As of \\d\\d:\\d\\d:\\d\\dZ, \\d+ s ago \\(a snapshot; fresh: true reads again\\): All ${raw.length} budgets of the window \\(${raw.length} scanned; the API reports ${raw.length}\\), in \\d+ groups\\.`,
      ),
    );
  });

  it("names a currency it cannot map, keeps it apart, and says so", async () => {
    const { out, text } = await call({ since: SINCE, group_by: ["currency"] });
    const row = out.groups!.find((g) => g.currency === "Crédito interno");
    expect(row).toMatchObject({
      currency_unmapped: true,
      count: raw.filter((b) => code(b) === "Crédito interno").length,
    });
    expect(out.notes).toContainEqual({
      code: "currency_unmapped",
      params: { name: "Crédito interno" },
      text: 'Currency "Crédito interno" has no ISO 4217 code: shown under that name, never added to another currency.',
    });
    expect(text).toMatch(/^"Crédito interno" \(unmapped currency\) [\d,]+\.\d\d \| \d+/m);
  });

  it("sums cents exactly: 0.10 + 0.20 is 0.30", async () => {
    const { out, text } = await call({ id: 104 });
    expect(out.budgets[0]).toMatchObject({ folio: "104", items_total: 0.3, line_count: 2 });
    expect(text).toMatch(/\| (USD|EUR) 0\.30 \(2 lines\)/);
    const cents104 = raw.find((b) => b.folio === "104");
    if (cents104) expect(cents104.list_items.reduce((n, l) => n + l.total_cost, 0)).not.toBe(0.3);
  });

  it("maps Spanish currency names to their codes in records", async () => {
    const spanish = raw.find((b) => b.currency_description === "Peso chileno")!;
    const { out, text } = await call({ id: spanish.folio });
    expect(out.budgets[0]).toMatchObject({ currency: "CLP", items_total: cents(spanish) / 100 });
    expect(text).toMatch(/\| CLP [\d,]+ \(/);
  });

  it("looks up by folio or work order at any date, with numbers and 'rejected' accepted", async () => {
    const old = raw.find((b) => Date.parse(b.date_create) < NOW - 45 * DAY)!;
    const byId = await call({ id: Number(old.folio) });
    expect(byId.out.budgets.map((b) => b.folio)).toEqual([old.folio]);
    const shared = raw.find((b) => raw.filter((o) => o.wo_folio === b.wo_folio).length === 2)!;
    const byWo = await call({ wo_folio: Number(shared.wo_folio) });
    expect(byWo.out.budgets.map((b) => b.wo_folio)).toEqual([shared.wo_folio, shared.wo_folio]);
    const rejected = await call({ since: SINCE, status: "rejected", limit: 100 });
    expect(rejected.out.total).toBe(raw.filter((b) => b.status === 3).length);
  });

  it("all=true reads only the pages one result can carry, and next_start reaches the rest once each", async () => {
    const gets = () => fx.sb.faults.requestCount["GET /api/wo_budget"] ?? 0;
    const args = { since: SINCE, all: true, view: "full", max_records: 10_000 };
    const before = gets();
    const { out, result } = await call(args);
    const pagesRead = gets() - before;
    expect(JSON.stringify(result.structuredContent).length).toBeLessThanOrEqual(80_000);
    expect(out.returned).toBeLessThan(raw.length);
    // A full budget is ~4 KB: about 20 fit, so the walk stops after a page or two, not all of them.
    expect(pagesRead).toBeLessThan(Math.ceil(raw.length / 100));
    expect(textOf(result)).toContain(`continue with start=${out.next_start}`);
    const folios = out.budgets.map((b) => b.folio);
    let next = out.next_start;
    while (next !== null) {
      const page = await call({ ...args, start: next });
      folios.push(...page.out.budgets.map((b) => b.folio));
      next = page.out.next_start;
    }
    expect(folios).toEqual(raw.map((b) => b.folio));
  });

  it("cuts a review page by size, with the rest reachable through next_start", async () => {
    const { out, result } = await call({ since: SINCE, sort: "date_desc", all: true, view: "full" });
    expect(JSON.stringify(result.structuredContent).length).toBeLessThanOrEqual(80_000);
    expect(textOf(result).length).toBeLessThanOrEqual(80_000);
    expect(out.returned).toBeLessThan(raw.length);
    expect(out.next_start).toBe(out.returned);
    const folios = out.budgets.map((b) => b.folio);
    let next = out.next_start;
    while (next !== null) {
      const page = await call({ since: SINCE, sort: "date_desc", all: true, view: "full", start: next });
      folios.push(...page.out.budgets.map((b) => b.folio));
      next = page.out.next_start;
    }
    expect(new Set(folios).size).toBe(raw.length);
    expect(folios).toHaveLength(raw.length);
  });
});
