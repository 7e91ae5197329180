/**
 * createServer(): the tool registry filtered by --read-only/--tools, and the single wrapper
 * around every call: decode → validate → confirm → handler → output check → result. It is the
 * only place that catches: every failure becomes an `isError` result with one actionable line
 * and JSON details, never a protocol error and never a credential (STYLE rules 6, 9).
 */
import type { z } from "zod";
import type { AnyTool, ConfirmationCheck, ToolContext } from "../../tools/define.js";
import { ALL_TOOLS } from "../../tools/index.js";
import type { Clients } from "../client/types.js";
import { createReviewServices, type ReviewServices } from "../domain/review/services.js";
import { jsonLine } from "../domain/upstream-text.js";
import { ApiError, NotConfirmedError, UserInputError } from "../errors/api-error.js";
import { formatError } from "../errors/format.js";
import { redact, scrubText, scrubValues } from "../errors/redact.js";
import { PROCESS_SECRETS, type SecretScope } from "../errors/secret.js";
import type { IdempotencyStore } from "../idempotency/store.js";
import { toolCallSpan } from "../telemetry/hooks.js";
import type { Logger } from "../telemetry/logger.js";
import { APP_VIEWS, type AppView, readView, viewsFor } from "./app.js";
import { decodeArgs } from "./decode-args.js";
import { ALL_PROMPTS } from "./prompts/index.js";
import {
  APP_MIME_TYPE,
  appToolMeta,
  appViewContents,
  type CallContext,
  type CallToolResult,
  createProtocolServer,
  createStateSigner,
  modelOnlyToolMeta,
  type ProtocolServer,
  ProtocolSignal,
  type StateSigner,
  type ToolListing,
} from "./sdk.js";
import type { TaskAccess } from "./tasks.js";
import { toolSchemas, withSandboxFlag } from "./tool-schemas.js";

export interface ServerDeps {
  clients: Clients;
  logger: Logger;
  idempotency: IdempotencyStore;
  /** Marks every result `sandbox: true` (simulated data). */
  sandbox: boolean;
  version: string;
  /** The tenant (MCP_TENANTS_FILE) this server acts for: named in traces; never its token. */
  tenant?: string | undefined;
  /** The OAuth token's `sub` and `client_id` this server acts for: named in traces; never the token. */
  principal?: {
    subject?: string | undefined;
    clientId?: string | undefined;
    /** A token that names no one: its reference (src/mcp/caller.ts), which alone owns its confirmations. */
    tokenRef?: string | undefined;
  };
  /**
   * The secrets this server's answers are scrubbed with: its configuration's (the tenant's own), so
   * that no answer depends on another tenant's secrets. Default: every secret of the process.
   */
  secrets?: SecretScope | undefined;
  /** Signs confirmation requestState; defaults to one random key per process. */
  signer?: StateSigner;
  /**
   * Aborted when the server gives up waiting for in-flight calls at shutdown: each running call
   * then answers at once, saying its outcome is unknown (a write may have reached the upstream).
   */
  stopping?: AbortSignal;
  /** Start the clients' warm-up once tools/list is answered (the binary; tests leave it off). */
  warmOnList?: boolean;
  /** How the upstream's budget discount reads (MMS_BUDGET_DISCOUNT). */
  budgetDiscount?: "percent" | "amount" | undefined;
  /** Days of work orders read before since for type_date budget_created (MMS_BUDGET_LOOKBACK_DAYS). */
  budgetLookbackDays?: number | undefined;
  /** The clock tools read (tests fix it); default the system clock. */
  now?: () => Date;
  /** The caller's MCP tasks in its tenant's store (outlive any one connection); without it the server offers no tasks. */
  tasks?: TaskAccess | undefined;
  /** This tenant's review services (snapshots, bytes in flight, deadline); default: the server's own, with the defaults of interface.md §6c. */
  reviews?: ReviewServices;
}

export interface ServerOptions {
  tools: readonly AnyTool[];
  confirmWrites: boolean;
  /**
   * Check every result against its output schema before sending it. Results are typed end to
   * end and the SDK client validates structuredContent in every test, so the binary leaves
   * this off (it re-parses each record of every list); tests turn it on to catch drift early.
   */
  checkOutputs?: boolean;
  /**
   * The lists (tools/list, prompts/list) depend on who asks (a tenant's own tool set): announce them
   * with cacheScope "private", so no shared cache serves one tenant's list to another.
   */
  privateLists?: boolean;
}

export interface ToolSelection {
  readOnly: boolean;
  /** Names from --tools; undefined = all. */
  only?: readonly string[] | undefined;
  /** Whether the hub is configured (OAuth + hub URL). */
  hubAvailable: boolean;
}

/**
 * The tools to register, or the reasons the selection is unusable (unknown name, a writer
 * with --read-only, list_dags without hub configuration).
 */
export function selectTools(selection: ToolSelection): {
  tools: AnyTool[];
  problems: string[];
  skipped: string[];
} {
  const problems: string[] = [];
  const skipped: string[] = [];
  const known = new Map(ALL_TOOLS.map((t) => [t.name, t]));
  for (const name of selection.only ?? []) {
    const tool = known.get(name);
    if (!tool) problems.push(`--tools: unknown tool "${name}"; known tools: ${[...known.keys()].join(", ")}`);
    else if (selection.readOnly && !tool.annotations.readOnlyHint) {
      problems.push(`--tools: ${name} writes upstream and cannot be enabled with --read-only`);
    } else if (tool.requires === "hub" && !selection.hubAvailable) {
      problems.push(
        `--tools: ${name} needs the ETL hub: set MMS_CLIENT_ID, MMS_CLIENT_SECRET and MMS_AUTH_URL (or MMS_HUB_URL)`,
      );
    }
  }
  const tools = ALL_TOOLS.filter((t) => {
    if (selection.only && !selection.only.includes(t.name)) return false;
    if (selection.readOnly && !t.annotations.readOnlyHint) return false;
    if (t.requires === "hub" && !selection.hubAvailable) {
      skipped.push(t.name);
      return false;
    }
    return true;
  });
  return { tools, problems, skipped };
}

interface Prepared {
  tool: AnyTool;
  listing: ToolListing;
  /** The listing with `execution.taskSupport`, for a server that offers tasks. */
  taskListing: ToolListing;
  inputJson: Record<string, unknown>;
  output: z.ZodObject;
}

const APP_VIEWS_BY_TOOL = new Map(APP_VIEWS.flatMap((v) => v.tools.map((t) => [t, v] as const)));

/** Per tool, its preparation for a real upstream and for the sandbox (whose results say `sandbox: true`). */
const prepared = { real: new WeakMap<AnyTool, Prepared>(), sandbox: new WeakMap<AnyTool, Prepared>() };
function prepare(tool: AnyTool, sandbox: boolean): Prepared {
  const cache = sandbox ? prepared.sandbox : prepared.real;
  let p = cache.get(tool);
  if (!p) {
    // interface.md §8: a tool whose results a view draws names it; other hosts ignore _meta.
    const view = APP_VIEWS_BY_TOOL.get(tool.name);
    // Only the sandbox's results carry the flag: a real server's listing does not pay for it.
    const output = sandbox ? withSandboxFlag(tool.outputSchema) : (tool.outputSchema as z.ZodObject);
    const schemas = toolSchemas(tool);
    const inputJson = schemas.input;
    const listing: ToolListing = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: inputJson as ToolListing["inputSchema"],
      outputSchema: (sandbox ? schemas.sandboxOutput : schemas.output) as ToolListing["outputSchema"],
      annotations: { ...tool.annotations },
      // interface.md §9: a writer is the model's only; no view may call it.
      ...(view
        ? { _meta: appToolMeta(view.uri) }
        : tool.annotations.readOnlyHint
          ? {}
          : { _meta: modelOnlyToolMeta() }),
    };
    const taskListing = tool.taskSupport
      ? { ...listing, execution: { taskSupport: tool.taskSupport } }
      : listing;
    p = { tool, output, inputJson, listing, taskListing };
    cache.set(tool, p);
  }
  return p;
}

const INSTRUCTIONS = [
  "Tools for a maintenance-management (CMMS) platform: plan task resources, register warehouse stock entries, review work-order budgets, list warehouse classifications and ETL integrations.",
  "Writes add records and never overwrite. Both writers take dry_run and idempotency_key. List results state total, returned, next_start and whether they are complete.",
].join("\n");

let processSigner: StateSigner | undefined;

/** interface.md §8b: a tool as this server's configuration offers it (only the options it supports). */
const configured = (tool: AnyTool, deps: Pick<ServerDeps, "budgetDiscount">) =>
  tool.configure?.({ budgetDiscount: deps.budgetDiscount }) ?? tool;

export function createServer(given: ServerDeps, options: ServerOptions): ProtocolServer {
  // Without the process's review services (hosting passes them), this server keeps its own.
  const deps = { ...given, reviews: given.reviews ?? createReviewServices().forTenant(given.tenant) };
  const tools = new Map(options.tools.map((t) => [t.name, prepare(configured(t, deps), deps.sandbox)]));
  processSigner ??= createStateSigner();
  return createProtocolServer(
    { name: "maintenance-mcp", version: deps.version },
    INSTRUCTIONS,
    {
      listTools: () => {
        // The handshake is answered: load the HTTP client now (in the next macrotask, after this
        // answer is written) rather than 250 ms after start or on the first call.
        if (deps.warmOnList) deps.clients.warm(0);
        return [...tools.values()].map((p) => (deps.tasks ? p.taskListing : p.listing));
      },
      taskSupport: (name) => {
        const entry = tools.get(name);
        if (!entry) return undefined;
        return entry.tool.taskSupport ?? "forbidden";
      },
      prefersTask: (name, args) => {
        const tool = tools.get(name);
        if (!tool?.tool.prefersTask) return true;
        // Arguments the tool would refuse get their error as a plain result, not as a task.
        const decoded = decodeArgs(args === undefined ? {} : args, tool.inputJson);
        const parsed = (tool.tool.inputSchema as z.ZodObject).safeParse(decoded);
        return parsed.success && tool.tool.prefersTask(parsed.data);
      },
      callTool: async (name, args, call) => {
        const entry = tools.get(name);
        if (!entry) return undefined;
        return callInSpan(entry, args, call, deps, options);
      },
      ...promptHandlers(new Set(options.tools.map((t) => t.name)), deps.now ?? (() => new Date())),
      ...resourceHandlers(viewsFor(new Set(options.tools.map((t) => t.name)))),
    },
    {
      signer: deps.signer ?? processSigner,
      // Confirmation state is bound to the tenant and, with OAuth, to the token's subject and client.
      tenant:
        deps.principal === undefined
          ? deps.tenant
          : JSON.stringify([
              deps.tenant ?? "",
              deps.principal.subject ?? null,
              deps.principal.clientId ?? null,
              ...(deps.principal.tokenRef === undefined ? [] : [deps.principal.tokenRef]),
            ]),
      cacheScope: options.privateLists ? "private" : "public",
      tasks: deps.tasks,
    },
  );
}

/**
 * One call in its server span (a no-op unless tracing is on), answered "outcome unknown" if shutdown
 * outlives it; a confirmation round leaves the span as no failure and passes on.
 */
async function callInSpan(
  entry: Prepared,
  args: unknown,
  call: CallContext,
  deps: ServerDeps & { reviews: ReviewServices },
  options: ServerOptions,
): Promise<CallToolResult | undefined> {
  const name = entry.tool.name;
  let signal: ProtocolSignal | undefined;
  const write = !entry.tool.annotations.readOnlyHint;
  const result = await toolCallSpan(
    name,
    { tenant: deps.tenant, ...deps.principal, write, ...call.trace },
    async (span) => {
      try {
        const out = await untilStopping(
          runTool(entry, args, call, deps, options),
          entry.tool,
          deps.stopping,
          deps.idempotency.shared,
          deps.secrets ?? PROCESS_SECRETS,
        );
        if (out.isError) span.fail("tool_error");
        return deps.sandbox ? sandboxMarked(out) : out;
      } catch (error) {
        if (!(error instanceof ProtocolSignal)) throw error;
        signal = error;
        return undefined;
      }
    },
  );
  if (signal) throw signal;
  return result;
}

/**
 * The server a stdio start runs when its configuration is unusable (interface.md §1): hosts show a
 * server's stderr to nobody, so it answers the handshake and lists the tools it would serve (the
 * host shows them), and every call of one answers `problem` as an error result. Nothing is ever
 * sent upstream. `problem` says what is wrong and where to fix it, with no secret.
 */
export function createUnconfiguredServer(options: {
  version: string;
  tools: readonly AnyTool[];
  problem: string;
}): ProtocolServer {
  const listings = options.tools.map((t) => prepare(configured(t, {}), false).listing);
  const names = new Set(options.tools.map((t) => t.name));
  processSigner ??= createStateSigner();
  return createProtocolServer(
    { name: "maintenance-mcp", version: options.version },
    `NOT CONFIGURED: every tool call fails until the configuration is fixed.\n${redact(options.problem, PROCESS_SECRETS)}`,
    {
      listTools: () => listings,
      callTool: async (name) =>
        names.has(name)
          ? errorResult(
              `maintenance-mcp cannot run ${name}: ${options.problem}`,
              { code: "NOT_CONFIGURED" },
              PROCESS_SECRETS,
            )
          : undefined,
    },
    { signer: processSigner },
  );
}

/** The prompts whose tools are all registered (review_budgets needs query_budgets), dated by the tools' clock. */
function promptHandlers(toolNames: Set<string>, now: () => Date) {
  const prompts = new Map(
    ALL_PROMPTS.filter((p) => p.tools.every((t) => toolNames.has(t))).map((p) => [p.name, p]),
  );
  if (prompts.size === 0) return {};
  return {
    listPrompts: () =>
      [...prompts.values()].map(({ name, title, description, arguments: args }) => ({
        name,
        title,
        description,
        arguments: args,
      })),
    getPrompt: (name: string, args: Record<string, string>) => prompts.get(name)?.render(args, now()),
  };
}

/** The MCP App views as resources, when their tools are registered (none: no `resources` capability). */
function resourceHandlers(views: AppView[]) {
  if (views.length === 0) return {};
  return {
    listResources: () =>
      views.map(({ uri, name, title, description }) => ({
        uri,
        name,
        title,
        description,
        mimeType: APP_MIME_TYPE,
      })),
    readResource: async (uri: string) => {
      const view = views.find((v) => v.uri === uri);
      return view ? appViewContents(uri, await readView(view)) : undefined;
    },
  };
}

/**
 * The call's result, or, once `stopping` aborts (shutdown outlived the drain), an error result
 * that says the outcome is unknown: never an empty answer (robustness: shutdown). A retry with the
 * same idempotency_key is promised safe only when the store is shared (Redis): a memory store
 * dies with this process, and its record of the running call with it.
 */
async function untilStopping(
  running: Promise<CallToolResult>,
  tool: AnyTool,
  stopping: AbortSignal | undefined,
  sharedStore: boolean,
  secrets: SecretScope,
): Promise<CallToolResult> {
  if (stopping === undefined) return running;
  const retry = sharedStore
    ? "Check whether it exists before retrying; with the same idempotency_key a retry is safe (the shared store will not let it write twice)."
    : "Check whether it exists upstream before retrying, even with the same idempotency_key: this server keeps its keys in memory, and they end with it.";
  const stopped = () =>
    errorResult(
      tool.annotations.readOnlyHint
        ? `The server shut down before ${tool.name} finished; nothing was changed. Retry the call.`
        : `The server shut down while ${tool.name} was running: the outcome is unknown (the write may have reached the upstream). ${retry}`,
      { code: "SHUTDOWN", outcome: tool.annotations.readOnlyHint ? "not_applied" : "unknown" },
      secrets,
    );
  if (stopping.aborted) return stopped();
  return new Promise((resolve, reject) => {
    const onStop = () => resolve(stopped());
    stopping.addEventListener("abort", onStop, { once: true });
    running.then(resolve, reject).finally(() => stopping.removeEventListener("abort", onStop));
  });
}

/** A plain JSON object (what MCP tool arguments must be). */
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

async function runTool(
  entry: Prepared,
  rawArgs: unknown,
  call: CallContext,
  deps: ServerDeps & { reviews: ReviewServices },
  options: ServerOptions,
): Promise<CallToolResult> {
  const { tool } = entry;
  const secrets = deps.secrets ?? PROCESS_SECRETS;
  const log = deps.logger.child({ tool: tool.name });
  const audit = auditTrail(log, !tool.annotations.readOnlyHint);
  const decoded = decodeInput(entry, rawArgs);
  if ("problem" in decoded) {
    audit("INVALID_ARGUMENTS");
    return errorResult(decoded.problem, decoded.details, secrets);
  }
  const { input } = decoded;
  const target = tool.auditTarget?.(input);
  const ctx = toolContext(call, deps, options.confirmWrites, log);
  try {
    const out = await tool.handler(input, ctx);
    const checked = options.checkOutputs ? entry.output.safeParse(out) : undefined;
    if (checked && !checked.success) {
      log.error("tool output does not match its schema", { issues: checked.error.issues.slice(0, 5) });
      return errorResult(
        `Internal error: ${tool.name} produced an unexpected result; this is a bug in maintenance-mcp.`,
        {},
        secrets,
      );
    }
    audit(outcomeOf(out), target);
    return scrubbedResult(tool, out, deps.sandbox, secrets);
  } catch (error) {
    return failedCall(error, call, log, (outcome) => audit(outcome, target), secrets);
  }
}

/** The audit log of a writer's call (readers leave none): its target, outcome and duration from now. */
export function auditTrail(log: Logger, writes: boolean): (outcome: string, target?: string) => void {
  const started = performance.now();
  return (outcome, target) => {
    if (writes)
      log.info("audit", {
        audit: true,
        target,
        outcome,
        duration_ms: Math.round(performance.now() - started),
      });
  };
}

/**
 * Step 1, decode: the call's arguments decoded (decode-args.ts) and validated by the tool's schema, or
 * the problem line and details of the error result (nothing was sent).
 */
export function decodeInput(
  entry: Pick<Prepared, "tool" | "inputJson">,
  rawArgs: unknown,
): { input: Record<string, unknown> } | { problem: string; details: unknown } {
  const { tool } = entry;
  const decoded = decodeArgs(rawArgs === undefined ? {} : rawArgs, entry.inputJson);
  if (!isPlainObject(decoded)) {
    const got = decoded === null ? "null" : Array.isArray(decoded) ? "an array" : `a ${typeof decoded}`;
    return {
      problem: `Invalid arguments for ${tool.name}: "arguments" must be a JSON object of named parameters (got ${got}). Call it like ${exampleOf(tool)}. Nothing was sent.`,
      details: {},
    };
  }
  const parsed = (tool.inputSchema as z.ZodObject).safeParse(decoded);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
    const line = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
    return { problem: `Invalid arguments for ${tool.name}: ${line}. Nothing was sent.`, details: { issues } };
  }
  return { input: parsed.data };
}

/** The context a handler runs with: this call's signal, progress and confirmation, the server's clients. */
function toolContext(
  call: CallContext,
  deps: ServerDeps & { reviews: ReviewServices },
  confirmWrites: boolean,
  log: Logger,
): ToolContext {
  return {
    api: deps.clients.api,
    // selectTools registers hub tools only when the hub exists.
    hub: deps.clients.hub!,
    log,
    signal: call.signal,
    progress: (update) => call.progress(update),
    confirmation: () => confirmationOf(call, confirmWrites),
    confirmWrite: (summary) => confirmWrite(call, confirmWrites, summary),
    idempotency: deps.idempotency,
    now: deps.now ?? (() => new Date()),
    budgetDiscount: deps.budgetDiscount,
    asTask: call.asTask ?? false,
    deadline: call.asTask ? undefined : Date.now() + deps.reviews.deadlineMs,
    budgetLookbackDays: deps.budgetLookbackDays,
    reviews: deps.reviews,
  };
}

/** Step 2, confirm (a dry run's view): what confirmWrite would meet now, without asking. */
export function confirmationOf(
  call: Pick<CallContext, "canConfirm" | "unsupportedReason">,
  confirmWrites: boolean,
): ConfirmationCheck {
  if (!confirmWrites) return { state: "not_asked" };
  if (call.canConfirm()) return { state: "would_ask" };
  const { why, fix } = call.unsupportedReason();
  return {
    state: "refused",
    detail: `this server runs with --confirm-writes, and ${why}, so the real call would be refused and write nothing. ${fix}, or restart the server without --confirm-writes.`,
  };
}

/** Step 2, confirm: with --confirm-writes, ask the user; throws NotConfirmedError unless approved. */
export async function confirmWrite(
  call: Pick<CallContext, "confirm" | "unsupportedReason">,
  confirmWrites: boolean,
  summary: string,
): Promise<void> {
  if (!confirmWrites) return;
  const answer = await call.confirm(summary);
  if (answer === "unsupported") {
    const { why, fix } = call.unsupportedReason();
    throw new NotConfirmedError(
      `This server runs with --confirm-writes, and ${why}, so nothing was written. ${fix}, or restart the server without --confirm-writes.`,
    );
  }
  if (answer === "declined") {
    throw new NotConfirmedError("The user did not approve this write; nothing was written.");
  }
}

/** Step 3, run: the audit outcome of a handler's result. */
export function outcomeOf(out: unknown): "dry_run" | "replayed" | "ok" {
  return (out as { dry_run?: boolean }).dry_run
    ? "dry_run"
    : (out as { replayed?: boolean }).replayed
      ? "replayed"
      : "ok";
}

/** Step 4, scrub: the handler's output as a result, marked in sandbox mode, scrubbed of `secrets`. */
export function scrubbedResult(
  tool: Pick<AnyTool, "toText">,
  out: unknown,
  sandbox: boolean,
  secrets: SecretScope,
): CallToolResult {
  const structured = sandbox ? { ...(out as object), sandbox: true } : (out as Record<string, unknown>);
  const text = tool.toText(out);
  // interface.md §6d: a success is scrubbed too (a note, an unknown field or an echo of the live token).
  return {
    structuredContent: scrubValues(structured, secrets) as Record<string, unknown>,
    content: [{ type: "text", text: scrubText(sandbox ? `[sandbox] ${text}` : text, secrets) }],
  };
}

/**
 * Step 4, scrub, for a handler that threw: an error result (formatError, redacted), audited. A
 * ProtocolSignal (a confirmation round) is not a failure: audited and rethrown.
 */
export function failedCall(
  error: unknown,
  call: Pick<CallContext, "signal">,
  log: Logger,
  audit: (outcome: string) => void,
  secrets: SecretScope,
): CallToolResult {
  if (error instanceof ProtocolSignal) {
    audit("awaiting_confirmation");
    throw error;
  }
  const known =
    error instanceof ApiError || error instanceof NotConfirmedError || error instanceof UserInputError;
  audit(call.signal.aborted ? "cancelled" : known ? error.code : "INTERNAL");
  if (!known) log.error("unexpected error in tool", { error });
  if (error instanceof NotConfirmedError) return errorResult(error.message, { code: error.code }, secrets);
  const { text, details } = formatError(error, secrets);
  return errorResult(text, details, secrets);
}

/** The example call from a tool's description ('Example: {...}'), or a generic hint. */
function exampleOf(tool: AnyTool): string {
  const line = tool.description.split("\n").find((l) => l.startsWith("Example"));
  const json = line?.slice(line.indexOf("{"));
  return json?.startsWith("{") ? json : `{"name": "value"} (see the input schema in tools/list)`;
}

/**
 * On the sandbox, an error result says so like a success does (interface.md §8b): its first text
 * starts with "[sandbox] " (successes already carry it from runTool).
 */
function sandboxMarked(out: CallToolResult): CallToolResult {
  const first = out.content[0];
  if (!out.isError || first?.type !== "text" || first.text.startsWith("[sandbox] ")) return out;
  return { ...out, content: [{ ...first, text: `[sandbox] ${first.text}` }, ...out.content.slice(1)] };
}

/** An isError result; line and details scrubbed with `secrets` (the server's configuration's). */
function errorResult(line: string, details: unknown, secrets: SecretScope): CallToolResult {
  const safe = redact(details, secrets);
  const body =
    safe === undefined || (typeof safe === "object" && safe !== null && Object.keys(safe).length === 0)
      ? ""
      : `\nDetails: ${jsonLine(safe)}`;
  return { isError: true, content: [{ type: "text", text: `${redact(line, secrets)}${body}` }] };
}
