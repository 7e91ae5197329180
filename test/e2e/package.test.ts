/**
 * The npm package as a user gets it: `npm pack`, `npm install` of the tarball into a temporary
 * prefix (offline from the npm cache), then the installed `maintenance-mcp` bin over stdio
 * with the SDK client, and mcp.json's tarball entry through npx. The bin is the dist/bin/ bundle:
 * zod, the SDK, undici and hawk are inside it, so the install has none of them.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, posix } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv } from "./bin.js";
import { NPM, type Packed, packRepo } from "./pack.js";

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
let packed: Packed;
let prefix: string;

beforeAll(() => {
  packed = packRepo();
  prefix = join(packed.dir, "prefix");
  execFileSync(
    NPM,
    [
      "install",
      "--prefix",
      prefix,
      packed.tarball,
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
}, 180_000);
afterAll(() => rmSync(packed.dir, { recursive: true, force: true }));

async function listToolsOf(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<string[]> {
  const client = new Client({ name: "package-test", version: "1" });
  await client.connect(new StdioClientTransport({ command, args, env: cleanEnv(env), stderr: "pipe" }));
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    const result = await client.callTool({ name: "list_warehouse_groups_1", arguments: { limit: 1 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ returned: 1, sandbox: true });
    // The MCP App view ships in the package and the installed bin finds it.
    const [view] = (await client.readResource({ uri: "ui://maintenance-mcp/budget-review" })).contents;
    expect((view as { text?: string } | undefined)?.text?.startsWith("<!doctype html>")).toBe(true);
    return names;
  } finally {
    await client.close();
  }
}

describe("the npm package", () => {
  it("holds what a user runs and reads: the bundled binary, docs, client files, no source maps, no tests", () => {
    const { files } = packed;
    expect(files).toContain("dist/bin/maintenance-mcp.js");
    expect(files).toContain("dist/bin/third-party-licenses.txt");
    expect(files).toContain("dist/bin/ui/budget-review.html");
    // The unbundled build (dist/src, dist/tools) is for the tests only.
    expect(files.filter((f) => f.startsWith("dist/") && !f.startsWith("dist/bin/"))).toEqual([]);
    expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);
    expect(files.filter((f) => /^(src|test|tools|scripts|bench\/run)/.test(f) || f.endsWith(".ts"))).toEqual(
      [],
    );
    for (const f of [
      "README.md",
      "CONTRIBUTING.md",
      "CHANGELOG.md",
      "LICENSE",
      "mcp.json",
      "server.json",
      "docs/configuration.md",
      "examples/clients/claude_desktop_config.json",
      "examples/clients/claude-code.mcp.json",
      "examples/clients/vscode.mcp.json",
      "examples/clients/cursor.mcp.json",
    ]) {
      expect(files).toContain(f);
    }
    // Every relative link of the README and docs/ resolves inside the package.
    for (const doc of files.filter((f) => f.endsWith(".md"))) {
      const text = readFileSync(doc, "utf8");
      for (const [, target] of text.matchAll(/\]\((?!https?:|#|mailto:)([^)#\s]+)/g)) {
        expect(files, `${doc} links to ${target}`).toContain(
          posix.normalize(posix.join(posix.dirname(doc), target!)),
        );
      }
    }
  });

  it("has complete metadata and no install-time script for consumers", () => {
    expect(pkg.repository.url).toMatch(/^git\+https:\/\/github\.com\/.+\.git$/);
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.bugs.url).toMatch(/^https:\/\//);
    expect(pkg.keywords).toEqual(expect.arrayContaining(["mcp", "model-context-protocol"]));
    expect(pkg.mcpName).toBe(JSON.parse(readFileSync("server.json", "utf8")).name);
    for (const script of ["preinstall", "install", "postinstall", "prepare"])
      expect(pkg.scripts).not.toHaveProperty(script);
    expect(pkg.scripts.prepack).toBe("npm run typecheck && npm run build");
  });

  it("installs, and its bin serves MCP over stdio", async () => {
    const bin = join(
      prefix,
      "node_modules",
      ".bin",
      process.platform === "win32" ? "maintenance-mcp.cmd" : "maintenance-mcp",
    );
    expect(existsSync(bin)).toBe(true);
    expect(execFileSync(bin, ["--version"]).toString().trim()).toBe(pkg.version);
    expect(await listToolsOf(bin, ["--sandbox"])).toHaveLength(5);
    // As server.json describes it: no required variable, the sandbox by MMS_SANDBOX alone.
    const required = JSON.parse(readFileSync("server.json", "utf8")).packages[0].environmentVariables.filter(
      (v: { isRequired?: boolean }) => v.isRequired,
    );
    expect(required).toEqual([]);
    expect(await listToolsOf(bin, [], { MMS_SANDBOX: "true" })).toHaveLength(5);
    // No dependencies at all: every package (OpenTelemetry and Redis too) is inside the bundle, so the bin ran
    // without any of them, and the install stays small (43 MB while those two were dependencies; issue 22).
    const modules = join(prefix, "node_modules");
    expect(readdirSync(modules).filter((name) => !name.startsWith("."))).toEqual(["maintenance-mcp"]);
    const bytes = (readdirSync(modules, { recursive: true }) as string[])
      .map((f) => statSync(join(modules, f)))
      .filter((st) => st.isFile())
      .reduce((sum, st) => sum + st.size, 0);
    expect(bytes).toBeLessThan(12 * 1024 * 1024);
  }, 60_000);

  it("runs as mcp.json's tarball entry (npx --package <tarball>)", async () => {
    const { mcpServers } = JSON.parse(readFileSync("mcp.json", "utf8"));
    const entry = mcpServers["maintenance-tarball"] as { command: string; args: string[] };
    expect(entry.command).toBe("npx");
    const args = entry.args.map((a) =>
      a === `/ABSOLUTE/PATH/TO/maintenance-mcp-${pkg.version}.tgz` ? packed.tarball : a,
    );
    expect(args).toContain(packed.tarball);
    expect(
      await listToolsOf(process.platform === "win32" ? "npx.cmd" : "npx", ["--prefer-offline", ...args]),
    ).toHaveLength(5);
  }, 120_000);
});
