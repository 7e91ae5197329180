/** Reading MCP tool results: the first (agent-facing) line and the JSON details of an error. */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { textOf } from "./mcp.js";

export function firstLine(result: unknown): string {
  return textOf(result).split("\n")[0] ?? "";
}

/** The `Details: {...}` JSON of an error result, or undefined. */
export function detailsOf(result: unknown): unknown {
  const r = result as CallToolResult;
  if (!r.isError) return undefined;
  const match = /\nDetails: (.*)$/s.exec(textOf(r));
  return match ? JSON.parse(match[1]!) : undefined;
}
