/**
 * The built binary on an unsupported Node.js (18, from the npm registry's `node` package): one line
 * naming the version needed on stderr, exit 2; over stdio the MCP host's `initialize` is answered with
 * that line as an error (hosts hide stderr). And `npm ci`'s first step of ours, scripts/check-node.cjs
 * (its build), ends on such a Node with that one line, no stack trace.
 * Skipped, saying so, when node@18 cannot be fetched (an offline machine without it cached).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { MIN_NODE } from "../../src/main/node-version.js";
import { BIN, cleanEnv } from "./bin.js";

function node18(): string | undefined {
  try {
    const npx = process.platform === "win32" ? "npx.cmd" : "npx";
    const out = execFileSync(npx, ["-y", "--prefer-offline", "node@18", "-p", "process.execPath"], {
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 120_000,
    });
    return out.toString().trim();
  } catch {
    return undefined;
  }
}

const old = node18();

describe("the Node.js version guard", () => {
  it.skipIf(old === undefined)("exits 2 on Node 18 with one line naming the version needed", () => {
    const run = spawnSync(old!, [BIN, "--sandbox"], {
      env: cleanEnv(),
      input: "",
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(
      new RegExp(
        `^maintenance-mcp needs Node\\.js ${MIN_NODE} or newer; this is Node\\.js 18\\.\\d+\\.\\d+\\. [^\\n]*\\n$`,
      ),
    );
  });

  it.skipIf(old === undefined)(
    "answers an MCP host's initialize on Node 18 with an error naming the version",
    async () => {
      const client = new Client({ name: "old-node-host", version: "1" });
      const transport = new StdioClientTransport({
        command: old!,
        args: [BIN],
        env: cleanEnv(),
        stderr: "pipe",
      });
      const failure = await client.connect(transport).then(
        () => new Error("connected"),
        (error: unknown) => error as Error,
      );
      expect(failure.message).toContain(
        `maintenance-mcp needs Node.js ${MIN_NODE} or newer; this is Node.js 18.`,
      );
      await client.close();
    },
  );

  it("exits at once on Node 18 for what serves no MCP host (--check, --http)", () => {
    if (old === undefined) return;
    for (const flag of ["--check", "--http"]) {
      const run = spawnSync(old, [BIN, flag], {
        env: cleanEnv(),
        input: "",
        encoding: "utf8",
        timeout: 20_000,
      });
      expect(run.status, flag).toBe(2);
      expect(run.stdout, flag).toBe("");
    }
  });

  it("npm ci's build starts with scripts/check-node.cjs, which passes on this Node", () => {
    const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> })
      .scripts;
    expect(scripts.build).toMatch(/^node scripts\/check-node\.cjs && /);
    expect(scripts.dependencies).toBe("npm run build");
    const run = spawnSync(process.execPath, ["scripts/check-node.cjs"], { encoding: "utf8" });
    expect(run.status).toBe(0);
    expect(run.stderr).toBe("");
  });

  it.skipIf(old === undefined)("on Node 18 it ends with one line naming the version, no stack trace", () => {
    const run = spawnSync(old!, ["scripts/check-node.cjs"], { encoding: "utf8" });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(
      new RegExp(
        `^maintenance-mcp needs Node\\.js ${MIN_NODE} or newer; this is Node\\.js 18\\.\\d+\\.\\d+\\. [^\\n]*\\n$`,
      ),
    );
  });
});
