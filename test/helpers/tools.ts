/**
 * Tool names as tests should spell them: derived from the registry (tools/index.ts), in the order
 * `tools/list` shows them, so adding a tool never means editing a hand-written list in a test.
 */
import { ALL_TOOLS } from "../../tools/index.js";

/** Every tool, in registry order. */
export const TOOL_NAMES: readonly string[] = ALL_TOOLS.map((t) => t.name);

/** The tools `--read-only` keeps (readOnlyHint), in registry order. */
export const READ_ONLY_TOOL_NAMES: readonly string[] = ALL_TOOLS.filter(
  (t) => t.annotations.readOnlyHint,
).map((t) => t.name);

/** `names` as `tools/list` orders them (registry order), e.g. for `--tools b,a`. */
export const inRegistryOrder = (names: readonly string[]): string[] =>
  TOOL_NAMES.filter((n) => names.includes(n));
