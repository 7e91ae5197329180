/**
 * The browser tests' harness. The server is the built binary (dist/bin) over stdio through the real
 * MCP client; the browser is Debian's Chromium driven by playwright-core; the host page is
 * host/host.ts, bundled here by esbuild and served from a route, so it needs no server. Every other
 * request any frame makes is recorded and refused, and every console error and page error is kept:
 * a test asserts both lists stay empty.
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { type CallToolResult, Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { getToolUiResourceUri, type McpUiHostContext } from "@modelcontextprotocol/ext-apps/app-bridge";
import { build } from "esbuild";
import { type Browser, chromium, type FrameLocator, type Locator, type Page } from "playwright-core";
import { expect } from "vitest";
import { BIN } from "../e2e/bin.js";

/** Debian's chromium (`.ci/run` installs it); CHROMIUM_PATH overrides. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Without the background-networking flags Chromium's own connections are refused here, many at a time. */
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const HOST_URL = "http://host.test/";

/** Set UI_SCREENSHOTS=1 to write the README's screenshots (docs/images/) from the tests. */
export const SCREENSHOTS = process.env.UI_SCREENSHOTS === "1";

export interface McpServer {
  client: Client;
  /** The view's HTML as resources/read returns it, found through query_budgets' `_meta.ui`. */
  viewHtml: string;
  close(): Promise<void>;
}

/** The binary with `args` (e.g. --sandbox), its tools/list, and the view it names. */
export async function startServer(args: string[], env: Record<string, string>): Promise<McpServer> {
  const client = new Client({ name: "browser-test-host", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, ...args],
      // No snapshots unless a test asks: tests change the sandbox's data between calls and must see it.
      env: { MMS_REVIEW_CACHE_SECONDS: "0", ...env },
      stderr: "pipe",
    }),
  );
  const { tools } = await client.listTools();
  const uri = getToolUiResourceUri(tools.find((t) => t.name === "query_budgets")!);
  if (uri === undefined) throw new Error("query_budgets names no view in tools/list");
  const read = await client.readResource({ uri });
  const view = read.contents[0] as { mimeType?: string; text?: string };
  if (view.mimeType !== "text/html;profile=mcp-app" || !view.text)
    throw new Error("the view is no MCP App HTML");
  return { client, viewHtml: view.text, close: () => client.close() };
}

let hostPage: Promise<string> | undefined;

/** The host page: host/host.ts and the extension's AppBridge, bundled for the browser. */
function hostHtml(): Promise<string> {
  hostPage ??= build({
    entryPoints: [join(import.meta.dirname, "host", "host.ts")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    logLevel: "warning",
  }).then(
    (out) =>
      `<!doctype html><html><head><meta charset="utf-8"><title>test host</title></head>` +
      `<body style="margin:0;background:#888"><script type="module">${out.outputFiles[0]!.text}</script></body></html>`,
  );
  return hostPage;
}

export async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}

export interface Hosted {
  page: Page;
  view: FrameLocator;
  /** Requests the page or the view tried to make beyond the host page itself (all refused). */
  requests: string[];
  /** Console errors and uncaught exceptions, in any frame. */
  errors: string[];
  /** The `tools/call` params the view sent through the host, in order. */
  calls(): Promise<{ name: string; arguments: Record<string, unknown> }[]>;
}

export interface OpenOptions {
  server: McpServer;
  toolInput: Record<string, unknown>;
  toolResult: unknown;
  context?: McpUiHostContext;
  serverTools?: boolean;
  /**
   * Answers the view's tools/call instead of the server: for results of fields the server does
   * not send yet (e.g. `resume`); by default every call goes to the real server.
   */
  callTool?: (params: { name: string; arguments?: Record<string, unknown> }) => Promise<unknown>;
  /** The page's clock, fixed at this instant (Date.now in the view), for the snapshot's age. */
  now?: Date;
  /** The page's size (the iframe is 40 px narrower). */
  viewport?: { width: number; height: number };
}

/** A fresh page hosting the view with this tool call, once the view has drawn the result. */
export async function openView(browser: Browser, options: OpenOptions): Promise<Hosted> {
  const page = await browser.newPage({ viewport: options.viewport ?? { width: 800, height: 900 } });
  if (options.now) await page.clock.setFixedTime(options.now);
  const requests: string[] = [];
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  const html = await hostHtml();
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url === HOST_URL) return route.fulfill({ contentType: "text/html", body: html });
    requests.push(url);
    return route.abort("blockedbyclient");
  });
  await page.exposeFunction(
    "mcpCallTool",
    (params: { name: string; arguments?: Record<string, unknown> }) =>
      options.callTool?.(params) ?? options.server.client.callTool(params),
  );
  await page.goto(HOST_URL);
  await page.evaluate((o) => (globalThis as unknown as HostWindow).host.open(o), {
    html: options.server.viewHtml,
    toolInput: options.toolInput,
    toolResult: options.toolResult,
    context: options.context ?? { theme: "light", locale: "en-US", displayMode: "inline" },
    serverTools: options.serverTools ?? true,
  } as never);
  const view = page.frameLocator("iframe");
  await view.locator('main[aria-busy="false"]').waitFor();
  return {
    page,
    view,
    requests,
    errors,
    calls: () => page.evaluate(() => (globalThis as unknown as HostWindow).host.calls as never),
  };
}

/** Save the view (the iframe, as a host shows it) as a PNG, when UI_SCREENSHOTS=1. */
export async function screenshot(hosted: Hosted, file: string): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(dirname(file), { recursive: true });
  await hosted.page.waitForTimeout(300); // the host's resize after the view's last size-changed
  const frame = hosted.page.locator("iframe");
  const box = await frame.boundingBox();
  // The whole view in the viewport: Chromium paints an iframe's off-screen part blank.
  const width = hosted.page.viewportSize()?.width ?? 800;
  if (box) await hosted.page.setViewportSize({ width, height: Math.ceil(box.y + box.height) });
  await frame.screenshot({ path: file });
}

/** Text as a person reads it: no-break and narrow spaces (Intl's) as plain spaces. */
export const plainText = (s: string | null) => (s ?? "").replace(/[\u00a0\u202f]/g, " ").trim();

/** A locator's text as a person reads it. */
export const read = async (l: Locator) => plainText(await l.textContent());

/** A tool result's first text block (what the agent reads). */
export const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;

/** No request left the page and no frame logged an error. */
export function expectClean(hosted: Hosted) {
  expect(hosted.requests, "requests leaving the page").toEqual([]);
  expect(hosted.errors, "console errors").toEqual([]);
}

/** What host/host.ts puts on the host page's window (page.evaluate runs in the browser). */
export interface HostWindow {
  host: { open(options: unknown): Promise<void>; setContext(context: unknown): void; calls: unknown[] };
}
