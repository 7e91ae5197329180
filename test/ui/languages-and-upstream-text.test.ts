/**
 * The view in the user's terms (interface.md §6d) and the snapshot and resume of §6c, in Debian's
 * Chromium with the built server's own resource: labels in the host's language (English, Spanish,
 * Brazilian Portuguese; English otherwise); upstream text that wraps, stays isolated for
 * bidirectional display, and an unmapped currency's name quoted on its own line; the "as of" line
 * and the one "Continue the review" button. UI_SCREENSHOTS=1 also writes the as-of screenshot.
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
  type OpenOptions,
  openView,
  plainText,
  read,
  screenshot,
  startServer,
} from "./harness.js";

let browser: Browser;
let sb: SandboxHandle;
let server: McpServer;
const opened: Hosted[] = [];

// One server on a sandbox this file may edit (hostile names), shared by every test.
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
  [browser, server] = await Promise.all([launch(), startServer([], cleanEnv(sb.env()))]);
});
afterAll(async () => {
  await Promise.all(opened.map((h) => h.page.close()));
  await browser?.close();
  await server?.close();
  await sb?.close();
});

async function call(args: Record<string, unknown>): Promise<CallToolResult> {
  return (await server.client.callTool({ name: "query_budgets", arguments: args })) as CallToolResult;
}

async function open(
  args: Record<string, unknown>,
  options: Partial<Omit<OpenOptions, "server" | "toolInput">> = {},
): Promise<Hosted> {
  const toolResult = options.toolResult ?? (await call(args));
  const hosted = await openView(browser, { server, toolInput: args, ...options, toolResult });
  opened.push(hosted);
  return hosted;
}

/** The review the screenshots show: pending money by cost center and the queue's age, two currencies. */
const SHOWCASE = { status: "pending", currency: ["EUR", "USD"], group_by: ["cost_center"] };

/** What a person reads in each language, written out here rather than taken from the catalogue. */
const LANGUAGES = [
  {
    locale: "en-US",
    lang: "en",
    title: "Budget review",
    statusLabel: "Status",
    pending: "Pending",
    largest: "Largest budgets",
    chartsTitle: "By cost center",
    totalsTitle: "Totals per currency",
    complete: "Complete",
    counts: (s: number, m: number) => `Scanned ${s} · matched ${m} budgets`,
    basis: "by work-order creation date",
  },
  {
    locale: "es",
    lang: "es",
    title: "Revisión de presupuestos",
    statusLabel: "Estado",
    pending: "Pendiente",
    largest: "Presupuestos de mayor monto",
    chartsTitle: "Por centro de costo",
    totalsTitle: "Totales por moneda",
    complete: "Completo",
    counts: (s: number, m: number) => `Leídos ${s} · coinciden ${m} presupuestos`,
    basis: "por fecha de creación de la OT",
  },
  {
    locale: "pt-BR",
    lang: "pt",
    title: "Revisão de orçamentos",
    statusLabel: "Situação",
    pending: "Pendente",
    largest: "Maiores orçamentos",
    chartsTitle: "Por centro de custo",
    totalsTitle: "Totais por moeda",
    complete: "Completo",
    counts: (s: number, m: number) => `Lidos ${s} · ${m} orçamentos correspondem`,
    basis: "por data de abertura da OS",
  },
] as const;

type Language = (typeof LANGUAGES)[number];
const language = (lang: string) => LANGUAGES.find((l) => l.lang === lang)!;

async function expectLanguage(
  hosted: Hosted,
  words: Language,
  sc: { review: { scanned: number; matched: number } },
) {
  const { view } = hosted;
  expect(await read(view.locator("h1"))).toBe(words.title);
  expect(await read(view.locator('[data-label="status"]'))).toBe(words.statusLabel);
  expect(await read(view.locator('select[name=status] option[value="pending"]'))).toBe(words.pending);
  expect(await read(view.locator('select[name=group] option[value=""]'))).toBe(words.largest);
  expect(await read(view.locator("#charts-title"))).toBe(words.chartsTitle);
  expect(await read(view.locator("#totals-title"))).toBe(words.totalsTitle);
  expect(await read(view.getByTestId("completeness"))).toBe(words.complete);
  expect(await read(view.getByTestId("counts"))).toBe(words.counts(sc.review.scanned, sc.review.matched));
  expect(await read(view.getByTestId("window"))).toContain(words.basis);
}

/**
 * The view's page is no wider than its frame (nothing scrolls sideways), and no table is wider than
 * its own box (none runs under its neighbour in the grid of charts).
 */
const widths = (hosted: Hosted) =>
  hosted.view.locator("html").evaluate((html) => {
    const tables = [...html.querySelectorAll("table")];
    return {
      scroll: html.scrollWidth,
      client: html.clientWidth,
      widestTable: Math.max(0, ...tables.map((t) => t.getBoundingClientRect().width)),
      overflowing: tables
        .filter((t) => t.getBoundingClientRect().right > t.parentElement!.getBoundingClientRect().right + 1)
        .map((t) => t.querySelector("caption")?.textContent),
    };
  });

describe("the view speaks the host's language", () => {
  it.each([
    ["en-US", "en"],
    ["es", "es"],
    ["es-MX", "es"],
    ["pt-BR", "pt"],
    ["fr-FR", "en"],
  ])("%s: labels in %s, amounts in the locale's format with the ISO code", async (locale, lang) => {
    const result = await call(SHOWCASE);
    const sc = result.structuredContent as {
      review: { scanned: number; matched: number };
      groups: { currency: string; items_total: number }[];
    };
    const hosted = await open(SHOWCASE, { toolResult: result, context: { theme: "light", locale } });
    await expectLanguage(hosted, language(lang), sc);
    expect(await hosted.view.locator("html").getAttribute("lang")).toBe(locale);
    // Longer words than English still fit: every table within its box, the page within the frame.
    const w = await widths(hosted);
    expect(w.overflowing).toEqual([]);
    expect(w.scroll).toBeLessThanOrEqual(w.client);
    // Numbers still follow the locale itself (es-MX groups as Mexico does), the code always beside them.
    const usd = new Intl.NumberFormat(locale, {
      style: "currency",
      currency: "USD",
      currencyDisplay: "code",
    });
    const total = sc.groups.filter((g) => g.currency === "USD").reduce((n, g) => n + g.items_total, 0);
    expect(await read(hosted.view.locator('.tile[data-currency="USD"]').getByTestId("total"))).toBe(
      plainText(usd.format(Math.round(total * 100) / 100)),
    );
    expectClean(hosted);
  });

  it("changes language when the host does, without a call", async () => {
    const result = await call(SHOWCASE);
    const sc = result.structuredContent as { review: { scanned: number; matched: number } };
    const hosted = await open(SHOWCASE, { toolResult: result });
    await expectLanguage(hosted, language("en"), sc);
    await hosted.page.evaluate(() =>
      (globalThis as unknown as { host: { setContext(c: unknown): void } }).host.setContext({
        theme: "light",
        locale: "es-CL",
      }),
    );
    await expect.poll(() => read(hosted.view.locator("h1"))).toBe("Revisión de presupuestos");
    await expectLanguage(hosted, language("es"), sc);
    expect(await hosted.calls()).toEqual([]);
    expectClean(hosted);
  });
});

/** Sets fields of every sandbox budget for the duration of `body`, then puts them back. */
async function withBudgets(
  change: (record: Record<string, unknown>, index: number) => void,
  body: () => Promise<void>,
): Promise<void> {
  const saved = sb.state.budgets.map((b) => structuredClone(b.record));
  sb.state.budgets.forEach((b, i) => {
    change(b.record as unknown as Record<string, unknown>, i);
  });
  try {
    await body();
  } finally {
    sb.state.budgets.forEach((b, i) => {
      Object.assign(b.record, saved[i]);
    });
  }
}

describe("upstream text cannot bend the view", () => {
  it("wraps a 5,000-character name inside its cell: the tables stay within the viewport", async () => {
    const long = `${"Mantenimiento".repeat(384)}XYZ`; // 4,995 characters, no space
    expect(long.length).toBeGreaterThanOrEqual(4_995);
    await withBudgets(
      (r) => {
        r.third_parties_name = long;
        r.costs_center_description = long;
      },
      async () => {
        for (const args of [
          { currency: "USD", sort: "total_desc", limit: 3 },
          { group_by: ["cost_center"] },
          { group_by: ["third_party"] },
        ]) {
          const hosted = await open(args);
          const w = await widths(hosted);
          expect(w.scroll, JSON.stringify(args)).toBeLessThanOrEqual(w.client);
          expect(w.widestTable).toBeLessThanOrEqual(w.client);
          expect(w.overflowing).toEqual([]);
          // The name is there to read (whole, or as the server cut it), not hidden.
          const cell = hosted.view
            .locator("tbody bdi.upstream", { hasText: "MantenimientoMantenimiento" })
            .first();
          expect((await cell.textContent())!.length).toBeGreaterThan(250);
          expectClean(hosted);
        }
      },
    );
  });

  it("isolates upstream text for bidirectional display: a right-to-left override cannot reorder an amount", async () => {
    const rlo = "\u202E";
    await withBudgets(
      (r, i) => {
        r.third_parties_name = `${rlo}Acme 00.005,1 DSU`;
        r.costs_center_description = `${rlo}Planta`;
        // Every third budget in a currency with no ISO code whose name starts with the override.
        if (i % 3 === 0) r.currency_description = `${rlo}Peso interno`;
      },
      async () => {
        for (const args of [{ sort: "total_desc", limit: 20 }, { group_by: ["cost_center"] }]) {
          const hosted = await open(args);
          const seen = await hosted.view.locator("body").evaluate((body, mark) => {
            const doc = body.ownerDocument;
            const walker = doc.createTreeWalker(body, 4 /* NodeFilter.SHOW_TEXT */);
            const hostile: boolean[] = [];
            for (let n = walker.nextNode(); n; n = walker.nextNode()) {
              if (!n.textContent!.includes(mark)) continue;
              const bdi = n.parentElement!.closest("bdi");
              hostile.push(bdi !== null && doc.defaultView!.getComputedStyle(bdi).unicodeBidi === "isolate");
            }
            // Each amount's characters, left to right on screen, in the order they are written.
            const amounts = [...body.querySelectorAll(".money")].map((el) => {
              const text = el.firstChild!;
              const xs: number[] = [];
              for (let i = 0; i < text.textContent!.length; i++) {
                const range = doc.createRange();
                range.setStart(text, i);
                range.setEnd(text, i + 1);
                xs.push(range.getBoundingClientRect().left);
              }
              return { text: el.textContent, inOrder: xs.every((x, i) => i === 0 || x >= xs[i - 1]!) };
            });
            return { hostile, amounts };
          }, rlo);
          expect(seen.hostile.length, JSON.stringify(args)).toBeGreaterThan(0);
          expect(seen.hostile.every(Boolean)).toBe(true);
          expect(seen.amounts.length).toBeGreaterThan(0);
          expect(seen.amounts.filter((a) => !a.inOrder)).toEqual([]);
          expectClean(hosted);
        }
      },
    );
  });

  it("quotes an unmapped currency's name on its own line, never beside an amount", async () => {
    const name = "USD 1,500,000.00";
    await withBudgets(
      (r, i) => {
        if (i % 4 === 0) r.currency_description = name;
      },
      async () => {
        for (const args of [{ group_by: ["status"] }, { sort: "total_desc", all: true }]) {
          const result = await call(args);
          expect(JSON.stringify(result.structuredContent)).toContain('"currency_unmapped":true');
          const hosted = await open(args, { toolResult: result });
          const names = hosted.view.getByTestId("currency-name");
          expect(await names.count(), JSON.stringify(args)).toBeGreaterThan(0);
          const placed = await names.evaluateAll((els) =>
            els.map((el) => {
              const box = el.getBoundingClientRect();
              // Amounts in the same tile or table: none may share the name's line.
              const scope = el.closest(".tile, table")!;
              const beside = [...scope.querySelectorAll(".money")].filter((m) => {
                const b = m.getBoundingClientRect();
                return b.bottom > box.top + 1 && b.top < box.bottom - 1;
              });
              return {
                text: el.textContent,
                display: el.ownerDocument.defaultView!.getComputedStyle(el).display,
                beside: beside.map((m) => m.textContent),
              };
            }),
          );
          // The sandbox has an unmapped currency of its own ("Crédito interno"): every one is quoted alone.
          expect(placed.map((p) => p.text)).toContain(`“${name}”`);
          for (const p of placed) {
            expect(p).toEqual({ text: expect.stringMatching(/^“[^”]+”$/), display: "block", beside: [] });
          }
          // No amount reads as carrying the name: the name never sits in a money cell or tile amount.
          const money = await hosted.view.locator(".money").allTextContents();
          expect(money.filter((m) => m.includes(name))).toEqual([]);
          expectClean(hosted);
        }
      },
    );
  });
});

describe("a review from the server's snapshot, and a partial review that resumes (interface.md §6c)", () => {
  /** The args' real result with fields set as a server with snapshots and resume would send them. */
  async function shaped(args: Record<string, unknown>, change: (sc: Record<string, unknown>) => void) {
    const result = await call(args);
    const sc = structuredClone(result.structuredContent) as Record<string, unknown>;
    change(sc);
    return { ...result, structuredContent: sc };
  }

  it("says when the server read the budgets, in the host's language, and reads again on request", async () => {
    const args = { status: "pending", group_by: ["currency"] };
    const asOf = "2026-11-26T10:42:07Z";
    const fromSnapshot = await shaped(args, (sc) => {
      sc.as_of = asOf;
    });
    const now = new Date("2026-11-26T10:43:42Z");
    const sent: Record<string, unknown>[] = [];
    const callTool = async (params: { name: string; arguments?: Record<string, unknown> }) => {
      sent.push(params.arguments ?? {});
      const { fresh: _f, ...rest } = params.arguments ?? {};
      return call(rest); // this server has no snapshot: a plain read stands for the fresh one
    };
    const en = await open(args, { toolResult: fromSnapshot, now, callTool });
    // Polled: the line is redrawn every second, and a frame's first drawing may come before the page's
    // fixed clock reaches it (seen once in Chromium: "57 h ago", the real time); the next one has it.
    await expect
      .poll(() => read(en.view.getByTestId("as-of")), { timeout: 10_000 })
      .toBe("As of 10:42 AM, 95 s ago");
    const es = await open(args, {
      toolResult: fromSnapshot,
      now,
      context: { theme: "light", locale: "es-MX" },
    });
    await expect
      .poll(() => read(es.view.getByTestId("as-of")), { timeout: 10_000 })
      .toBe("Datos de las 10:42 a.m., hace 95 s");
    await screenshot(es, "docs/images/budget-review-es-as-of.png");

    await en.view.getByRole("button", { name: "Read again" }).click();
    await expect.poll(() => sent).toEqual([{ ...args, fresh: true }]);
    await expect.poll(() => read(en.view.getByRole("status"))).toBe("Review updated.");
    // A result without as_of shows no as-of line.
    const plain = await open(args, {
      toolResult: await shaped(args, (sc) => {
        delete sc.as_of;
      }),
    });
    expect(await plain.view.getByTestId("as-of").count()).toBe(0);
    for (const hosted of [en, es, plain]) expectClean(hosted);
  });

  it("offers one 'Continue the review' button that sends the same arguments plus the token, and draws what comes back", async () => {
    const args = { status: "pending", group_by: ["cost_center"], since: "P365D" };
    const complete = await call(args);
    const groups = (complete.structuredContent as { groups: { currency: string }[] }).groups;
    const currencies = [...new Set(groups.map((g) => g.currency))].sort();
    expect(currencies.length).toBeGreaterThanOrEqual(3);
    // The walk so far: the first currency, then two; the token each time a new opaque string.
    const partial = (seen: number, token: string) =>
      shaped(args, (sc) => {
        sc.groups = groups.filter((g) => currencies.slice(0, seen).includes(g.currency));
        sc.pending_age = [];
        sc.complete = false;
        sc.resume = token;
      });
    const answers = new Map<string, unknown>([
      ["tok-1", await partial(2, "tok-2")],
      ["tok-2", complete],
    ]);
    const sent: Record<string, unknown>[] = [];
    const callTool = async (params: { name: string; arguments?: Record<string, unknown> }) => {
      sent.push(params.arguments ?? {});
      return answers.get(String(params.arguments?.resume)) ?? call(params.arguments ?? {});
    };
    const hosted = await open(args, { toolResult: await partial(1, "tok-1"), callTool });
    const { view } = hosted;
    const charts = view.locator('section[aria-labelledby="charts-title"] table');
    const button = view.getByRole("button", { name: "Continue the review" });
    expect(await read(view.getByTestId("completeness"))).toBe("Partial");
    expect(await read(view.getByTestId("partial"))).toMatch(/^Partial: the server stopped before the end/);
    expect(await charts.count()).toBe(1);
    expect(await button.count()).toBe(1);

    await button.click();
    await expect.poll(() => charts.count()).toBe(2);
    expect(await button.count()).toBe(1);
    // The keyboard keeps its place on the new button: Enter goes on.
    await expect
      .poll(() => view.locator(":focus").evaluate((el) => (el as unknown as { name?: string }).name ?? ""))
      .toBe("continue");
    await hosted.page.keyboard.press("Enter");
    await expect.poll(() => charts.count()).toBe(currencies.length);
    expect(sent).toEqual([
      { ...args, resume: "tok-1" },
      { ...args, resume: "tok-2" },
    ]);
    expect(await read(view.getByTestId("completeness"))).toBe("Complete");
    expect(await button.count()).toBe(0);
    expect(await view.getByTestId("partial").count()).toBe(0);
    // The controls start from the call, not from a token: the next change sends no resume.
    await view.locator("select[name=group]").selectOption("status");
    await expect.poll(() => sent.length).toBe(3);
    expect(sent[2]).toEqual({ status: "pending", since: "P365D", group_by: ["status"] });
    expectClean(hosted);
  });

  it("offers no button for a partial result without a token (a server without resume)", async () => {
    const args = { status: "pending", group_by: ["cost_center"] };
    const hosted = await open(args, {
      toolResult: await shaped(args, (sc) => {
        sc.complete = false;
      }),
    });
    expect(await read(hosted.view.getByTestId("completeness"))).toBe("Partial");
    expect(await hosted.view.getByRole("button", { name: "Continue the review" }).count()).toBe(0);
    expectClean(hosted);
  });
});
