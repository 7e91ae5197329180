/**
 * The shape of a tool: one file in tools/ default-exports `defineTool({...})`. Handlers get
 * validated input and a ToolContext, speak only the domain (no HTTP, no MCP), and return a
 * plain object matching `outputSchema`. `src/mcp/server.ts` does everything else.
 */
import type { z } from "zod";
import type { HubApi, MaintenanceApi } from "../src/client/types.js";
import type { ReviewServices } from "../src/domain/review/services.js";
import type { IdempotencyStore } from "../src/idempotency/store.js";
import type { Logger } from "../src/telemetry/logger.js";

/** All four MCP hints, required: the protocol defaults (destructiveHint true) are wrong for us. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ProgressUpdate {
  progress: number;
  total?: number | undefined;
  message: string;
}

export interface ToolContext {
  api: MaintenanceApi;
  /** Present only for tools declaring `requires: "hub"`; the server does not register them otherwise. */
  hub: HubApi;
  log: Logger;
  /** Aborted when the client cancels the call. */
  signal: AbortSignal;
  /** Report progress; a no-op when the client did not ask for it. */
  progress(update: ProgressUpdate): Promise<void>;
  /**
   * Ask the user to approve a write (with --confirm-writes); resolves when approved or when
   * confirmation is off, throws NotConfirmedError otherwise. Call it right before writing.
   */
  confirmWrite(summary: string): Promise<void>;
  /**
   * What confirmWrite would do for a write now, without asking (a dry run, interface.md §9): not
   * asked (no --confirm-writes), asked (the client can show it), or the write refused (it cannot).
   */
  confirmation(): ConfirmationCheck;
  idempotency: IdempotencyStore;
  now(): Date;
  /** How the upstream's budget discount reads (MMS_BUDGET_DISCOUNT); undefined when the operator did not say. */
  budgetDiscount?: "percent" | "amount" | undefined;
  /** Days of work orders read before since for type_date budget_created (MMS_BUDGET_LOOKBACK_DAYS). */
  budgetLookbackDays?: number | undefined;
  /**
   * This tenant's review snapshots, the process's cap on bytes in flight, the review deadline
   * (interface.md §6c). The server always sets it; absent, a review keeps no snapshot beyond the call.
   */
  reviews?: ReviewServices;
  /** The call runs as an MCP task: a review runs to completion, no MMS_REVIEW_DEADLINE_MS (still cancellable by `signal`). */
  asTask?: boolean;
  /**
   * Epoch ms by which a plain read's waits for the request budget must end (MMS_REVIEW_DEADLINE_MS
   * from the call's start, interface.md §9b): past it the call answers RATE_LIMITED with retryAt.
   * Undefined for a task, whose waits end when it is cancelled.
   */
  deadline?: number | undefined;
}

/** What a confirmation of a write would meet: `detail` says why a write would be refused. */
export type ConfirmationCheck =
  | { state: "not_asked" }
  | { state: "would_ask" }
  | { state: "refused"; detail: string };

/** What a tool's listing may depend on: this server's configuration (interface.md §8b "Options that exist"). */
export interface ToolConfig {
  budgetDiscount?: "percent" | "amount" | undefined;
}

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  /** snake_case, verb first; the file is the kebab-case of it. */
  name: string;
  title: string;
  description: string;
  inputSchema: I;
  outputSchema: O;
  annotations: ToolAnnotations;
  /** "hub": needs the ETL hub (OAuth Bearer + MMS_HUB_URL). */
  requires?: "hub";
  /**
   * "optional": a client may run a call as an MCP task (docs/protocol.md "Tasks"); absent: never.
   * Only for readers: a task has no channel to ask the user to confirm a write.
   */
  taskSupport?: "optional";
  /** Which calls the server makes tasks of when a 2026 client offers tasks (default: every call). */
  prefersTask?: (input: z.output<I>) => boolean;
  /** For writers: what the call touches, for the audit log line (e.g. "WH-MAIN", "plan 1 / task 101"). */
  auditTarget?: (input: z.output<I>) => string;
  handler: (input: z.output<I>, ctx: ToolContext) => Promise<z.output<O>>;
  /** Short rendering for `content[0].text`; the full data is in structuredContent. */
  toText: (output: z.output<O>) => string;
  /**
   * The tool as a server with this configuration offers it, when an option exists only in some
   * configurations; return the same object for the same answer (listings are prepared once per tool).
   */
  configure?: (config: ToolConfig) => AnyTool;
}

/** Identity function that keeps the input/output types tied together for inference. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  tool: ToolDefinition<I, O>,
): ToolDefinition<I, O> {
  return tool;
}

/** A registry entry with its generic types erased. */
// biome-ignore lint/suspicious/noExplicitAny: the registry holds tools of every input/output type.
export type AnyTool = ToolDefinition<any, any>;
