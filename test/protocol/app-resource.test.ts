/**
 * The budget-review MCP App as the protocol shows it (interface.md §8), in both eras: query_budgets
 * names the view in tools/list (`_meta.ui` and the legacy key), resources/list lists it and
 * resources/read returns one self-contained HTML document under 1 MB; servers without
 * query_budgets declare no resources; an unknown URI is a clear error.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { getToolUiResourceUri } from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as Transport1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IdempotencyStore } from "../../src/idempotency/store.js";
import { createServer, selectTools } from "../../src/mcp/server.js";
import { startHttp } from "../../src/mcp/transports/http.js";
import { createLogger } from "../../src/telemetry/logger.js";
import { connect } from "../helpers/mcp.js";
import { MODERN, raw2026 } from "../helpers/raw-2026.js";
import { useSandbox } from "../helpers/sandbox.js";

const URI = "ui://maintenance-mcp/budget-review";
const MIME = "text/html;profile=mcp-app";
const quiet = createLogger({ level: "error", sink: () => {} });
const fx = useSandbox();

let http: Awaited<ReturnType<typeof startHttp>>;
beforeAll(async () => {
  const { tools } = selectTools({ readOnly: false, hubAvailable: true });
  const deps = {
    clients: fx.clients(),
    logger: quiet,
    idempotency: new IdempotencyStore(),
    sandbox: true,
    version: "test",
  };
  http = await startHttp(() => createServer(deps, { tools, confirmWrites: false }), {
    host: "127.0.0.1",
    port: 0,
    token: undefined,
    logger: quiet,
    version: "test",
    abandon: () => {},
  });
});
afterAll(() => http.close());

/** What both client generations answer, reduced to what §8 speaks of. */
interface Seen {
  capabilities: Record<string, unknown> | undefined;
  tools: { name: string; _meta?: Record<string, unknown> }[];
  resources: { uri: string; name: string; mimeType?: string }[];
  read: { uri: string; mimeType?: string; text?: string; _meta?: unknown }[];
}

async function seenBy(era: "2026-07-28" | "2025-11-25"): Promise<Seen> {
  if (era === MODERN) {
    const client = new Client(
      { name: "app-test", version: "1" },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      return {
        capabilities: client.getServerCapabilities() as Record<string, unknown>,
        tools: (await client.listTools()).tools,
        resources: (await client.listResources()).resources,
        read: (await client.readResource({ uri: URI })).contents as Seen["read"],
      };
    } finally {
      await client.close();
    }
  }
  const client = new Client1({ name: "app-test", version: "1" });
  await client.connect(new Transport1(new URL(http.url)));
  try {
    return {
      capabilities: client.getServerCapabilities() as Record<string, unknown>,
      tools: (await client.listTools()).tools,
      resources: (await client.listResources()).resources,
      read: (await client.readResource({ uri: URI })).contents as Seen["read"],
    };
  } finally {
    await client.close();
  }
}

describe.each(["2026-07-28", "2025-11-25"] as const)("a %s client", (era) => {
  let seen: Seen;
  beforeAll(async () => {
    seen = await seenBy(era);
  });

  it("sees query_budgets name the view for the model and the app, and no other tool name one", () => {
    const budgets = seen.tools.find((t) => t.name === "query_budgets")!;
    expect(budgets._meta).toEqual({
      ui: { resourceUri: URI, visibility: ["model", "app"] },
      "ui/resourceUri": URI,
    });
    // The extension's own host helper finds it.
    expect(getToolUiResourceUri(budgets)).toBe(URI);
    const viewed = seen.tools.filter(
      (t) => (t._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri,
    );
    expect(viewed.map((t) => t.name)).toEqual(["query_budgets"]);
  });

  it("sees both writers declared the model's only (interface.md §9), so no view can call them", () => {
    for (const name of ["create_warehouse_entry", "add_task_resources"]) {
      const writer = seen.tools.find((t) => t.name === name)!;
      expect(writer._meta, name).toEqual({ ui: { visibility: ["model"] } });
    }
    const others = seen.tools.filter(
      (t) => !["create_warehouse_entry", "add_task_resources", "query_budgets"].includes(t.name),
    );
    expect(others.filter((t) => t._meta !== undefined)).toEqual([]);
  });

  it("lists the one view and reads it as one self-contained HTML document under 1 MB", () => {
    expect(seen.capabilities).toHaveProperty("resources");
    expect(seen.resources).toEqual([
      expect.objectContaining({ uri: URI, name: "budget-review", title: "Budget review", mimeType: MIME }),
    ]);
    expect(seen.read).toHaveLength(1);
    const [view] = seen.read;
    expect(view).toMatchObject({ uri: URI, mimeType: MIME, _meta: { ui: { prefersBorder: true } } });
    const html = view!.text!;
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(Buffer.byteLength(html)).toBeLessThanOrEqual(1_000_000);
    // Script and styles inline, and neither markup nor styles name anything to fetch (the browser
    // tests check that the running view requests nothing). Booleans: a failure must not print 600 KB.
    const script = /<script>([\s\S]+)<\/script>/.exec(html)?.[1] ?? "";
    const styles = /<style>([\s\S]+)<\/style>/.exec(html)?.[1] ?? "";
    const markup = html.replace(script, "").replace(styles, "");
    expect(script.length > 100_000 && styles.length > 1_000).toBe(true);
    expect(/\s(src|href|srcset|action|data)=/i.test(markup)).toBe(false);
    expect(/@import|url\(/i.test(styles)).toBe(false);
  });
});

describe("the view's resource", () => {
  it("is answered -32602 with the fix for an unknown URI, in both eras", async () => {
    const mcp = await connect({ clients: fx.clients() });
    try {
      await expect(mcp.client.readResource({ uri: "ui://maintenance-mcp/nope" })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining("Call resources/list for the available resources"),
      });
    } finally {
      await mcp.close();
    }
    const { status, body } = await raw2026<{ error: { code: number; message: string; data: unknown } }>(
      http.url,
      "resources/read",
      { uri: "ui://maintenance-mcp/nope" },
    );
    expect(status).toBe(200);
    expect(body?.error).toMatchObject({ code: -32602, data: { uri: "ui://maintenance-mcp/nope" } });
  });

  it("is cacheable like tools/list on 2026-07-28: list, templates and read", async () => {
    for (const [method, params] of [
      ["resources/list", {}],
      ["resources/templates/list", {}],
      ["resources/read", { uri: URI }],
    ] as const) {
      const { body } = await raw2026<{ result: Record<string, unknown> }>(http.url, method, params);
      expect(body?.result, method).toMatchObject({ ttlMs: 300_000, cacheScope: "public" });
    }
  });

  it("is not offered by a server without query_budgets (no resources capability)", async () => {
    const mcp = await connect({ clients: fx.clients(), tools: ["list_warehouse_groups_1"] });
    try {
      expect(mcp.client.getServerCapabilities()?.resources).toBeUndefined();
      const { tools } = await mcp.client.listTools();
      expect(tools.map((t) => t._meta)).toEqual([undefined]);
    } finally {
      await mcp.close();
    }
  });

  it("is listed with query_budgets under --read-only", async () => {
    const mcp = await connect({ clients: fx.clients(), readOnly: true });
    try {
      const { resources } = await mcp.client.listResources();
      expect(resources.map((r) => r.uri)).toEqual([URI]);
      const { resourceTemplates } = await mcp.client.listResourceTemplates();
      expect(resourceTemplates).toEqual([]);
    } finally {
      await mcp.close();
    }
  });
});
