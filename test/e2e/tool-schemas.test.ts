/**
 * The tools' JSON Schemas are converted by the build and stored in the bundle (src/mcp/tool-schemas.ts):
 * what the built binary lists must be what the sources convert, for every tool and configuration, in a
 * sandbox and against a real upstream. A stale or misordered store would list one tool's schema
 * under another's name.
 */
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { convertToolSchemas, type ToolSchemas, toolVariants } from "../../src/mcp/tool-schemas.js";
import type { AnyTool } from "../../tools/define.js";
import { ALL_TOOLS } from "../../tools/index.js";
import { cleanEnv, rawSession } from "./bin.js";

const UNREACHABLE = {
  MMS_BASE_URL: "http://127.0.0.1:9/api",
  MMS_AUTH_URL: "http://127.0.0.1:9",
  MMS_HUB_URL: "http://127.0.0.1:9",
  MMS_AUTH: "oauth",
  MMS_CLIENT_ID: "schemas-test",
  MMS_CLIENT_SECRET: "schemas-test-secret",
};

interface Listed {
  name: string;
  inputSchema: unknown;
  outputSchema: unknown;
}

async function listed(args: string[], env: Record<string, string>): Promise<Listed[]> {
  const session = rawSession(args, cleanEnv(env));
  try {
    await session.initialize();
    const answer = await session.request("tools/list");
    return (answer.result as { tools: Listed[] }).tools;
  } finally {
    await session.end();
  }
}

/** The tool a server with this discount setting lists under each name. */
const configured = (budgetDiscount: "percent" | "amount" | undefined) =>
  new Map(ALL_TOOLS.map((t) => [t.name, t.configure?.({ budgetDiscount }) ?? t] as [string, AnyTool]));

describe("the tools' JSON Schemas stored by the build", () => {
  it("are the sources' conversions, variant by variant, in the same order", async () => {
    const stored = (await import(pathToFileURL("dist/src/mcp/built-tool-schemas.js").href))
      .BUILT_TOOL_SCHEMAS as ToolSchemas[];
    const variants = toolVariants();
    expect(variants.length).toBeGreaterThan(ALL_TOOLS.length); // query_budgets has two
    expect(stored).toEqual(variants.map(convertToolSchemas));
  });

  it.each([
    { mode: "a sandbox", args: ["--sandbox"], env: {}, discount: undefined, sandbox: true },
    {
      mode: "a sandbox with MMS_BUDGET_DISCOUNT",
      args: ["--sandbox"],
      env: { MMS_BUDGET_DISCOUNT: "percent" },
      discount: "percent" as const,
      sandbox: true,
    },
    { mode: "a real upstream", args: [], env: UNREACHABLE, discount: undefined, sandbox: false },
  ])("the binary lists them in $mode", async ({ args, env, discount, sandbox }) => {
    const tools = await listed(args, env as Record<string, string>);
    const sources = configured(discount);
    expect(tools.map((t) => t.name).sort()).toEqual([...sources.keys()].sort());
    for (const tool of tools) {
      const expected = convertToolSchemas(sources.get(tool.name)!);
      expect(tool.inputSchema, tool.name).toEqual(expected.input);
      expect(tool.outputSchema, tool.name).toEqual(sandbox ? expected.sandboxOutput : expected.output);
    }
  });
});
