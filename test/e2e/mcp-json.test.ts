/** mcp.json is ready to paste: valid, every flag exists, and the clone entries actually start. */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { parseCli } from "../../src/cli.js";
import { cleanEnv } from "./bin.js";

interface Entry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}
const { mcpServers } = JSON.parse(readFileSync("mcp.json", "utf8")) as { mcpServers: Record<string, Entry> };
const PLACEHOLDER = "/ABSOLUTE/PATH/TO/maintenance-mcp";

describe("mcp.json", () => {
  it("offers the sandbox, a real upstream and the Windows npx form, with valid flags", () => {
    expect(Object.keys(mcpServers)).toEqual(
      expect.arrayContaining(["maintenance-sandbox", "maintenance", "maintenance-npx-windows"]),
    );
    expect(mcpServers["maintenance-npx-windows"]?.command).toBe("cmd");
    expect(mcpServers["maintenance-npx-windows"]?.args.slice(0, 4)).toEqual([
      "/c",
      "npx",
      "-y",
      "maintenance-mcp",
    ]);
    for (const entry of Object.values(mcpServers)) {
      const flags = entry.args.filter((a) => a.startsWith("--"));
      expect(parseCli(flags).command).toBe("serve");
    }
    expect(mcpServers.maintenance?.env).toHaveProperty("MMS_BASE_URL");
  });

  it("the clone's sandbox entry starts and answers tools/list", async () => {
    const entry = mcpServers["maintenance-sandbox"]!;
    const args = entry.args.map((a) => a.replace(PLACEHOLDER, resolve(".")));
    const client = new Client({ name: "mcp-json", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: entry.command === "node" ? process.execPath : entry.command,
        args,
        env: cleanEnv(),
        stderr: "pipe",
      }),
    );
    expect((await client.listTools()).tools).toHaveLength(5);
    await client.close();
  });
});
