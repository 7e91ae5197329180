/**
 * interface.md §6g: every `npx` command a user copies from the docs carries `-y`, so it never stops
 * at npx's "Ok to proceed?" prompt (which a script, an agent's shell or an MCP host never answers).
 * `npx <tool>` of this repository's own devDependencies (vitest, biome...) installs nothing and is
 * left alone.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};
/** Bins of installed packages: npx runs them without asking. */
const LOCAL = new Set(["vitest", "biome", "tsc", "tsx", "depcruise", "esbuild", "mcpb"]);

function filesUnder(dir: string, ext: RegExp): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && ext.test(e.name))
    .map((e) => join(e.parentPath, e.name).slice(ROOT.length + 1));
}

const FILES = [
  "README.md",
  "CONTRIBUTING.md",
  "mcp.json",
  ...filesUnder("docs", /\.md$/),
  ...filesUnder("examples", /\.(md|json|jsonc|toml|ya?ml)$/),
];

/** The text a user copies: fenced blocks and inline code of Markdown; a JSON file whole. */
function code(file: string, text: string): string {
  if (!file.endsWith(".md")) return text;
  const fenced = [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1]);
  const inline = [...text.replace(/^```[\s\S]*?^```/gm, "").matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  return [...fenced, ...inline].join("\n");
}

/** `npx pkg ...` (a package name, not an error code like `npx ENOENT`) and `"npx", "pkg"` in JSON args. */
function npxWithoutYes(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\bnpx[ \t]+([^\s`'"]+)/g)) {
    const next = m[1]!;
    if (next === "-y" || next === "--yes" || LOCAL.has(next) || /^[A-Z]+$/.test(next)) continue;
    found.push(m[0]);
  }
  for (const m of text.matchAll(/"npx",\s*(?:"args":\s*\[\s*)?"([^"]+)"/g))
    if (m[1] !== "-y" && m[1] !== "--yes") found.push(m[0]);
  return found;
}

describe("npx in the docs (interface.md §6g)", () => {
  it("the files exist and some speak of npx", () => {
    expect(FILES).toContain("docs/remote.md");
    expect(FILES.filter((f) => /\bnpx\b/.test(readFileSync(join(ROOT, f), "utf8"))).length).toBeGreaterThan(
      2,
    );
    for (const bin of ["vitest", "@biomejs/biome"])
      expect(Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })).toContain(bin);
  });

  it.each(FILES)("%s: every npx command that installs carries -y", (file) => {
    expect(npxWithoutYes(code(file, readFileSync(join(ROOT, file), "utf8")))).toEqual([]);
  });
});
