/**
 * query_budgets in a manager's words (interface.md §8b), through the SDK client against the
 * sandbox: largest in each currency, one status said once, options that exist, budgets per work
 * order, notes as codes, error results marked [sandbox], output schemas without type unions.
 * Expected figures come from the sandbox's records read over its REST API with a plain fetch.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOTE_CODES } from "../../src/domain/notes.js";
import { QueryBudgetsOutput } from "../../tools/query-budgets.js";
import { connect, textOf } from "../helpers/mcp.js";
import { useSandbox } from "../helpers/sandbox.js";
import { bearer, type Envelope, token } from "../sandbox/helpers.js";

type Raw = { folio: string; wo_folio: string | null; status: number; currency_description: string };

const fx = useSandbox();
let mcp: Awaited<ReturnType<typeof connect>>;
let raw: Raw[];
beforeAll(async () => {
  mcp = await connect({ clients: fx.clients() });
  const tok = await token(fx.sb);
  raw = [];
  for (let start = 0; ; start += 100) {
    const page = await bearer<Envelope<Raw[]>>(
      fx.sb,
      tok,
      "GET",
      `/api/wo_budget?since=2000-01-01T00:00:00%2B00&start=${start}&limit=100`,
    );
    raw.push(...page.body.data);
    if (page.body.data.length < 100) break;
  }
});
afterAll(() => mcp.close());

const call = async (args: Record<string, unknown>, client = mcp.client) => {
  const result = await client.callTool({ name: "query_budgets", arguments: args });
  expect(result.isError, textOf(result)).toBeFalsy();
  return { out: QueryBudgetsOutput.parse(result.structuredContent), text: textOf(result) };
};
type Notes = { code: string; text: string; params?: Record<string, unknown> }[];
const notesOf = (out: { notes?: unknown[] | undefined }) => (out.notes ?? []) as Notes;

describe("query_budgets in a manager's words", () => {
  it("ranks the largest within each currency, with each currency's count, never by currency name", async () => {
    const { out, text } = await call({ status: "pending", since: "all", sort: "total_desc", limit: 3 });
    const rankings = out.rankings as { currency: string; matched: number; returned: number }[];
    expect(rankings.length).toBeGreaterThan(1);
    expect(rankings.map((r) => r.currency)).toContain("USD");
    // The currency with the most pending budgets first; each part the top 3 of its own currency.
    expect(rankings.map((r) => r.matched)).toEqual(rankings.map((r) => r.matched).sort((a, b) => b - a));
    let at = 0;
    for (const r of rankings) {
      const part = out.budgets.slice(at, at + r.returned) as { currency: string; items_total: number }[];
      expect(r.returned).toBe(Math.min(3, r.matched));
      expect(part.every((b) => b.currency === r.currency)).toBe(true);
      expect(part.map((b) => b.items_total)).toEqual(part.map((b) => b.items_total).sort((a, b) => b - a));
      expect(text).toContain(`${r.currency}: ${r.returned} of ${r.matched} budget`);
      at += r.returned;
    }
    expect(at).toBe(out.budgets.length);
    expect(notesOf(out)).toContainEqual(
      expect.objectContaining({
        code: "mixed_currencies_sorted",
        params: { currencies: rankings.length, per_currency: 3 },
      }),
    );
    // One currency asked: one ranking, as before.
    const usd = await call({
      status: "pending",
      since: "all",
      sort: "total_desc",
      limit: 3,
      currency: "USD",
    });
    expect(notesOf(usd.out).map((n) => n.code)).not.toContain("mixed_currencies_sorted");
    expect(usd.out.budgets.every((b) => b.currency === "USD")).toBe(true);
  });

  it("says once that rejected is also cancelled; status cancelled is the same set; a rejection is 'decided'", async () => {
    const rejected = await call({ status: "rejected", since: "all", all: true });
    const cancelled = await call({ status: "cancelled", since: "all", all: true });
    const expected = raw.filter((b) => b.status === 3).map((b) => b.folio);
    expect(expected.length).toBeGreaterThan(0);
    expect(rejected.out.budgets.map((b) => b.folio)).toEqual(expected);
    expect(cancelled.out.budgets.map((b) => b.folio)).toEqual(expected);
    expect(notesOf(rejected.out).filter((n) => n.code === "rejected_includes_cancelled")).toHaveLength(1);
    expect(notesOf(cancelled.out).map((n) => n.code)).toContain("cancelled_same_as_rejected");
    expect(rejected.out.budgets.every((b) => b.status_label === "rejected")).toBe(true);
    const decided = rejected.text.split("\n").filter((l) => / \| rejected \| /.test(l));
    expect(decided.length).toBeGreaterThan(0);
    expect(decided.some((l) => / \| decided \d{4}-\d\d-\d\d$/.test(l))).toBe(true);
    expect(decided.some((l) => / \| approved \d/.test(l))).toBe(false);
    expect(rejected.text.match(/platform records cancelled budgets the same way/g)).toHaveLength(1);
  });

  it("offers amount only where MMS_BUDGET_DISCOUNT is set; an error result on the sandbox says [sandbox]", async () => {
    const plain = (await mcp.client.listTools()).tools.find((t) => t.name === "query_budgets")!;
    expect(plain.inputSchema.properties).not.toHaveProperty("amount");
    expect(plain.description).toContain('amount "net" needs MMS_BUDGET_DISCOUNT.');
    const refused = await mcp.client.callTool({ name: "query_budgets", arguments: { amount: "net" } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      /^\[sandbox\] Invalid arguments for query_budgets: amount needs MMS_BUDGET_DISCOUNT=/,
    );
    const net = await connect({ clients: fx.clients(), budgetDiscount: "percent" });
    try {
      const listed = (await net.client.listTools()).tools.find((t) => t.name === "query_budgets")!;
      expect(listed.inputSchema.properties).toHaveProperty("amount.enum", ["items", "net"]);
      expect(listed.description).not.toContain("needs MMS_BUDGET_DISCOUNT");
      const { out } = await call({ since: "all", amount: "net", sort: "total_desc", limit: 1 }, net.client);
      expect(out.budgets[0]).toHaveProperty("net_total");
    } finally {
      await net.close();
    }
  });

  it("group_by work_order names the work orders with more than one budget first, with folios and statuses", async () => {
    const { out, text } = await call({ since: "all", group_by: ["work_order"] });
    const byWo = new Map<string, Raw[]>();
    for (const b of raw) if (b.wo_folio !== null) byWo.set(b.wo_folio, [...(byWo.get(b.wo_folio) ?? []), b]);
    const repeated = [...byWo.entries()].filter(([, list]) => list.length > 1);
    expect(repeated.length).toBeGreaterThan(0);
    const listed = out.repeated_work_orders as { wo_folio: string; count: number; budgets: unknown[] }[];
    // At most 50 listed, those with the most budgets; the note counts them all.
    expect(listed).toHaveLength(Math.min(50, repeated.length));
    const fewest = Math.min(...listed.map((w) => w.count));
    for (const [wo, list] of repeated)
      if (!listed.some((w) => w.wo_folio === wo)) expect(list.length).toBeLessThanOrEqual(fewest);
    const names = { 1: "pending", 2: "approved", 3: "rejected" } as Record<number, string>;
    for (const w of listed) {
      const list = byWo.get(w.wo_folio)!;
      expect(w.count).toBe(list.length);
      expect(w.budgets).toEqual(list.map((b) => ({ folio: b.folio, status: names[b.status] })));
    }
    expect(listed.map((w) => w.count)).toEqual(listed.map((w) => w.count).sort((a, b) => b - a));
    const note = notesOf(out).find((n) => n.code === "work_orders_repeated")!;
    expect(note.params).toEqual({
      count: repeated.length,
      budgets: repeated.reduce((n, [, list]) => n + list.length, 0),
      shown: listed.length,
    });
    // The text leads with them, before the rows.
    const lines = text.split("\n");
    const first = lines.findIndex((l) => l.startsWith("Work order "));
    expect(lines[first - 1]).toBe(note.text);
    expect(first).toBeLessThan(lines.findIndex((l) => l.startsWith("work_order | items_total")));
  });

  it("gives every note a known code and its text; output schemas carry no type unions", async () => {
    const results = await Promise.all([
      call({ since: "all", group_by: ["month", "status"], currency: ["USD", "doubloons"] }),
      call({ since: "all", sort: "total_desc", limit: 2 }),
      call({ wo_folio: "no-such-work-order" }),
    ]);
    const notes = results.flatMap((r) => notesOf(r.out));
    expect(notes.length).toBeGreaterThan(3);
    for (const n of notes) {
      expect(NOTE_CODES).toContain(n.code);
      expect(n.text.length).toBeGreaterThan(10);
      for (const v of Object.values(n.params ?? {})) expect(["string", "number"]).toContain(typeof v);
    }
    const { tools } = await mcp.client.listTools();
    const unions: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (node === null || typeof node !== "object") return;
      if (Array.isArray((node as { type?: unknown }).type)) unions.push(path);
      for (const [k, v] of Object.entries(node)) walk(v, `${path}/${k}`);
    };
    for (const t of tools) walk({ in: t.inputSchema, out: t.outputSchema }, t.name);
    expect(unions).toEqual([]);
  });
});
