/**
 * Every relative link in the repository's Markdown resolves (interface.md §8b, "no doc links to a
 * file that is not in the repository"): the file is tracked by git and, for a link into a Markdown
 * file, the #anchor is one of its headings. Also every backticked `*.md` a doc points a reader at.
 * Reads files only: fast.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";

const tracked = new Set(execFileSync("git", ["ls-files"], { encoding: "utf8" }).trim().split("\n"));
const folders = new Set(
  [...tracked].flatMap((f) =>
    f
      .split("/")
      .slice(0, -1)
      .map((_, i, a) => a.slice(0, i + 1).join("/")),
  ),
);
const docs = [...tracked].filter((f) => f.endsWith(".md"));

/** GitHub's anchors for a Markdown file's headings (lower case, punctuation dropped, spaces to -, -1 for repeats). */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** Each relative link target of a Markdown file: `[text](target)` and `[label]: target`. */
function links(file: string): string[] {
  const text = readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, "");
  return [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\)|^\s*\[[^\]]+\]:\s*(\S+)/gm)]
    .map((m) => (m[1] ?? m[2])!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe("links in the docs", () => {
  it("finds the docs and their links", () => {
    expect(docs).toContain("README.md");
    expect(docs.flatMap(links).length).toBeGreaterThan(50);
  });

  it.each(docs)("%s: every relative link names a file in the repository, and an anchor it has", (file) => {
    const broken = links(file).filter((target) => {
      const [path = "", anchor] = target.split("#");
      const resolved =
        path === "" ? file : normalize(join(dirname(file), decodeURI(path))).replace(/\/$/, "");
      if (!tracked.has(resolved) && !folders.has(resolved)) return true;
      return anchor !== undefined && resolved.endsWith(".md") && !anchors(resolved).has(anchor);
    });
    expect(broken).toEqual([]);
  });

  it.each(docs.filter((f) => f !== "CHANGELOG.md"))(
    "%s: names no Markdown file that is not in the repository",
    (file) => {
      const text = readFileSync(file, "utf8");
      const named = [...text.matchAll(/`([\w./-]+\.md)`/g)].map((m) => m[1]!);
      const missing = named.filter(
        (name) =>
          ![...tracked].some(
            (t) => t === name || t.endsWith(`/${name}`) || normalize(join(dirname(file), name)) === t,
          ),
      );
      expect(missing).toEqual([]);
    },
  );
});
