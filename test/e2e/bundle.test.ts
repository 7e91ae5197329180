/**
 * The MCP Bundle as Claude Desktop uses it: `scripts/bundle.mjs` builds maintenance-mcp.mcpb,
 * @anthropic-ai/mcpb's own `unpackExtension` and `getMcpConfigForManifest` (the reference for
 * hosts) unpack it and resolve `${__dirname}` and `${user_config.*}`, and the resolved command
 * is started over stdio and asked for its tools.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, sep } from "node:path";
import { getMcpConfigForManifest, type McpbManifestAny, unpackExtension } from "@anthropic-ai/mcpb";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { cleanEnv } from "./bin.js";

let work: string;
let dir: string;
let manifest: McpbManifestAny;
let sb: SandboxHandle;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "maintenance-mcp-mcpb-"));
  const bundle = join(work, "maintenance-mcp.mcpb");
  execFileSync(process.execPath, ["scripts/bundle.mjs", "--out", bundle], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  dir = join(work, "unpacked");
  expect(await unpackExtension({ mcpbPath: bundle, outputDir: dir, silent: true })).toBe(true);
  manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  sb = await startSandbox({ port: 0 });
}, 240_000);
afterAll(async () => {
  await sb?.close();
  rmSync(work, { recursive: true, force: true });
});

/** Start the bundle's server as a host would, with these settings; returns its tool names. */
async function toolsWith(userConfig: Record<string, string | boolean>): Promise<string[]> {
  const config = await getMcpConfigForManifest({
    manifest,
    extensionPath: dir,
    systemDirs: {
      HOME: homedir(),
      DESKTOP: join(homedir(), "Desktop"),
      DOCUMENTS: join(homedir(), "Documents"),
    },
    userConfig,
    pathSeparator: sep,
  });
  if (!config) throw new Error("the manifest gave no mcp_config");
  // Claude Desktop runs `node` bundles with its own Node.js; this test's is the same major line.
  expect(config.command).toBe("node");
  const client = new Client({ name: "mcpb-host", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: config.args ?? [],
      env: cleanEnv(config.env ?? {}),
      stderr: "pipe",
    }),
  );
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    const result = await client.callTool({ name: "list_warehouse_groups_1", arguments: { limit: 1 } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    // The MCP App view ships in the bundle and the unpacked server finds it.
    const [view] = (await client.readResource({ uri: "ui://maintenance-mcp/budget-review" })).contents;
    expect((view as { text?: string } | undefined)?.text?.startsWith("<!doctype html>")).toBe(true);
    return names.sort();
  } finally {
    await client.close();
  }
}

describe("maintenance-mcp.mcpb", () => {
  it("holds the bundled server, its icon and no node_modules (nothing left to install)", () => {
    const files = (readdirSync(dir, { recursive: true }) as string[]).map((f) => f.split(sep).join("/"));
    expect(files).toContain("dist/bin/maintenance-mcp.js");
    expect(files).toContain("dist/bin/ui/budget-review.html");
    expect(manifest.icon).toBe("icon.png");
    expect(readFileSync(join(dir, "icon.png")).equals(readFileSync("mcpb/icon.png"))).toBe(true);
    // Everything is inside dist/bin (OpenTelemetry and Redis as chunks loaded when configured):
    // the package has no production dependencies, so the bundle installs none.
    expect(files.filter((f) => f.startsWith("node_modules/") && !f.startsWith("node_modules/."))).toEqual([]);
    const own = files.filter((f) => !f.startsWith("node_modules/"));
    expect(own.filter((f) => /^(test|src|tools|scripts)\//.test(f) || f.endsWith(".map"))).toEqual([]);
    expect(manifest).toMatchObject({ manifest_version: "0.3", server: { type: "node" } });
  });

  it("starts on the sandbox setting and lists every tool", async () => {
    expect(await toolsWith({ sandbox: true })).toEqual([
      "add_task_resources",
      "create_warehouse_entry",
      "list_dags",
      "list_warehouse_groups_1",
      "query_budgets",
    ]);
  });

  it("passes URLs and credentials from the settings, and honours read-only", async () => {
    const env = sb.env();
    const settings = {
      base_url: env.MMS_BASE_URL!,
      auth_url: env.MMS_AUTH_URL!,
      client_id: env.MMS_CLIENT_ID!,
      client_secret: env.MMS_CLIENT_SECRET!,
      read_only: true,
    };
    expect(await toolsWith(settings)).toEqual(["list_dags", "list_warehouse_groups_1", "query_budgets"]);
  });
});
