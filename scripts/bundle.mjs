#!/usr/bin/env node
/**
 * `npm run bundle` → maintenance-mcp.mcpb, the MCP Bundle for Claude Desktop (one-click install).
 * The bundle holds exactly the npm package (`npm pack`, so the same files a registry user gets),
 * mcpb/manifest.json and its icon (mcpb/icon.png, drawn by scripts/make-icon.mjs), and production
 * node_modules installed from package-lock.json (`npm ci --omit=dev`, offline from the npm cache when
 * possible: none today, everything is inside the dist/bin/ build). `mcpb validate` and `mcpb pack`
 * (devDependency @anthropic-ai/mcpb) check and zip it. Expects a built dist/.
 *
 *   node scripts/bundle.mjs [--out FILE]
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const outIndex = process.argv.indexOf("--out");
const out = resolve(outIndex > 0 ? process.argv[outIndex + 1] : join(root, "maintenance-mcp.mcpb"));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const mcpb = join(root, "node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js");

const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const manifest = JSON.parse(readFileSync(join(root, "mcpb", "manifest.json"), "utf8"));
if (manifest.version !== pkg.version) {
  process.stderr.write(
    `mcpb/manifest.json version ${manifest.version} differs from package.json ${pkg.version}\n`,
  );
  process.exit(1);
}

const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "inherit"], shell: process.platform === "win32" });

const work = mkdtempSync(join(tmpdir(), "maintenance-mcp-bundle-"));
try {
  // The build already ran (`npm run bundle` builds first): skip prepack.
  const [{ filename }] = JSON.parse(
    run(npm, ["pack", "--json", "--ignore-scripts", "--pack-destination", work], root).toString(),
  );
  run("tar", ["-xzf", join(work, filename), "-C", work], root);
  const stage = join(work, "package");
  copyFileSync(join(root, "mcpb", "manifest.json"), join(stage, "manifest.json"));
  copyFileSync(join(root, "mcpb", "icon.png"), join(stage, "icon.png"));
  copyFileSync(join(root, "package-lock.json"), join(stage, "package-lock.json"));
  run(
    npm,
    [
      "ci",
      "--omit=dev",
      "--ignore-scripts",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
    ],
    stage,
  );
  rmSync(join(stage, "package-lock.json"));
  run(process.execPath, [mcpb, "validate", join(stage, "manifest.json")], root);
  run(process.execPath, [mcpb, "pack", stage, out], root);
  process.stderr.write(`wrote ${out}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
