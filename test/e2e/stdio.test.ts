/** The built binary over real stdio: protocol-only stdout, configuration errors, flags. */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
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
    [["--bogus"], /Unknown option '--bogus'/],
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
});
