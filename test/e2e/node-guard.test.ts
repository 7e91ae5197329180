/**
 * The built binary on an unsupported Node.js (18, from the npm registry's `node` package):
 * exit 2 at once with one line naming the version needed, before any MCP traffic.
 * Skipped, saying so, when node@18 cannot be fetched (an offline machine without it cached).
 */
import { execFileSync, spawnSync } from "node:child_process";
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
});
