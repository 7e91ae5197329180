/** Explicit list of the server's MCP prompts; no logic. */
import reviewBudgets from "./review-budgets.js";
import type { PromptDefinition } from "./types.js";

export const ALL_PROMPTS: readonly PromptDefinition[] = [reviewBudgets];
