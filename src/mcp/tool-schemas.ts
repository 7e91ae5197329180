/**
 * The JSON Schema of each tool's input and output, as tools/list shows them (zod 4's converter, as the
 * SDK itself uses, then trimmed). Converting every tool takes ~12 ms of CPU, on every start, before the
 * first tools/list can be answered: the build (scripts/build.mjs) converts them once and writes the
 * results into the bundle (src/mcp/built-tool-schemas.ts), in the order of `toolVariants()`. From the
 * sources (the tests), or for a tool the build did not see, they are converted at first use.
 */
import { z } from "zod";
import type { AnyTool } from "../../tools/define.js";
import { ALL_TOOLS } from "../../tools/index.js";
import { BUILT_TOOL_SCHEMAS, type ToolSchemas } from "./built-tool-schemas.js";

export type { ToolSchemas };

const SANDBOX_FLAG = {
  // Self-explanatory by name; a description here would cost context in every tool's listing.
  sandbox: z.literal(true).optional(),
};

/** JSON Schema of a zod schema as MCP expects it (zod 4's converter, as the SDK itself uses). */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: "draft-7", io, unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  // Without $schema, MCP reads the 2020-12 dialect, which these schemas also satisfy; saves context.
  delete json.$schema;
  // The validator enforces unknown keys (strict inputs) and integer ranges, and we control
  // outputs: in the listing, "additionalProperties" and the safe-integer bounds zod adds to every
  // integer only cost the agent's context.
  for (const value of Object.values(json)) stripNoise(value);
  delete json.additionalProperties;
  return json;
}

/**
 * What says nothing in a nested schema, each replaced by its shorter equivalent: an empty
 * "properties" (any object), a "type" beside a "const" of that type, an integer's
 * exclusiveMinimum 0 (minimum 1). The root keeps its "properties": hosts expect it.
 */
function stripNoise(node: unknown): void {
  if (node === null || typeof node !== "object") return;
  const n = node as Record<string, unknown>;
  delete n.additionalProperties;
  if (n.maximum === Number.MAX_SAFE_INTEGER) delete n.maximum;
  if (n.minimum === Number.MIN_SAFE_INTEGER) delete n.minimum;
  if (n.type === "object" && isEmptyObject(n.properties)) delete n.properties;
  if ("const" in n && n.type === typeof n.const) delete n.type;
  if (n.type === "integer" && n.exclusiveMinimum === 0 && n.minimum === undefined) {
    delete n.exclusiveMinimum;
    n.minimum = 1;
  }
  unionToAnyOf(n);
  for (const value of Object.values(n)) stripNoise(value);
}

const isEmptyObject = (v: unknown) =>
  v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0;

/**
 * `"type": ["number", "null"]` (zod's nullable) as `anyOf`: legal JSON Schema either way, but some
 * clients read `type` as one string, and strict schema checks warn on the array form (interface.md §8b).
 */
function unionToAnyOf(n: Record<string, unknown>): void {
  if (!Array.isArray(n.type)) return;
  const { type: types, description, ...rest } = n;
  for (const key of Object.keys(n)) delete n[key];
  if (description !== undefined) n.description = description;
  n.anyOf = (types as string[]).map((t) => (t === "null" ? { type: t } : { type: t, ...rest }));
}

/** The output schema of a sandbox server's results (`sandbox: true`). */
export const withSandboxFlag = (output: AnyTool["outputSchema"]) =>
  (output as z.ZodObject).extend(SANDBOX_FLAG);

/** Every tool object a server may list: each tool, then what its `configure` makes of each configuration. */
export function toolVariants(): AnyTool[] {
  const variants: AnyTool[] = [];
  const add = (tool: AnyTool) => {
    if (!variants.includes(tool)) variants.push(tool);
  };
  for (const tool of ALL_TOOLS) {
    add(tool);
    for (const budgetDiscount of [undefined, "percent", "amount"] as const) {
      if (tool.configure) add(tool.configure({ budgetDiscount }));
    }
  }
  return variants;
}

/** Converts one tool's schemas (what the build stores). */
export function convertToolSchemas(tool: AnyTool): ToolSchemas {
  return {
    input: jsonSchema(tool.inputSchema, "input"),
    output: jsonSchema(tool.outputSchema, "output"),
    sandboxOutput: jsonSchema(withSandboxFlag(tool.outputSchema), "output"),
  };
}

let built: Map<AnyTool, ToolSchemas> | undefined;

/** The tool's schemas: from the build when it stored them, converted now otherwise. */
export function toolSchemas(tool: AnyTool): ToolSchemas {
  if (BUILT_TOOL_SCHEMAS !== undefined && built === undefined) {
    const schemas = BUILT_TOOL_SCHEMAS;
    built = new Map(toolVariants().map((variant, i) => [variant, schemas[i]!]));
  }
  return built?.get(tool) ?? convertToolSchemas(tool);
}
