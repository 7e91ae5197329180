/**
 * The tools' JSON Schemas, converted by the build (scripts/build.mjs writes this module's compiled
 * form with them, in the order of `toolVariants()` in ./tool-schemas.ts). Here, in the sources: none,
 * so the tests convert them at first use.
 */
type JsonSchema = Record<string, unknown>;

export interface ToolSchemas {
  input: JsonSchema;
  output: JsonSchema;
  /** The output with the sandbox's `sandbox: true` flag. */
  sandboxOutput: JsonSchema;
}

export const BUILT_TOOL_SCHEMAS: readonly ToolSchemas[] | undefined = undefined;
