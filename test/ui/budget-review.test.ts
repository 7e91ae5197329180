/**
 * The budget-review view in a real browser (interface.md §8): the built server's own resource in
 * Debian's Chromium, inside a host page built on the extension's AppBridge, fed real query_budgets
 * results from the sandbox through the real MCP client. Each test asserts what a person sees
 * against what the agent's text says, and that the view made no request and logged no error.
 * UI_SCREENSHOTS=1 also writes the README's screenshots.
 */
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { cleanEnv } from "../e2e/bin.js";
import {
  expectClean,
  type Hosted,
  launch,
  type McpServer,
  openView,
  plainText,
  read,
  screenshot,
  startServer,
  textOf,
} from "./harness.js";

let browser: Browser;
let server: McpServer;
const opened: Hosted[] = [];

beforeAll(async () => {
  [browser, server] = await Promise.all([launch(), startServer(["--sandbox"], cleanEnv())]);
});
afterAll(async () => {
  await Promise.all(opened.map((h) => h.page.close()));
  await browser?.close();
  await server?.close();
});

async function call(args: Record<string, unknown>, on = server): Promise<CallToolResult> {
  return (await on.client.callTool({ name: "query_budgets", arguments: args })) as CallToolResult;
}

/** The charts by the first group key (the pending queue by age is a section of its own). */
const BY_KEY = 'section[aria-labelledby="charts-title"]';

/** The review the README's screenshots show: pending money by cost center and the queue's age, two currencies. */
const SHOWCASE = { status: "pending", currency: ["EUR", "USD"], group_by: ["cost_center"] };

async function open(
  args: Record<string, unknown>,
  options: {
    context?: Record<string, unknown>;
    serverTools?: boolean;
    on?: McpServer;
    /** The page's clock from the result (e.g. the server's today), else the real clock. */
    now?: (result: CallToolResult) => Date;
  } = {},
): Promise<{ hosted: Hosted; result: CallToolResult }> {
  const result = await call(args, options.on);
  const hosted = await openView(browser, {
    server: options.on ?? server,
    toolInput: args,
    toolResult: result,
    ...(options.now ? { now: options.now(result) } : {}),
    ...(options.context ? { context: options.context } : {}),
    ...(options.serverTools === undefined ? {} : { serverTools: options.serverTools }),
  });
  opened.push(hosted);
  return { hosted, result };
}

/** A computed style of the view's first element matching `selector`. */
const styleOf = (hosted: Hosted, selector: string, property: "backgroundColor" | "color") =>
  hosted.view
    .locator(selector)
    .first()
    .evaluate(
      (el, p) =>
        (globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }).getComputedStyle(
          el,
        )[p],
      property,
    );

/** The agent's text, "USD 16,118.30 | 29 | ..." lines of a per-currency summary. */
function currencyLines(text: string): { code: string; money: string; count: string }[] {
  return [...text.matchAll(/^([A-Z]{3}) ([\d,]+(?:\.\d+)?) \| (\d+)/gm)].map((m) => ({
    code: m[1]!,
    money: `${m[1]} ${m[2]}`,
    count: m[3]!,
  }));
}

/** The agent's text, "Projects | USD 22,984.00 | 40 ..." lines of a summary by one key. */
function keyedLines(text: string): { key: string; code: string; money: string; count: string }[] {
  return [...text.matchAll(/^([^|\n]+) \| ([A-Z]{3}) ([\d,]+(?:\.\d+)?) \| (\d+)/gm)].map((m) => ({
    key: m[1]!,
    code: m[2]!,
    money: `${m[2]} ${m[3]}`,
    count: m[4]!,
  }));
}

describe("the budget-review view", () => {
  it("shows each currency's total as the agent's text says it, the window, and completeness", async () => {
    const args = { status: "pending", group_by: ["currency"] };
    // The server sends as_of (when it read the budgets): the page's clock is set to it.
    const atAsOf = (r: CallToolResult) => new Date((r.structuredContent as { as_of: string }).as_of);
    const { hosted, result } = await open(args, { now: atAsOf });
    const lines = currencyLines(textOf(result));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) {
      const tile = hosted.view.locator(`.tile[data-currency="${line.code}"]`);
      expect(await read(tile.getByTestId("total"))).toBe(line.money);
      expect(await read(tile)).toContain(`${line.count} budgets`);
    }
    const sc = result.structuredContent as {
      review: { scanned: number; matched: number };
      period: { since: string; until: string; type_date: string; default: boolean };
      today: string;
      as_of: string;
    };
    // The window as the result states it (UTC instants), in the host's locale.
    const at = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
    // Today: the host's date in its zone (UTC here) at the page's clock, not the server's today.
    const day = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeZone: "UTC" });
    expect(sc.period).toMatchObject({ type_date: "creation_date", default: true });
    expect(await read(hosted.view.getByTestId("window"))).toBe(
      plainText(
        `Window: ${at.format(Date.parse(sc.period.since))} – ${at.format(Date.parse(sc.period.until))} (UTC) · by work-order creation date · default period · today ${day.format(Date.parse(sc.as_of))}`,
      ),
    );
    // The as-of line from the server's own as_of, in the host's zone (named by the window line).
    expect(await read(hosted.view.getByTestId("as-of"))).toMatch(/^As of \d{1,2}:\d\d [AP]M, /);
    expect(await read(hosted.view.getByTestId("counts"))).toBe(
      `Scanned ${sc.review.scanned} · matched ${sc.review.matched} budgets`,
    );
    expect(await read(hosted.view.getByTestId("completeness"))).toBe("Complete");
    expect(await read(hosted.view.getByTestId("sandbox"))).toBe("Sandbox data");
    // The controls start from the agent's call.
    expect(await hosted.view.locator("select[name=status]").inputValue()).toBe("pending");
    expect(await hosted.view.locator("select[name=group]").inputValue()).toBe("currency");
    expectClean(hosted);
  });

  it("re-runs the review through the host when a control changes, and draws one chart per currency", async () => {
    const { hosted } = await open({ status: "pending", group_by: ["currency"] });
    await hosted.view.locator("select[name=group]").selectOption("cost_center");
    await expect.poll(() => hosted.calls()).toHaveLength(1);
    const [sent] = await hosted.calls();
    expect(sent).toMatchObject({ name: "query_budgets" });
    expect(sent!.arguments).toEqual({ status: "pending", group_by: ["cost_center"] });
    await hosted.view.locator(`${BY_KEY} table[data-currency="USD"]`).waitFor();
    expect(await read(hosted.view.getByRole("status"))).toBe("Review updated.");

    // Each chart holds what the same call tells the agent, row for row, in one currency only.
    const expected = keyedLines(textOf(await call(sent!.arguments)));
    const currencies = [...new Set(expected.map((l) => l.code))];
    expect(currencies.length).toBeGreaterThanOrEqual(3);
    for (const code of currencies) {
      const table = hosted.view.locator(`${BY_KEY} table[data-currency="${code}"]`);
      expect(await read(table.locator("caption"))).toBe(`${code}: amount by cost center`);
      const rows = await table
        .locator("tbody tr")
        .evaluateAll((trs) =>
          trs.map((tr) =>
            [...(tr as unknown as { cells: { textContent: string }[] }).cells].map((c) => c.textContent),
          ),
        );
      const seen = rows.map(([key, , money, count]) => ({
        key: plainText(key!),
        money: plainText(money!),
        count: plainText(count!),
      }));
      const want = expected
        .filter((l) => l.code === code)
        .map(({ key, money, count }) => ({ key, money, count }));
      expect(seen.sort((a, b) => a.key.localeCompare(b.key))).toEqual(
        want.sort((a, b) => a.key.localeCompare(b.key)),
      );
    }
    expectClean(hosted);
  });

  it("shows the pending queue by age per currency, bucket by bucket as the agent's text says it", async () => {
    const { hosted, result } = await open({ status: "pending", group_by: ["currency"] });
    // "USD: 0-7: 9, USD 4,587.00; 8-30: 20, USD 11,531.30; 31-60: 0; ..." after the age heading.
    const text = textOf(result);
    const queue = text.slice(text.indexOf("Pending budgets by age")).split("\n").slice(1);
    const lines = queue.filter((l) => /^[A-Z]{3}: 0-7: /.test(l));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) {
      const code = line.slice(0, 3);
      const table = hosted.view.locator(
        `section[aria-labelledby="age-title"] table[data-currency="${code}"]`,
      );
      expect(await read(table.locator("caption"))).toBe(`${code}: pending budgets by days waiting`);
      const rows = (await table
        .locator("tbody tr")
        .evaluateAll((trs) =>
          trs.map((tr) =>
            [...(tr as unknown as { cells: { textContent: string }[] }).cells].map((c) => c.textContent),
          ),
        )) as string[][];
      const buckets = line.slice(5).split("; ");
      expect(rows.map((r) => plainText(r[0]!))).toEqual(["0-7", "8-30", "31-60", "61-90", "over 90"]);
      buckets.forEach((bucket, i) => {
        const [, count, money] = /^[^:]+: (\d+)(?:, (.+))?$/.exec(bucket)!;
        // Name, amount, count, as in every table of the view.
        expect(plainText(rows[i]![3]!)).toBe(count);
        if (money) expect(plainText(rows[i]![2]!)).toBe(money);
      });
    }
    expectClean(hosted);
  });

  it("works from the keyboard: tab through the controls, change one, update", async () => {
    const { hosted } = await open({ group_by: ["status"] });
    const { page, view } = hosted;
    await view.locator("select[name=status]").focus();
    await page.keyboard.press("ArrowDown"); // "Any status" → "Pending"
    const focused = () =>
      view.locator(":focus").evaluate((el) => (el as unknown as { name?: string }).name ?? "");
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("period");
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("group");
    await page.keyboard.press("Tab");
    expect(await view.locator(":focus").textContent()).toBe("Update");
    await page.keyboard.press("Enter");
    await expect
      .poll(async () => (await hosted.calls()).at(-1)?.arguments)
      .toEqual({
        status: "pending",
        group_by: ["status"],
      });
    await view.locator('main[aria-busy="false"]').waitFor();
    expect(await read(view.locator(`${BY_KEY} caption`).first())).toMatch(/: amount by status$/);
    expectClean(hosted);
  });

  it("follows the host's dark theme and its CSS variables, and switches back when the host does", async () => {
    const variables = {
      "--color-background-primary": "light-dark(#ffffff, #1a1b1e)",
      "--color-text-primary": "light-dark(#111111, #ededed)",
    };
    const { hosted } = await open(SHOWCASE, {
      context: { theme: "dark", locale: "en-US", styles: { variables } },
    });
    expect(await styleOf(hosted, "body", "backgroundColor")).toBe("rgb(26, 27, 30)");
    expect(await styleOf(hosted, "body", "color")).toBe("rgb(237, 237, 237)");
    await screenshot(hosted, "docs/images/budget-review-dark.png");
    await hosted.page.evaluate(
      (v) =>
        (globalThis as unknown as { host: { setContext(c: unknown): void } }).host.setContext({
          theme: "light",
          locale: "en-US",
          styles: { variables: v },
        }),
      variables,
    );
    await expect.poll(() => styleOf(hosted, "body", "backgroundColor")).toBe("rgb(255, 255, 255)");
    expectClean(hosted);
  });

  it("has a dark theme of its own for hosts that send no variables", async () => {
    const { hosted } = await open(
      { status: "pending", group_by: ["currency"] },
      { context: { theme: "dark" } },
    );
    expect(await styleOf(hosted, "body", "backgroundColor")).toBe("rgb(28, 28, 27)");
    expectClean(hosted);
  });

  it("formats amounts in the host's locale, always with the ISO code", async () => {
    const args = { status: "pending", group_by: ["currency"] };
    const { hosted, result } = await open(args, { context: { theme: "light", locale: "de-DE" } });
    const groups = (result.structuredContent as { groups: { currency: string; items_total: number }[] })
      .groups;
    const usd = groups.find((g) => g.currency === "USD")!;
    const german = new Intl.NumberFormat("de-DE", {
      style: "currency",
      currency: "USD",
      currencyDisplay: "code",
    });
    const tile = hosted.view.locator('.tile[data-currency="USD"]').getByTestId("total");
    expect(await read(tile)).toBe(plainText(german.format(usd.items_total)));
    expect(await read(tile)).toMatch(/^[\d.]+,\d\d USD$/);
    expectClean(hosted);
  });

  it("shows a list's largest budgets per currency: folio, work order, third party, amount with its code", async () => {
    const args = { currency: "USD", sort: "total_desc", limit: 5 };
    const { hosted, result } = await open(args);
    const lines = textOf(result)
      .split("\n")
      .filter((l) => / WO /.test(l));
    expect(lines).toHaveLength(5);
    const rows = hosted.view.locator('table.records[data-currency="USD"] tbody tr');
    expect(await rows.count()).toBe(5);
    for (const [i, line] of lines.entries()) {
      const [folio, wo] = line.split(/ WO | \| /);
      const money = /\| (USD [\d,]+\.\d\d) \(/.exec(line)![1];
      const cells = (await rows.nth(i).locator("th, td").allTextContents()).map(plainText);
      expect(cells[0]).toBe(folio);
      expect(cells[1]).toBe(wo);
      // The text adds the third party's code (and role) after its name (interface.md §6g); the view the name.
      expect(line).toContain(`| ${cells[2]} (`);
      expect(cells[4]).toBe(money);
    }
    const sc = result.structuredContent as { total: number };
    expect(await read(hosted.view.getByTestId("counts"))).toContain(
      `5 of ${sc.total} budgets in this result`,
    );
    expect(await read(hosted.view.getByTestId("completeness"))).toBe("Partial");
    expectClean(hosted);
  });

  it("keeps the controls off, and says why, when the host cannot relay tool calls", async () => {
    const { hosted } = await open({ group_by: ["currency"] }, { serverTools: false });
    for (const control of ["select[name=status]", "select[name=period]", "select[name=group]", "button"]) {
      expect(await hosted.view.locator(control).first().isDisabled(), control).toBe(true);
    }
    expect(await read(hosted.view.getByRole("status"))).toBe(
      "This host does not let the view re-run the review.",
    );
    expectClean(hosted);
  });

  it("looks like the README says (UI_SCREENSHOTS=1 writes docs/images/budget-review-light.png)", async () => {
    const { hosted } = await open(SHOWCASE);
    expect(await hosted.view.locator(`${BY_KEY} table`).count()).toBe(2);
    expect(await hosted.view.locator('section[aria-labelledby="age-title"] table').count()).toBe(2);
    expect(await read(hosted.view.getByTestId("filters"))).toBe("Filters: currency EUR, USD");
    await screenshot(hosted, "docs/images/budget-review-light.png");
    expectClean(hosted);
  });
});

describe("the view against a hostile or failing upstream", () => {
  let sb: SandboxHandle;
  let direct: McpServer;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0 });
    direct = await startServer([], cleanEnv(sb.env()));
  });
  afterAll(async () => {
    await direct?.close();
    await sb?.close();
  });

  it("shows upstream text as text: markup in a name is neither parsed nor fetched", async () => {
    const hostile =
      '<img src="https://attacker.example/x.png" onerror="parent.postMessage(1,\'*\')"><b>Acme</b>';
    const saved = sb.state.budgets.map((b) => [
      b.record.third_parties_name,
      b.record.costs_center_description,
    ]);
    for (const b of sb.state.budgets) {
      b.record.third_parties_name = hostile;
      b.record.costs_center_description = hostile;
    }
    try {
      const list = await open({ currency: "USD", sort: "total_desc", limit: 3 }, { on: direct });
      const cells = await list.hosted.view
        .locator("table.records tbody tr td:nth-child(3)")
        .allTextContents();
      expect(cells).toEqual([hostile, hostile, hostile]);
      const chart = await open({ group_by: ["cost_center"] }, { on: direct });
      expect(await read(chart.hosted.view.locator(`${BY_KEY} tbody th`).first())).toBe(hostile);
      for (const { hosted } of [list, chart]) {
        expect(await hosted.view.locator("img, b").count()).toBe(0);
        expectClean(hosted);
      }
    } finally {
      sb.state.budgets.forEach((b, i) => {
        [b.record.third_parties_name, b.record.costs_center_description] = saved[i]!;
      });
    }
  });

  it("shows a failed call's error text, as the server wrote it for the agent", async () => {
    const { hosted } = await open({ group_by: ["currency"] }, { on: direct });
    expect(await hosted.view.getByTestId("sandbox").count()).toBe(0);
    const denied = {
      status: 403,
      body: { success: false, message: "No permission to read budgets", data: null },
    };
    sb.faults.failNext("/api/wo_budget", 1, denied);
    const failed = await call({ group_by: ["status"] }, direct);
    expect(failed.isError).toBe(true);
    const firstLine = textOf(failed).split("\n")[0]!;

    sb.faults.failNext("/api/wo_budget", 1, denied);
    await hosted.view.locator("select[name=group]").selectOption("status");
    const failure = hosted.view.getByRole("alert");
    await failure.waitFor();
    expect(await read(failure)).toContain(plainText(firstLine));
    expect(await read(hosted.view.getByRole("status"))).toBe("The update failed.");
    // The last good review stays on screen under the error.
    expect(await hosted.view.locator(".tile").count()).toBeGreaterThan(0);
    expectClean(hosted);
  });
});
