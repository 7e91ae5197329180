/** The built binary over real stdio: protocol-only stdout, configuration errors, flags. */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it, vi } from "vitest";
import { inRegistryOrder, READ_ONLY_TOOL_NAMES } from "../helpers/tools.js";
import { BIN, cleanEnv, runBin } from "./bin.js";

describe("maintenance-mcp over stdio", () => {
  it("writes nothing but JSON-RPC on stdout during a whole session, logs on stderr", async () => {
    const child = spawn(process.execPath, [BIN, "--sandbox"], { env: cleanEnv({ LOG_LEVEL: "debug" }) });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const lines: string[] = [];
    const responses = new Map<number, Record<string, unknown>>();
    const waiters = new Map<number, (r: Record<string, unknown>) => void>();
    createInterface({ input: child.stdout }).on("line", (line) => {
      lines.push(line);
      const msg = JSON.parse(line) as Record<string, unknown>;
      if (typeof msg.id === "number") {
        responses.set(msg.id, msg);
        waiters.get(msg.id)?.(msg);
      }
    });
    const request = (id: number, method: string, params: unknown) =>
      new Promise<Record<string, unknown>>((resolve) => {
        waiters.set(id, resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      });

    await request(1, "initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    const list = await request(2, "tools/list", {});
    const call = await request(3, "tools/call", {
      name: "add_task_resources",
      arguments: {
        id_group_task: "1",
        id_task: "102",
        resources: '[{"type_description":"SERVICES","id_service_type":33}]',
      },
    });
    const bad = await request(4, "tools/call", { name: "query_budgets", arguments: { since: "soon" } });
    const unknown = await request(5, "tools/call", { name: "nope", arguments: {} });
    child.stdin.end();
    const [code] = await once(child, "exit");

    expect(code).toBe(0);
    expect((list.result as { tools: unknown[] }).tools).toHaveLength(5);
    expect(call.result).toMatchObject({ structuredContent: { total: 1, sandbox: true } });
    expect(bad.result).toMatchObject({ isError: true });
    expect(unknown.error).toMatchObject({ code: -32602 });
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
    expect(stderr).toMatch(/SANDBOX MODE/);
    for (const line of stderr.trim().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
  });

  it("exits 2 naming each missing variable, with nothing on stdout", async () => {
    const run = await runBin([], cleanEnv());
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/MMS_BASE_URL/);
    expect(run.stderr).toMatch(/MMS_CLIENT_ID\/MMS_CLIENT_SECRET or MMS_HAWK_ID\/MMS_HAWK_KEY/);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("never echoes a secret in a configuration error", async () => {
    const run = await runBin(
      [],
      cleanEnv({ MMS_BASE_URL: "not a url", MMS_CLIENT_ID: "id", MMS_CLIENT_SECRET: "top-secret-value-42" }),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/MMS_BASE_URL/);
    expect(run.stderr).toMatch(/MMS_AUTH_URL/);
    expect(run.stderr).not.toMatch(/top-secret-value-42/);
  });

  it.each([
    [["--tools", "nope"], /unknown tool "nope"/],
    [["--read-only", "--tools", "create_warehouse_entry"], /cannot be enabled with --read-only/],
    [["--readonly"], /--readonly: unknown flag; did you mean --read-only\?/],
    [["--port", "1"], /--port: only applies with --http/],
  ])("exits 2 for bad usage %j", async (args, message) => {
    const run = await runBin(["--sandbox", ...args], cleanEnv());
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(message);
  });

  it("--help and --version answer on stdout", async () => {
    const help = await runBin(["--help"], cleanEnv());
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--confirm-writes/);
    const version = await runBin(["--version"], cleanEnv());
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("--read-only and --tools shape the tool list of the real binary", async () => {
    const names = async (args: string[]) => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [BIN, "--sandbox", ...args],
        env: cleanEnv(),
        stderr: "pipe",
      });
      const client = new Client({ name: "e2e", version: "1" });
      await client.connect(transport);
      const { tools } = await client.listTools();
      await client.close();
      return tools.map((t) => t.name);
    };
    expect(await names(["--read-only"])).toEqual(READ_ONLY_TOOL_NAMES);
    expect(await names(["--tools", "list_dags,add_task_resources"])).toEqual(
      inRegistryOrder(["list_dags", "add_task_resources"]),
    );
  });

  it("reads MMS_BUDGET_DISCOUNT in sandbox mode and query_budgets adds net_total", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "--sandbox"],
      env: { ...cleanEnv(), MMS_BUDGET_DISCOUNT: "percent" },
      stderr: "pipe",
    });
    const client = new Client({ name: "e2e", version: "1" });
    await client.connect(transport);
    const result = await client.callTool({ name: "query_budgets", arguments: { id: "104" } });
    await client.close();
    expect(result.structuredContent).toMatchObject({
      complete: true,
      budgets: [{ folio: "104", items_total: 0.3, discount: 12.5, net_total: 0.26 }],
    });
  });

  it("answers a message over the 10 MiB limit with an error naming its id, logs it, and goes on", async () => {
    const child = spawn(process.execPath, [BIN, "--sandbox"], { env: cleanEnv({ LOG_LEVEL: "warn" }) });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const answers: Record<string, unknown>[] = [];
    const seen = new Map<unknown, (m: Record<string, unknown>) => void>();
    createInterface({ input: child.stdout }).on("line", (line) => {
      const msg = JSON.parse(line) as Record<string, unknown>;
      answers.push(msg);
      seen.get(msg.id)?.(msg);
    });
    const answer = (id: unknown) => new Promise<Record<string, unknown>>((resolve) => seen.set(id, resolve));
    const huge = "x".repeat(11 * 1024 * 1024);
    // The 1.x SDK puts "id" last; the id is recovered from the end of the discarded line.
    const tooBig = answer(7);
    child.stdin.write(
      `{"method":"tools/call","params":{"name":"list_dags","arguments":{"pad":"${huge}"}},"jsonrpc":"2.0","id":7}\n`,
    );
    const refused = await tooBig;
    const notJson = answer(null);
    child.stdin.write("this is not json\n");
    const parseError = await notJson;
    const listed = answer(8);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tools/list", params: {} })}\n`);
    const list = await listed;
    child.stdin.end();
    const [code] = await once(child, "exit");

    expect(refused.error).toMatchObject({ code: -32600 });
    expect((refused.error as { message: string }).message).toMatch(
      /Request too large: \d+ bytes; .* at most 10 MiB/,
    );
    expect(parseError.error).toMatchObject({ code: -32700 });
    expect((list.result as { tools: unknown[] }).tools).toHaveLength(5);
    expect(stderr).toMatch(/message over the size limit discarded; the server goes on/);
    expect(code).toBe(0);
  }, 30_000);

  it("exits non-zero with a log line when stdout breaks", async () => {
    const child = spawn(process.execPath, [BIN, "--sandbox"], { env: cleanEnv({ LOG_LEVEL: "warn" }) });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    // Once the server has started (its sandbox warning is logged), never after a guessed delay.
    await vi.waitFor(() => expect(stderr).toMatch(/SANDBOX MODE/), { timeout: 15_000, interval: 5 });
    child.stdout.destroy();
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })}\n`);
    const [code] = await once(child, "exit");
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/stdio transport cannot go on/);
  }, 20_000);
});
