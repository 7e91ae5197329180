/**
 * The `review_budgets` prompt through the SDK client (prompts/list, prompts/get), and the calls
 * its message names answered by query_budgets against the sandbox. One clock for the server (its
 * prompts and tools) and the sandbox's seed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import reviewBudgets from "../../src/mcp/prompts/review-budgets.js";
import { QueryBudgetsOutput } from "../../tools/query-budgets.js";
import { connect, textOf } from "../helpers/mcp.js";
import { useSandbox } from "../helpers/sandbox.js";

const NOW = Date.parse("2026-11-28T08:00:00Z");
const fx = useSandbox({ clock: { now: () => NOW } });
let mcp: Awaited<ReturnType<typeof connect>>;
beforeAll(async () => {
  mcp = await connect({ clients: fx.clients(), now: () => new Date(NOW) });
});
afterAll(() => mcp.close());

const textOfPrompt = (r: { messages: { content: { type: string; text?: string } }[] }) =>
  r.messages.map((m) => m.content.text ?? "").join("\n");

describe("review_budgets prompt", () => {
  it("daily: a relative window, compare_to yesterday (any filters compare), and the report leads with the first line", async () => {
    const now = new Date(NOW);
    const text = textOfPrompt(reviewBudgets.render({ daily: "true", period_days: "7" }, now));
    const first = 'query_budgets {"since":"P7D","group_by":["status","currency"],"compare_to":"yesterday"}';
    expect(text.split("\n")[0]).toContain(`Daily review: start with ${first}.`);
    expect(text).toContain(`1. Totals by status and currency: ${first}`);
    expect(text).not.toContain('"since":"2026-11-21"');
    expect(text).toContain("Its first line says what changed since yesterday's review");
    const call = JSON.parse(first.slice("query_budgets ".length));
    const result = await mcp.client.callTool({ name: "query_budgets", arguments: call });
    expect(result.isError).toBeFalsy();
    expect(() => reviewBudgets.render({ daily: "sometimes" }, now)).toThrow(
      'daily must be true or false, got "sometimes"',
    );
    expect(textOfPrompt(reviewBudgets.render({ daily: "false" }, now))).not.toContain("compare_to");
  });

  it("is advertised with the prompts capability and listed with its arguments", async () => {
    expect(mcp.client.getServerCapabilities()?.prompts).toBeDefined();
    const { prompts } = await mcp.client.listPrompts();
    expect(prompts).toEqual([
      {
        name: "review_budgets",
        title: "Review work-order budgets",
        description: reviewBudgets.description,
        arguments: [
          {
            name: "period_days",
            description: "Days back from today to review (default 30).",
            required: false,
          },
          { name: "currency", description: "Only this currency (ISO code or name).", required: false },
          { name: "cost_center", description: "Only this cost center (description or id).", required: false },
          {
            name: "daily",
            description: "true: compare with yesterday's review and lead with what changed.",
            required: false,
          },
        ],
      },
    ]);
  });

  it("renders a 30-day review by default whose calls query_budgets answers in summaries", async () => {
    const got = await mcp.client.getPrompt({ name: "review_budgets" });
    const text = textOfPrompt(got);
    // The server's clock dates the prompt, as it dates the tools' windows.
    expect(text).toContain("last 30 days (since 2026-10-29)");
    expect(text).toMatch(/never add, compare or rank amounts of different currencies/);
    const calls = [...text.matchAll(/query_budgets (\{[^}]*\})/g)].map(
      (m) => JSON.parse(m[1]!) as Record<string, unknown>,
    );
    expect(calls.length).toBeGreaterThanOrEqual(6);
    for (const args of calls.filter((c) => !JSON.stringify(c).includes("<code>"))) {
      const result = await mcp.client.callTool({ name: "query_budgets", arguments: args });
      expect(result.isError, textOf(result)).toBeFalsy();
      const out = QueryBudgetsOutput.parse(result.structuredContent);
      // Review calls state what they scanned; the plain page of step 5 states its paging.
      if (out.review) expect(out.review.capped).toBe(false);
      else expect(out.returned).toBeGreaterThan(0);
    }
  });

  it("scopes every call to the currency and cost center given", async () => {
    const got = await mcp.client.getPrompt({
      name: "review_budgets",
      arguments: { period_days: "90", currency: "Peso chileno", cost_center: "Maintenance" },
    });
    const text = textOfPrompt(got);
    expect(text).toContain("last 90 days");
    expect(text).toContain("limited to currency Peso chileno and cost center Maintenance");
    const calls = [...text.matchAll(/query_budgets (\{[^}]*\})/g)].map((m) => JSON.parse(m[1]!));
    expect(calls.every((c) => c.currency === "Peso chileno" && c.cost_center === "Maintenance")).toBe(true);
    const result = await mcp.client.callTool({ name: "query_budgets", arguments: calls[0] });
    const out = QueryBudgetsOutput.parse(result.structuredContent);
    expect(out.groups!.length).toBeGreaterThan(0);
    expect(out.groups!.every((g) => g.currency === "CLP")).toBe(true);
  });

  it.each([["0"], ["abc"], ["2.5"], ["99999"]])("refuses period_days %s with the fix", async (value) => {
    await expect(
      mcp.client.getPrompt({ name: "review_budgets", arguments: { period_days: value } }),
    ).rejects.toThrow(/period_days must be a whole number of days from 1 to 3650/);
  });

  it("answers an unknown prompt with invalid params", async () => {
    await expect(mcp.client.getPrompt({ name: "nope" })).rejects.toThrow(/Unknown prompt: nope/);
  });

  it("is not offered when query_budgets is not registered", async () => {
    const other = await connect({ clients: fx.clients(), tools: ["list_warehouse_groups_1"] });
    try {
      expect(other.client.getServerCapabilities()?.prompts).toBeUndefined();
    } finally {
      await other.close();
    }
  });
});
