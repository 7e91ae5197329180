/**
 * House rule: a function a reader must trust fits on a screen. No function, method or arrow function
 * in the layers every call runs through (src/mcp, src/domain, src/config, src/hosting, tools/) is
 * longer than 60 lines, counted from its first line to its last (JSDoc not included). Parsed with the
 * TypeScript compiler, so an arrow function inside an object or a call counts like any other.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const LAYERS = ["src/mcp", "src/domain", "src/config", "src/hosting", "tools"];
const MAX_LINES = 60;

interface Measured {
  /** `file#name`. */
  key: string;
  /** `file:line name (N lines)`, what a failure names. */
  label: string;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** The name a reader would look for: the function's own, else what holds it (variable, property, call). */
function functionName(node: ts.FunctionLikeDeclaration, file: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return "constructor";
  if (node.name !== undefined) return node.name.getText(file);
  const holder = node.parent;
  if (
    (ts.isVariableDeclaration(holder) ||
      ts.isPropertyAssignment(holder) ||
      ts.isPropertyDeclaration(holder)) &&
    holder.name !== undefined
  )
    return holder.name.getText(file);
  if (ts.isCallExpression(holder)) return `callback of ${holder.expression.getText(file).slice(0, 40)}`;
  return "<anonymous>";
}

/** Every function with a body in `text`, with its length in lines. */
function measure(path: string, text: string): Measured[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: Measured[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = functionName(node as ts.FunctionLikeDeclaration, file);
      const lines = last - first + 1;
      found.push({ key: `${path}#${name}`, label: `${path}:${first + 1} ${name} (${lines} lines)`, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const measured = LAYERS.flatMap((layer) => sourceFiles(resolve(root, layer))).flatMap((path) =>
  measure(relative(root, path).split("\\").join("/"), readFileSync(path, "utf8")),
);
const long = measured.filter((m) => m.lines > MAX_LINES);

describe("function length", () => {
  it("counts from a function's first line to its last, naming arrows by what holds them", () => {
    const text = [
      "export function a() {",
      "  const b = () => {",
      "    return 1;",
      "  };",
      "  return b();",
      "}",
      "class C { m() { return [1].map((x) => x); } }",
    ].join("\n");
    expect(measure("x.ts", text).map((m) => m.label)).toEqual([
      "x.ts:1 a (6 lines)",
      "x.ts:2 b (3 lines)",
      "x.ts:7 m (1 lines)",
      "x.ts:7 callback of [1].map (1 lines)",
    ]);
  });

  it(`no function in ${LAYERS.join(", ")} is over ${MAX_LINES} lines`, () => {
    // The layers are read: the check cannot pass by finding nothing.
    expect(measured.length).toBeGreaterThan(300);
    expect(long.map((m) => m.label)).toEqual([]);
  });
});
