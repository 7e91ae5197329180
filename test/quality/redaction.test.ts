/**
 * Redaction end to end (SDK client → createServer → undici → sandbox with faults), issue 9:
 * an upstream error echoing the access token or the client secret in an encoded form (4), and a
 * slow answer echoing a token that was refreshed while the call was in flight (5). Neither may
 * reach the tool result or the debug log in any form.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { DEMO_CREDENTIALS } from "../../src/sandbox/index.js";
import { connect } from "../helpers/mcp.js";
import { useSandbox } from "../helpers/sandbox.js";
import { allText, countOf, fastClients, within } from "./helpers.js";

const fx = useSandbox({ faults: true });
const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(opened.map((o) => o.close()));
});
beforeEach(() => fx.sb.faults.reset());

/** The forms the review found unmasked, and the other usual ones. */
function forms(value: string): string[] {
  return [
    value,
    encodeURIComponent(value),
    encodeURIComponent(`Bearer ${value}`),
    new URLSearchParams({ t: `Bearer ${value}` }).toString().slice(2),
    Buffer.from(value).toString("base64"),
    Buffer.from(`Bearer ${value}`).toString("base64"),
    Buffer.from(value).toString("base64url"),
    JSON.stringify(value).slice(1, -1).replace(/\//g, "\\/"),
    Array.from(value, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
  ];
}

async function session(env: Record<string, string> = {}) {
  const fast = fastClients(fx.sb, { env });
  const conn = await connect({ clients: fast.clients, logger: fast.logger });
  opened.push(conn, { close: () => fast.clients.close() });
  const call = (name: string, args: Record<string, unknown>) =>
    within(10_000, conn.client.callTool({ name, arguments: args })) as Promise<CallToolResult>;
  return { call, lines: fast.lines };
}

const tokens = () => Object.keys(fx.sb.state.tokens);
const echoBody = (text: string) => ({ success: false, message: "422", data: [{ ERROR: text }], total: 0 });

function expectAbsent(where: string, text: string, secret: string): void {
  for (const form of forms(secret)) {
    expect(text.includes(form), `${where} holds ${form.slice(0, 12)}…`).toBe(false);
  }
}

describe("finding 4: an upstream error echoing a credential in an encoded form", () => {
  it("the token and the client secret, URL-encoded, base64, JSON-escaped: masked in the result and the log", async () => {
    const { call, lines } = await session();
    expect((await call("list_warehouse_groups_1", { limit: 1 })).isError).toBeFalsy();
    const token = tokens().at(-1)!;
    const secret = DEMO_CREDENTIALS.oauth.demo.clientSecret;
    const echo = [...forms(token), ...forms(secret)].join(" ; ");
    fx.sb.faults.failNext("/api/wo_budget", 1, { status: 422, body: echoBody(`bad request with ${echo}`) });
    const r = await call("query_budgets", { limit: 1 });
    expect(r.isError).toBe(true);
    expect(allText(r)).toMatch(/bad request with \[redacted\]/);
    for (const s of [token, secret]) {
      expectAbsent("the result", allText(r), s);
      expectAbsent("the log", lines.join("\n"), s);
    }
  });
});

describe("finding 5: a token refreshed while a call made with it is in flight", () => {
  it("the slow answer echoing the old token comes back masked", async () => {
    // Call A is held 3 s upstream while call B refreshes the token: a timeout that never cuts it.
    const { call, lines } = await session({ MMS_TIMEOUT_MS: "30000" });
    expect((await call("list_warehouse_groups_1", { limit: 1 })).isError).toBeFalsy();
    const old = tokens().at(-1)!;
    // Call A, made with the old token, is slow and echoes it.
    fx.sb.faults.latency(600_000, "/api/wo_budget"); // released once call B has refreshed the token
    fx.sb.faults.failNext("/api/wo_budget", 1, {
      status: 422,
      body: echoBody(`bad request with Bearer ${old} (${encodeURIComponent(old)})`),
    });
    const budgets = countOf(fx.sb, "GET /api/wo_budget");
    const slow = call("query_budgets", { limit: 1 });
    // Call A is held upstream, made with the old token (an event, not a guessed delay).
    await vi.waitFor(() => expect(countOf(fx.sb, "GET /api/wo_budget")).toBe(budgets + 1), {
      timeout: 15_000,
      interval: 5,
    });
    // Call B meets an expired token: 401, the old token is dropped, a new one fetched.
    const fetched = countOf(fx.sb, "POST /oauth/token");
    fx.sb.faults.expireTokens();
    const b = await call("list_warehouse_groups_1", { limit: 1 });
    fx.sb.faults.latency(0, "/api/wo_budget");
    const r = await slow;
    expect(b.isError).toBeFalsy();
    expect(countOf(fx.sb, "POST /oauth/token")).toBe(fetched + 1);
    expect(tokens().at(-1)).not.toBe(old);
    expect(r.isError).toBe(true);
    expect(allText(r)).toMatch(/bad request with Bearer \[redacted\] \(\[redacted\]\)/);
    expectAbsent("the result", allText(r), old);
    expectAbsent("the log", lines.join("\n"), old);
  });
});
