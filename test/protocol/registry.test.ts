/** Meta-tests over the tool registry: names ↔ files, complete hints, descriptions, schemas clients accept. */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { selectTools } from "../../src/mcp/server.js";
import { ALL_TOOLS } from "../../tools/index.js";
import { READ_ONLY_TOOL_NAMES } from "../helpers/tools.js";

const kebab = (name: string) => name.replaceAll("_", "-");

/**
 * Tools whose snapshot is being added on other branches at the same time (issue 12 item 5): the
 * budget, harden and install work. IMPORTANT: temporary; the integrator empties this list when
 * those branches are merged (the test above then fails for any tool still without a snapshot,
 * and for any listed tool that already has one).
 */
const SNAPSHOT_PENDING: readonly string[] = [];

describe("tool registry", () => {
  it("has one file per tool, named after it, and a test file for each", () => {
    const files = readdirSync("tools").filter(
      (f) => !["index.ts", "params.ts", "define.ts", "dry-run.ts"].includes(f),
    );
    expect(files.sort()).toEqual(ALL_TOOLS.map((t) => `${kebab(t.name)}.ts`).sort());
    const tests = readdirSync("test/tools");
    for (const tool of ALL_TOOLS) expect(tests).toContain(`${kebab(tool.name)}.test.ts`);
  });

  it.each(ALL_TOOLS.map((t) => [t.name] as const))(
    "%s pins the result text an agent reads with an inline snapshot in its test file",
    (name) => {
      const file = `test/tools/${kebab(name)}.test.ts`;
      const source = readFileSync(file, "utf8");
      // A filled snapshot: toMatchInlineSnapshot(`…`), not an empty toMatchInlineSnapshot().
      const pinned = /toMatchInlineSnapshot\(\s*`/.test(source);
      if (SNAPSHOT_PENDING.includes(name)) {
        expect(pinned, `${name} now has an inline snapshot: remove it from SNAPSHOT_PENDING`).toBe(false);
        return;
      }
      expect(pinned, `${file} must pin the tool's result text with toMatchInlineSnapshot`).toBe(true);
    },
  );

  it("SNAPSHOT_PENDING names only registered tools", () => {
    for (const name of SNAPSHOT_PENDING) expect(ALL_TOOLS.map((t) => t.name)).toContain(name);
  });

  it.each(ALL_TOOLS.map((t) => [t.name, t] as const))(
    "%s declares a complete, accurate set of hints",
    (_, tool) => {
      const a = tool.annotations;
      expect(Object.keys(a).sort()).toEqual([
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
        "readOnlyHint",
      ]);
      expect(a.openWorldHint).toBe(true);
      expect(a.destructiveHint).toBe(false);
      expect(a.idempotentHint).toBe(a.readOnlyHint);
      expect(tool.name).toMatch(/^[a-z][a-z0-9_]{2,63}$/);
      if (!a.readOnlyHint) expect(tool.auditTarget).toBeTypeOf("function");
    },
  );

  it.each(ALL_TOOLS.map((t) => [t.name, t] as const))(
    "%s has a description with a use case and an example",
    (_, tool) => {
      expect(tool.title.length).toBeGreaterThan(5);
      expect(tool.description).toMatch(/Use this tool/);
      expect(tool.description).toMatch(/Example: \{/);
      const example = /Example: (\{.*\})$/m.exec(tool.description)?.[1];
      expect(example).toBeDefined();
      expect(tool.inputSchema.safeParse(JSON.parse(example!)).success).toBe(true);
    },
  );

  it.each(ALL_TOOLS.map((t) => [t.name, t] as const))(
    "%s has no root union and no nested unions",
    (_, tool) => {
      const json = z.toJSONSchema(tool.inputSchema, { io: "input" }) as Record<string, unknown>;
      expect(json.type).toBe("object");
      expect(json.anyOf ?? json.oneOf).toBeUndefined();
      const walk = (node: unknown, inUnion: boolean): void => {
        if (node === null || typeof node !== "object") return;
        const n = node as Record<string, unknown>;
        const union = (n.anyOf ?? n.oneOf) as unknown[] | undefined;
        if (union) {
          expect(inUnion, "union nested in a union").toBe(false);
          for (const branch of union) walk(branch, true);
        }
        for (const [k, v] of Object.entries(n)) if (k !== "anyOf" && k !== "oneOf") walk(v, false);
      };
      walk(json, false);
    },
  );

  it("filters read-only and hub tools, and explains bad --tools", () => {
    const names = (s: ReturnType<typeof selectTools>) => s.tools.map((t) => t.name);
    expect(names(selectTools({ readOnly: true, hubAvailable: true }))).toEqual(READ_ONLY_TOOL_NAMES);
    const noHub = selectTools({ readOnly: false, hubAvailable: false });
    expect(names(noHub)).not.toContain("list_dags");
    expect(noHub.skipped).toEqual(["list_dags"]);
    expect(selectTools({ readOnly: false, only: ["query_budgets"], hubAvailable: true }).tools).toHaveLength(
      1,
    );
    expect(selectTools({ readOnly: false, only: ["nope"], hubAvailable: true }).problems[0]).toMatch(
      /unknown tool "nope"/,
    );
    expect(
      selectTools({ readOnly: true, only: ["add_task_resources"], hubAvailable: true }).problems[0],
    ).toMatch(/cannot be enabled with --read-only/);
    expect(selectTools({ readOnly: false, only: ["list_dags"], hubAvailable: false }).problems[0]).toMatch(
      /MMS_CLIENT_ID/,
    );
  });
});
