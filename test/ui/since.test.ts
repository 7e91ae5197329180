/**
 * The view's "since" section with interface 6f's changes, in Debian's Chromium with the built
 * server's own resource: after a review and an overnight change on the sandbox, a compare_to
 * result shows approved, removed, the changed budget's amounts before and after, and how many were
 * not compared.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { cleanEnv } from "../e2e/bin.js";
import { expectClean, type Hosted, launch, type McpServer, openView, read, startServer } from "./harness.js";

let browser: Browser;
let sb: SandboxHandle;
let server: McpServer;
let dir: string;
const opened: Hosted[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mms-ui-since-"));
  sb = await startSandbox({ port: 0 });
  [browser, server] = await Promise.all([
    launch(),
    startServer([], cleanEnv({ ...sb.env(), MMS_STATE_DIR: dir })),
  ]);
});
afterAll(async () => {
  await Promise.all(opened.map((h) => h.page.close()));
  await browser?.close();
  await server?.close();
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = async (args: Record<string, unknown>) =>
  (await server.client.callTool({ name: "query_budgets", arguments: args })) as CallToolResult;
const company = () => sb.state.budgets.filter((b) => b.companyId === 1);

describe("the since section (interface 6f)", () => {
  it("shows approved, removed, a changed budget's amounts before and after, and the not compared", async () => {
    await call({ status: "pending", since: "all", group_by: ["currency"] });
    const pending = company().filter((b) => b.record.status === 1);
    pending[0]!.record.status = 2;
    (pending[1]!.record.list_items as { total_cost: number }[])[0]!.total_cost += 10;
    sb.state.budgets.splice(sb.state.budgets.indexOf(pending[2]!), 1);
    const args = { since: "all", group_by: ["currency"], compare_to: "previous" };
    const hosted = await openView(browser, { server, toolInput: args, toolResult: await call(args) });
    opened.push(hosted);
    const since = hosted.view.getByTestId("since");
    expect(await read(since.getByTestId("since-approved"))).toMatch(/^1 approved/);
    expect(await read(since.getByTestId("since-removed"))).toMatch(/^1 removed/);
    expect(await read(since.getByTestId("since-changed"))).toMatch(
      new RegExp(`^${pending[1]!.record.folio}: .+ → .+$`),
    );
    expect(await read(since.locator(".since-rest"))).toMatch(/1 changed · \d+ unchanged · \d+ not compared/);
    expectClean(hosted);
  });
});
