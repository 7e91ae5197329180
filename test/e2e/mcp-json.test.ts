/**
 * mcp.json is ready to paste: valid, every flag exists, every entry says whether it works today,
 * and the entries that work from a clone actually start (stdio with and without env, HTTP with
 * the bearer header). The tarball entry is started by package.test.ts.
 */
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCli } from "../../src/main/cli.js";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { cleanEnv, startBin } from "./bin.js";

interface Entry {
  type?: "stdio" | "http";
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
}
const file = JSON.parse(readFileSync("mcp.json", "utf8")) as {
  _about: { works_today: string[]; works_once_published: string[] };
  mcpServers: Record<string, Entry>;
  servers: Record<string, Entry>;
  inputs: { id: string; password?: boolean }[];
};
const { mcpServers, servers } = file;
const PLACEHOLDER = "/ABSOLUTE/PATH/TO/maintenance-mcp";
const TOKEN = "mcp-json-token-0123456789abcdef";

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
});
afterAll(() => sb.close());

async function stdioTools(entry: Entry, env: Record<string, string> = {}): Promise<string[]> {
  const args = entry.args!.map((a) => a.replace(PLACEHOLDER, resolve(".")));
  const client = new Client({ name: "mcp-json", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: entry.command === "node" ? process.execPath : entry.command!,
      args,
      env: cleanEnv(env),
      stderr: "pipe",
    }),
  );
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    const result = await client.callTool({ name: "list_warehouse_groups_1", arguments: { limit: 1 } });
    expect(result.isError).toBeFalsy();
    return names;
  } finally {
    await client.close();
  }
}

describe("mcp.json", () => {
  it("offers the sandbox, a real upstream, the tarball, HTTP and the npx forms, with valid flags", () => {
    expect(Object.keys(mcpServers)).toEqual(
      expect.arrayContaining([
        "maintenance-sandbox",
        "maintenance",
        "maintenance-tarball",
        "maintenance-http",
        "maintenance-npx",
        "maintenance-npx-windows",
      ]),
    );
    expect(mcpServers["maintenance-npx-windows"]?.command).toBe("cmd");
    expect(mcpServers["maintenance-npx-windows"]?.args?.slice(0, 4)).toEqual([
      "/c",
      "npx",
      "-y",
      "maintenance-mcp",
    ]);
    for (const entry of [...Object.values(mcpServers), ...Object.values(servers)]) {
      if (entry.url !== undefined) continue;
      const flags = entry.args!.filter((a) => a.startsWith("--") && a !== "--package");
      expect(parseCli(flags).command).toBe("serve");
    }
    expect(mcpServers.maintenance?.env).toHaveProperty("MMS_BASE_URL");
  });

  it("says which entries work today and which once the package is published", () => {
    const names = [...new Set([...Object.keys(mcpServers), ...Object.keys(servers)])];
    for (const name of names) {
      const today = file._about.works_today.includes(name);
      const published = file._about.works_once_published.includes(name);
      expect(today !== published, name).toBe(true);
      const entry = mcpServers[name] ?? servers[name]!;
      const fromRegistry = entry.args?.includes("maintenance-mcp") && !entry.args.includes("--package");
      expect(published, name).toBe(Boolean(fromRegistry));
    }
  });

  it("gives VS Code entries a type, and HTTP entries the bearer header", () => {
    for (const entry of Object.values(servers)) expect(["stdio", "http"]).toContain(entry.type);
    const vscode = servers["maintenance-http"]!;
    const input = /\$\{input:([^}]+)\}/.exec(vscode.headers!.Authorization!)?.[1];
    expect(file.inputs.find((i) => i.id === input)?.password).toBe(true);
    expect(mcpServers["maintenance-http"]?.headers?.Authorization).toMatch(
      /^Bearer \$\{env:MCP_HTTP_TOKEN\}$/,
    );
  });

  it("the clone's sandbox entries start and answer", async () => {
    expect(await stdioTools(mcpServers["maintenance-sandbox"]!)).toHaveLength(5);
    expect(await stdioTools(servers["maintenance-sandbox"]!)).toHaveLength(5);
  });

  it("the clone's real-upstream entries start with their env filled in", async () => {
    for (const name of ["maintenance", "maintenance-read-only-hawk"]) {
      const entry = mcpServers[name]!;
      const auth = entry.env!.MMS_AUTH === "hawk" ? "hawk" : "oauth";
      const real = sb.env({ auth });
      const env = Object.fromEntries(Object.keys(entry.env!).map((k) => [k, real[k] ?? entry.env![k]!]));
      expect(await stdioTools(entry, env)).toHaveLength(auth === "hawk" ? 2 : 5);
    }
  });

  it("the HTTP entries connect with their Authorization header", async () => {
    const { child, match } = await startBin(
      ["--http", "--port", "0", "--sandbox"],
      cleanEnv({ MCP_HTTP_TOKEN: TOKEN }),
      /listening on (http:\S+)/,
    );
    try {
      for (const entry of [mcpServers["maintenance-http"]!, servers["maintenance-http"]!]) {
        const url = new URL(entry.url!);
        url.port = new URL(match[1]!).port;
        const headers = { Authorization: entry.headers!.Authorization!.replace(/\$\{[^}]+\}/, TOKEN) };
        const client = new Client({ name: "mcp-json-http", version: "1" });
        await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
        expect((await client.listTools()).tools).toHaveLength(5);
        await client.close();
      }
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });
});
