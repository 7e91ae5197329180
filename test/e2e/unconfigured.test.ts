/**
 * interface.md §1 (third round): over stdio a configuration problem reaches the host. The built
 * binary answers initialize and tools/list, every tool call returns the problem (isError) and where
 * to fix it, nothing reaches any upstream, no secret shows, and it exits 2 once stdin closes. With
 * --http it still refuses to start. A near-miss of a safety variable is such a problem.
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { READ_ONLY_TOOL_NAMES, TOOL_NAMES } from "../helpers/tools.js";
import { BIN, cleanEnv, type RawSession, rawSession, runBin } from "./bin.js";

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sb.close();
});

const SECRET = "never-shown-secret-4711";

/** initialize, tools/list and one call of every listed tool; then stdin closes. */
async function session(s: RawSession) {
  const init = await s.initialize();
  const list = (await s.request("tools/list")).result as { tools: { name: string }[] };
  const names = list.tools.map((t) => t.name);
  const calls = [];
  for (const name of names) calls.push((await s.request("tools/call", { name, arguments: {} })).result);
  const run = await s.end();
  return { init, names, calls: calls as { isError?: boolean; content: { text: string }[] }[], run };
}

describe("an unconfigured stdio start", () => {
  it("answers the handshake, lists every tool, answers each call with the problem and the fix, then exits 2", async () => {
    const { init, names, calls, run } = await session(
      rawSession([], cleanEnv({ MMS_CLIENT_SECRET: SECRET, MMS_AUTH_URL: sb.url })),
    );
    expect(init.instructions).toMatch(/^NOT CONFIGURED/);
    expect(names).toEqual(TOOL_NAMES);
    for (const call of calls) expect(call.isError).toBe(true);
    expect(calls[0]!.content[0]!.text).toMatchInlineSnapshot(`
      "maintenance-mcp cannot run add_task_resources: Configuration problems:
        - MMS_BASE_URL: required: base URL of the main API, e.g. https://host/api
        - MMS_CLIENT_ID: required when MMS_CLIENT_SECRET is set
      See README, "Configuration".
      Fix this in this server's entry in your MCP client's configuration ("env" for variables, "args" for flags; e.g. claude_desktop_config.json, .vscode/mcp.json, .cursor/mcp.json), then restart the server. \`maintenance-mcp --check\` tests a configuration; "--sandbox" in "args" tries the tools on demo data.
      Details: {"code":"NOT_CONFIGURED"}"
    `);
    // The same message as stderr, which a host would hide.
    expect(run.stderr).toContain("maintenance-mcp: Configuration problems:\n  - MMS_BASE_URL: required");
    expect(run.code).toBe(2);
    // Nothing reached any upstream; no secret anywhere.
    expect(sb.faults.requestCount).toEqual({});
    expect(run.stdout + run.stderr).not.toContain(SECRET);
  });

  it("a real MCP client (the SDK's, over stdio) connects, lists the tools and reads the problem", async () => {
    const client = new Client({ name: "host", version: "1" });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [BIN], env: cleanEnv(), stderr: "pipe" }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(TOOL_NAMES);
      const result = await client.callTool({ name: "query_budgets", arguments: { status: "pending" } });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain("MMS_BASE_URL: required");
    } finally {
      await client.close();
    }
  });

  it("lists what the flags would serve (--read-only)", async () => {
    const { names, run } = await session(rawSession(["--read-only"], cleanEnv()));
    expect(names).toEqual(READ_ONLY_TOOL_NAMES);
    expect(run.code).toBe(2);
  });

  it("a misspelt safety variable lets no tool run, as its message says: MMS_READONLY with --sandbox writes nothing", async () => {
    const { names, calls, run } = await session(
      rawSession(["--sandbox"], cleanEnv({ MMS_READONLY: "true" })),
    );
    expect(names).toEqual(TOOL_NAMES);
    // "no tool runs": every call, the writers' included, answers with the problem.
    for (const call of calls) expect(call.isError).toBe(true);
    const text = calls[names.indexOf("create_warehouse_entry")]!.content[0]!.text;
    expect(text).toContain(
      "MMS_READONLY: not a variable this server reads; did you mean MMS_READ_ONLY? Ignored, the tools that write upstream would be offered, so no tool runs until it is fixed: rename it to MMS_READ_ONLY (or remove it)",
    );
    expect(run.stderr).not.toMatch(/SANDBOX MODE/); // the simulator never started
    expect(run.code).toBe(2);
  });

  it("a bad flag in args is shown to the host too", async () => {
    const { calls, run } = await session(rawSession(["--readonly"], cleanEnv()));
    expect(calls[0]!.content[0]!.text).toContain("--readonly: unknown flag; did you mean --read-only?");
    expect(run.code).toBe(2);
  });

  it('inside an MCP Bundle, points at the extension\'s settings by their titles, and at its "Use the sandbox" setting', async () => {
    const dir = mkdtempSync(join(tmpdir(), "maintenance-mcp-unconfigured-"));
    try {
      cpSync("dist/bin", join(dir, "dist", "bin"), { recursive: true });
      cpSync("mcpb/manifest.json", join(dir, "manifest.json"));
      const s = rawSession([], cleanEnv({ MMS_SANDBOX: "false" }), {
        bin: join(dir, "dist", "bin", "maintenance-mcp.js"),
      });
      const { calls, run } = await session(s);
      expect(calls[0]!.content[0]!.text).toContain(
        `Fix this in the extension's settings in your MCP host (Claude Desktop: Settings > Extensions > Maintenance management (CMMS) > Configure: "API base URL", "OAuth client ID", "OAuth client secret", "Hawk ID", "Hawk key"), then restart the extension. To try the tools on demo data without an account, turn on "Use the sandbox" instead.`,
      );
      expect(run.code).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("with --http a configuration problem still stops the start", () => {
  it("exits 2 at once, stdin left open", async () => {
    const run = await runBin(["--http", "--port", "0"], cleanEnv(), 10_000, { keepStdinOpen: true });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/MMS_BASE_URL/);
  });

  it("MCP_HTTP_TOKNE is refused: the server would serve without a token", async () => {
    const run = await runBin(
      ["--http", "--sandbox", "--port", "0"],
      cleanEnv({ MCP_HTTP_TOKNE: SECRET }),
      10_000,
      {
        keepStdinOpen: true,
      },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "MCP_HTTP_TOKNE: not a variable this server reads; did you mean MCP_HTTP_TOKEN? Ignored, the HTTP server would serve without a token",
    );
    expect(run.stderr).not.toMatch(/listening on/);
    expect(run.stderr).not.toContain(SECRET);
  });
});
