/**
 * Issue 34, finding 1, through the built binary (interface.md §9b): a fake upstream on loopback
 * answers 406 with `Retry-After: 999999999`, or with a rate-limit reset in epoch milliseconds a
 * century away. Before, the company's gate closed until 2058 or later and the next list call never
 * answered, spinning on an overflowing timer (about 1,400 warnings a second on stderr). Now the gate
 * closes for at most 5 minutes, the next list call answers RATE_LIMITED with retryAt at once (nothing
 * sent), a review says when its reset comes, and stderr holds one line about the absurd value.
 */
import { once } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeUpstream, sendJson } from "../client/fake-upstream.js";
import { CLIENT_ID, CLIENT_SECRET, fakeWithTokens } from "../client/helpers.js";
import { cleanEnv, startBin } from "./bin.js";

const CAP_MS = 5 * 60_000;
const open: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function refusingUpstream(headers: () => Record<string, string>): Promise<FakeUpstream> {
  const fake = await fakeWithTokens();
  open.push(() => fake.close());
  const refuse = (res: Parameters<Parameters<FakeUpstream["on"]>[2]>[1]) =>
    sendJson(res, 406, { success: false, message: "406", data: [{ ERROR: "too many requests" }] }, headers());
  fake.on("GET", "/api/warehouses_groups_1", (_req, res) => refuse(res));
  fake.on("GET", "/api/wo_budget", (_req, res) => refuse(res));
  return fake;
}

type Result = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: unknown };
const textOf = (r: unknown) => (r as Result).content[0]!.text;

describe("maintenance-mcp --http against an upstream naming absurd waits", () => {
  it.each([
    ["Retry-After: 999999999", () => ({ "retry-after": "999999999" })],
    ["a reset in epoch milliseconds", () => ({ "ratelimit-reset": String(Date.now() * 2) })],
  ])("%s: the gate closes for at most 5 minutes and every call answers", async (_name, headers) => {
    const fake = await refusingUpstream(headers);
    const { child, match, output } = await startBin(
      ["--http", "--port", "0"],
      cleanEnv({
        MMS_BASE_URL: `${fake.url}/api`,
        MMS_AUTH_URL: fake.url,
        MMS_CLIENT_ID: CLIENT_ID,
        MMS_CLIENT_SECRET: CLIENT_SECRET,
        MMS_MAX_RETRIES: "1",
      }),
      /listening on (http:\S+)/,
    );
    open.push(async () => {
      child.kill("SIGTERM");
      await once(child, "exit");
    });
    const client = new Client({ name: "e2e-gate", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(match[1]!)));
    open.push(() => client.close());

    const call = (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }) as Promise<Result>;
    const first = await call("list_warehouse_groups_1", {});
    expect(first.isError).toBe(true);
    expect(textOf(first)).toMatch(/RATE_LIMITED/);
    expect(textOf(first)).toMatch(/wait 300 s/);
    const sent = fake.count("GET", "/api/warehouses_groups_1");

    // The next plain list call: refused at once within the cap, nothing sent (before: no answer, ever).
    const second = await call("list_warehouse_groups_1", {});
    expect(second.isError).toBe(true);
    expect(textOf(second)).toMatch(/nothing was sent/);
    const retryAt = Date.parse(/"retryAt":"([^"]+)"/.exec(textOf(second))![1]!);
    expect(retryAt).toBeGreaterThan(Date.now());
    expect(retryAt).toBeLessThanOrEqual(Date.now() + CAP_MS);
    expect(fake.count("GET", "/api/warehouses_groups_1")).toBe(sent);

    // A review stops with what it has and names the reset: within 5 minutes, never 2058.
    const review = await call("query_budgets", { since: "all", group_by: ["currency"] });
    const text = textOf(review);
    expect(text).toMatch(/rate limit/);
    expect(text).not.toMatch(/20[5-9]\d-|\d{5}-/);

    // One line about the absurd value, no timer overflow.
    expect(output.stderr.match(/named a wait of/g)).toHaveLength(1);
    expect(output.stderr).not.toMatch(/TimeoutOverflowWarning/);
  });
});
