/**
 * The one module that imports the MCP SDK (v2: @modelcontextprotocol/server and /node). It serves
 * protocol 2026-07-28 and 2025-11-25 from one factory, chosen per request (HTTP) or per
 * connection (stdio) by what the client speaks. It adapts the SDK's low-level Server to plain
 * callbacks (tools, optional prompts) and owns write confirmation in both eras: one
 * `input_required` round whose `requestState` is HMAC-signed, bound to the tenant, the tool and a hash
 * of its arguments, and expires; the SDK's legacy shim turns the same round into a form elicitation for
 * 2025 clients. Resources are the MCP App views (extension io.modelcontextprotocol/ui): their names
 * and `_meta` shapes come from the extension's own package. MCP tasks (./tasks.ts holds them) are
 * served in both eras by hand: the SDK carries the 2025-11-25 task vocabulary but no runtime, and
 * has no 2026-07-28 tasks extension, only the hooks to add one (see docs/protocol.md "Tasks").
 * The HTTP adapter loads on first use: stdio users never load it.
 */
import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpUiResourceMeta, McpUiToolMeta } from "@modelcontextprotocol/ext-apps";
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from "@modelcontextprotocol/ext-apps/server";
import {
  acceptedContent,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  createRequestStateCodec,
  type GetPromptResult,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  MissingRequiredClientCapabilityError,
  PROTOCOL_VERSION_META_KEY,
  type Prompt,
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type ReadResourceResult,
  type RequestStateCodec,
  type Resource,
  ResourceNotFoundError,
  type Result,
  Server,
  type ServerContext,
  type Tool,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { BeforeSendSignal } from "../errors/api-error.js";
import type { Caller } from "./caller.js";
import { type TaskAccess, TaskLimitError, type TaskView } from "./tasks.js";

export type { CallToolResult, GetPromptResult, JSONRPCMessage, ReadResourceResult };
export type ToolListing = Tool;
export type PromptListing = Prompt;
export type ResourceListing = Resource;

/** The MIME type of an MCP App view (`text/html;profile=mcp-app`). */
export const APP_MIME_TYPE = RESOURCE_MIME_TYPE;

/**
 * The `_meta` of a tool listing whose results a view renders: `ui.resourceUri`, visible to the model
 * and callable by the app, and the extension's legacy flat key for hosts that read only that.
 */
export function appToolMeta(uri: string): Record<string, unknown> {
  const ui: McpUiToolMeta = { resourceUri: uri, visibility: ["model", "app"] };
  return { ui, [RESOURCE_URI_META_KEY]: uri };
}

/**
 * The `_meta` of a tool no view may call (interface.md §9: the writers): visible to the model only,
 * so a view cannot ask the host to run it (the extension's default is model and app).
 */
export function modelOnlyToolMeta(): Record<string, unknown> {
  const ui: McpUiToolMeta = { visibility: ["model"] };
  return { ui };
}

/** One view's `resources/read` answer: the HTML, with the host's border around it. */
export function appViewContents(uri: string, html: string): ReadResourceResult {
  // No csp: the view loads nothing, so the host's restrictive default policy is all it needs.
  const ui: McpUiResourceMeta = { prefersBorder: true };
  return { contents: [{ uri, mimeType: APP_MIME_TYPE, text: html, _meta: { ui } }] };
}

/** Protocol revisions served, newest first. */
export const PROTOCOL_VERSIONS = ["2026-07-28", "2025-11-25"] as const;

/** The answer to a write confirmation. */
export type Confirmation = "approved" | "declined" | "unsupported";

/** What a tool call may do with the client, without knowing the SDK or the era. */
export interface CallContext {
  signal: AbortSignal;
  /** Send notifications/progress; a no-op when the client sent no progressToken. */
  progress(update: { progress: number; total?: number | undefined; message: string }): Promise<void>;
  /**
   * Ask the user to approve `message`. Resolves "approved" only on an explicit accept with
   * confirm=true for exactly this tool and these arguments; "unsupported" when the client can show
   * no prompt. Throws ConfirmationPending when the question must first travel to the client
   * (the caller lets it through: nothing was written).
   */
  confirm(message: string): Promise<Confirmation>;
  /** Why confirmation is unsupported for this client, and what to do, for the refusal message. */
  unsupportedReason(): { why: string; fix: string };
  /** Whether `confirm` could ask this client (it declared elicitation), without asking: a dry run's check. */
  canConfirm(): boolean;
  /** For the tool-call span: the JSON-RPC id, the W3C trace context from `params._meta`, the transport. */
  trace: { requestId: string | number; traceparent: unknown; tracestate: unknown; transport: "pipe" | "tcp" };
  /** The call runs as an MCP task: it runs to completion while the client polls; `progress` sets its status. */
  asTask?: boolean;
}

/**
 * A control-flow signal from CallContext to this module, through the tool wrapper (which lets it
 * pass: it is not a tool failure). Nothing has been written when one is thrown.
 */
export class ProtocolSignal extends BeforeSendSignal {}

/**
 * Thrown by CallContext.confirm when the approval must be asked first: the call ends with an
 * `input_required` result and resumes when the client answers. Nothing has been written.
 */
export class ConfirmationPending extends ProtocolSignal {
  override readonly name = "ConfirmationPending";
  constructor(readonly summary: string) {
    super("awaiting the user's confirmation; nothing was written");
  }
}

/**
 * Thrown by CallContext.confirm for a 2026-07-28 client that declared no elicitation: the spec
 * requires a MissingRequiredClientCapabilityError (-32021, HTTP 400) naming the capability.
 */
class CapabilityRequired extends ProtocolSignal {}

export interface ProtocolHandlers {
  listTools(): ToolListing[];
  /** Returns undefined for an unknown tool name (answered as a JSON-RPC error). */
  callTool(name: string, args: unknown, context: CallContext): Promise<CallToolResult | undefined>;
  /** Optional prompts: with listPrompts the server declares the `prompts` capability. */
  listPrompts?(): PromptListing[];
  /** Returns undefined for an unknown prompt name (answered as a JSON-RPC error). */
  getPrompt?(
    name: string,
    args: Record<string, string>,
  ): GetPromptResult | undefined | Promise<GetPromptResult | undefined>;
  /** Optional resources (the MCP App views): with listResources the server declares `resources`. */
  listResources?(): ResourceListing[];
  /** A resource's contents; undefined for an unknown URI (answered as a JSON-RPC error). */
  readResource?(uri: string): Promise<ReadResourceResult | undefined>;
  /** Whether a tool may run as a task ("optional"), may not ("forbidden"), or is unknown (undefined). */
  taskSupport?(name: string): "optional" | "forbidden" | undefined;
  /** For a 2026 client that offers tasks: whether this call should become one (the server decides). */
  prefersTask?(name: string, args: unknown): boolean;
}

export interface ProtocolServer {
  readonly sdkServer: Server;
  close(): Promise<void>;
}

/** The payload of a confirmation round's requestState: no secret, only what binds the answer. */
interface ConfirmState {
  v: 2;
  /** The tenant (MCP_TENANTS_FILE) that was asked; "" without tenants. Another tenant's answer does not count. */
  tenant: string;
  tool: string;
  /** sha256 of the canonical JSON of the call's arguments. */
  args: string;
}

/** Signs and checks requestState. One per process; replicas share MCP_STATE_SECRET. */
export interface StateSigner {
  readonly codec: RequestStateCodec<ConfirmState>;
  readonly shared: boolean;
}

/** Seconds a confirmation question stays answerable. */
export const CONFIRM_TTL_SECONDS = 600;

/**
 * The requestState signer. `secret` (MCP_STATE_SECRET, at least 32 bytes) lets several replicas
 * verify each other's state; without it a random per-process key is used.
 */
export function createStateSigner(secret?: string): StateSigner {
  const key = secret === undefined ? randomBytes(32) : new TextEncoder().encode(secret);
  if (key.length < 32) throw new RangeError("MCP_STATE_SECRET must be at least 32 bytes long");
  const codec = createRequestStateCodec<ConfirmState>({
    key,
    ttlSeconds: CONFIRM_TTL_SECONDS,
    bind: (ctx) => ctx.mcpReq.method,
  });
  return { codec, shared: secret !== undefined };
}

/** Canonical JSON (sorted keys) so the same arguments always hash alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const argsHash = (args: unknown) => createHash("sha256").update(canonical(args)).digest("base64url");

const ConfirmAnswer = z.object({ confirm: z.boolean() });

const CONFIRM_SCHEMA = {
  type: "object" as const,
  properties: {
    confirm: { type: "boolean" as const, title: "Approve this write", default: false },
  },
  required: ["confirm"],
};

export interface ProtocolServerOptions {
  signer: StateSigner;
  /** The tenant this server acts for: confirmation state is bound to it. */
  tenant?: string | undefined;
  /** cacheScope of the list results: "private" when they depend on who asks (a tenant's tool set). */
  cacheScope?: "public" | "private";
  /** The caller's tasks (its own, of its tenant): with it the server declares tasks (2025 capability, 2026 extension). */
  tasks?: TaskAccess | undefined;
}

export function createProtocolServer(
  info: { name: string; version: string },
  instructions: string,
  handlers: ProtocolHandlers,
  options: ProtocolServerOptions,
): ProtocolServer {
  const prompts = handlers.listPrompts !== undefined;
  const resources = handlers.listResources !== undefined;
  const cacheable = { ttlMs: 5 * 60 * 1000, cacheScope: options.cacheScope ?? "public" };
  const tasks = options.tasks;
  const server = new ToolServer(handlers, options.signer, options.tenant ?? "", tasks, info, {
    capabilities: {
      tools: { listChanged: false },
      ...(prompts ? { prompts: { listChanged: false } } : {}),
      ...(resources ? { resources: { listChanged: false } } : {}),
      // The SDK drops `tasks` from 2026 answers and `execution` from 2026 tool listings itself.
      ...(tasks ? TASK_CAPABILITIES : {}),
    },
    instructions,
    cacheHints: {
      "tools/list": cacheable,
      ...(prompts ? { "prompts/list": cacheable } : {}),
      ...(resources
        ? {
            "resources/list": cacheable,
            "resources/templates/list": cacheable,
            "resources/read": cacheable,
          }
        : {}),
    },
    requestState: { verify: options.signer.codec.verify },
  });

  server.setRequestHandler("tools/list", () => ({ tools: handlers.listTools() }));

  server.setRequestHandler("tools/call", (request, ctx) =>
    server.runCall(request.params.name, request.params.arguments, ctx),
  );
  if (tasks) registerTaskMethods(server, tasks);

  if (prompts) registerPromptMethods(server, handlers);
  if (resources) registerResourceMethods(server, handlers);

  return { sdkServer: server, close: () => server.close() };
}

/** prompts/list and prompts/get; a bad argument or an unknown prompt is an InvalidParams naming the fix. */
function registerPromptMethods(server: Server, handlers: ProtocolHandlers): void {
  server.setRequestHandler("prompts/list", () => ({ prompts: handlers.listPrompts?.() ?? [] }));
  server.setRequestHandler("prompts/get", async (request) => {
    let result: GetPromptResult | undefined;
    try {
      result = await handlers.getPrompt?.(request.params.name, request.params.arguments ?? {});
    } catch (error) {
      // A bad prompt argument: the message names the fix.
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, (error as Error).message);
    }
    if (result === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown prompt: ${request.params.name}. Call prompts/list for the available prompts.`,
      );
    }
    return result;
  });
}

/** resources/list, resources/templates/list (none) and resources/read. */
function registerResourceMethods(server: Server, handlers: ProtocolHandlers): void {
  server.setRequestHandler("resources/list", () => ({ resources: handlers.listResources?.() ?? [] }));
  // Hosts that see `resources` often ask for templates too: there are none.
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [] }));
  server.setRequestHandler("resources/read", async (request) => {
    const uri = request.params.uri;
    let result: ReadResourceResult | undefined;
    try {
      result = await handlers.readResource?.(uri);
    } catch (error) {
      // The view's file is missing or unreadable: the message says how to build it.
      throw new ProtocolError(ProtocolErrorCode.InternalError, (error as Error).message);
    }
    if (result === undefined) {
      throw new ResourceNotFoundError(
        uri,
        `Unknown resource: ${uri}. Call resources/list for the available resources.`,
      );
    }
    return result;
  });
}

/** The 2026-07-28 per-request envelope key `key`, when the request carried it. */
function envelope(ctx: ServerContext, key: string): unknown {
  return (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[key];
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The SDK's low-level Server, plus our tools/call entry (confirmation rounds, argument shapes). */
class ToolServer extends Server {
  constructor(
    private readonly handlers: ProtocolHandlers,
    private readonly signer: StateSigner,
    private readonly tenant: string,
    private readonly tasks: TaskAccess | undefined,
    ...rest: ConstructorParameters<typeof Server>
  ) {
    super(...rest);
  }

  /**
   * The SDK refuses a tools/call whose `arguments` is not an object with a raw validation error.
   * Some clients send the arguments as one JSON string: decode it; anything else that is not an
   * object (null, an array, a number) goes to the tool wrapper, which answers a clear tool error.
   * A call that becomes a task starts here and is answered at once, before the SDK's result check
   * (a CreateTaskResult is not a CallToolResult).
   */
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler);
    if (method !== "tools/call") return wrapped;
    return async (request, ctx) => {
      const params = request.params as { name?: unknown; arguments?: unknown; task?: unknown } | undefined;
      const args = params?.arguments;
      if (typeof params?.name === "string") {
        const decoded = typeof args === "string" ? (parseObject(args) ?? args) : args;
        const era = this.taskEra(params.name, params.task, decoded, ctx);
        if (era !== undefined) return this.startTask(params.name, decoded, ctx, era);
      }
      if (
        params === undefined ||
        typeof params.name !== "string" ||
        args === undefined ||
        isPlainObject(args)
      ) {
        return wrapped(request, ctx);
      }
      if (typeof args === "string") {
        const decoded = parseObject(args);
        if (decoded !== undefined)
          return wrapped({ ...request, params: { ...params, arguments: decoded } }, ctx);
      }
      return this.runCall(params.name, args, ctx);
    };
  }

  /**
   * Whether this call becomes a task, and in which era's shape. 2025-11-25: the client asks, with
   * `params.task`, for a tool whose `execution.taskSupport` allows it. 2026-07-28: the client offers
   * the tasks extension in the request's capabilities and the server decides (`params.task` is
   * ignored, as the extension says).
   */
  private taskEra(
    name: string,
    task: unknown,
    args: unknown,
    ctx: ServerContext,
  ): "2025-11-25" | "2026-07-28" | undefined {
    if (this.tasks === undefined) return undefined;
    const support = this.handlers.taskSupport?.(name);
    // An unknown tool is answered as such by the plain path.
    if (support === undefined) return undefined;
    if (envelope(ctx, PROTOCOL_VERSION_META_KEY) !== undefined) {
      if (support !== "optional" || !offersTasks(ctx)) return undefined;
      return this.handlers.prefersTask?.(name, args) === false ? undefined : "2026-07-28";
    }
    if (!isPlainObject(task)) return undefined;
    if (support !== "optional") {
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        `${name} does not run as a task (its execution.taskSupport is "forbidden"): call it without "task".`,
      );
    }
    return "2025-11-25";
  }

  /** Start the call as a task of this tenant and answer the era's CreateTaskResult at once. */
  private startTask(
    name: string,
    args: unknown,
    ctx: ServerContext,
    era: "2025-11-25" | "2026-07-28",
  ): CallToolResult {
    const base = callContext(this, ctx, { tenant: this.tenant, tool: name }, args);
    let task: TaskView;
    try {
      task = this.tasks!.start(async ({ signal, report }) => {
        const context: CallContext = {
          ...base,
          // The task's own signal: the request that created it has ended, tasks/cancel aborts it.
          signal,
          asTask: true,
          progress: async (update) => report(update.message),
          // Writers do not run as tasks; a task has no channel to ask the user.
          confirm: async () => "unsupported",
        };
        const result = await this.handlers.callTool(name, args, context);
        if (result === undefined) {
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}.`);
        }
        return result;
      }, name);
    } catch (error) {
      if (error instanceof TaskLimitError)
        throw new ProtocolError(ProtocolErrorCode.InternalError, error.message);
      throw error;
    }
    // CreateTaskResult is not a CallToolResult; the SDK passes it through unvalidated on this path.
    const created =
      era === "2025-11-25" ? { task: legacyTask(task) } : { resultType: "task", ...modernTask(task) };
    return created as unknown as CallToolResult;
  }

  async runCall(
    name: string,
    args: unknown,
    ctx: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    const context = callContext(this, ctx, { tenant: this.tenant, tool: name }, args);
    let result: CallToolResult | undefined;
    try {
      result = await this.handlers.callTool(name, args, context);
    } catch (error) {
      if (error instanceof CapabilityRequired) {
        throw new MissingRequiredClientCapabilityError(
          { requiredCapabilities: { elicitation: { form: {} } } },
          error.message,
        );
      }
      if (!(error instanceof ConfirmationPending)) throw error;
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({
            message: error.summary,
            requestedSchema: {
              ...CONFIRM_SCHEMA,
              properties: { confirm: { ...CONFIRM_SCHEMA.properties.confirm, description: error.summary } },
            },
          }),
        },
        requestState: await this.signer.codec.mint(
          { v: 2, tenant: this.tenant, tool: name, args: argsHash(args ?? {}) },
          ctx,
        ),
      });
    }
    if (result === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool: ${name}. Call tools/list for the available tools.`,
      );
    }
    return result;
  }
}

// ---------------------------------------------------------------------------------------------
// Tasks: 2025-11-25 (tasks/get, tasks/result, tasks/list, tasks/cancel) and the 2026-07-28 tasks
// extension (tasks/get, tasks/update, tasks/cancel; tasks/result and tasks/list are gone there and
// the SDK answers them -32601 on that era).

const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

const TASK_CAPABILITIES = {
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
  extensions: { [TASKS_EXTENSION]: {} },
};

// Built once: a zod schema costs more to build than to run, and the HTTP edge builds a server per request.
const TaskIdParams = z.object({ taskId: z.string() });
const TaskListParams = z.object({ cursor: z.string().optional() });

/** Whether a 2026 request declared the tasks extension in its capabilities. */
function offersTasks(ctx: ServerContext): boolean {
  const caps = envelope(ctx, CLIENT_CAPABILITIES_META_KEY) as { extensions?: unknown } | undefined;
  return isPlainObject(caps?.extensions) && isPlainObject(caps.extensions[TASKS_EXTENSION]);
}

/** A task as 2025-11-25 shows it (`ttl`, `pollInterval`). */
function legacyTask(task: TaskView): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt.toISOString(),
    lastUpdatedAt: task.lastUpdatedAt.toISOString(),
    ttl: task.ttlMs,
    pollInterval: task.pollIntervalMs,
  };
}

/** A task as the 2026 extension shows it (`ttlMs`, `pollIntervalMs`), with its result or error when `detailed`. */
function modernTask(task: TaskView, detailed = false): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt.toISOString(),
    lastUpdatedAt: task.lastUpdatedAt.toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
    ...(detailed && task.status === "completed" ? { result: task.result } : {}),
    ...(detailed && task.status === "failed" ? { error: task.error } : {}),
  };
}

const unknownTask = (taskId: string) =>
  new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Failed to retrieve task: no task ${JSON.stringify(taskId)} (unknown, expired, or another client's)`,
  );

/**
 * The task methods of both eras, on one server. The custom-schema form of setRequestHandler is the
 * SDK's way in for tasks/get and tasks/cancel on 2026 (names the extension re-defines) and for
 * tasks/update (an extension method); on 2025 the same handlers answer the spec's methods.
 */
function registerTaskMethods(server: Server, tasks: TaskAccess): void {
  const modern = (ctx: ServerContext) => {
    if (envelope(ctx, PROTOCOL_VERSION_META_KEY) === undefined) return false;
    if (!offersTasks(ctx)) {
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        `Missing required client capability: declare the extension ${TASKS_EXTENSION} in io.modelcontextprotocol/clientCapabilities to use tasks.`,
      );
    }
    return true;
  };
  const found = (taskId: string, task: TaskView | undefined): TaskView => {
    if (task === undefined) throw unknownTask(taskId);
    return task;
  };

  server.setRequestHandler("tasks/get", { params: TaskIdParams }, (params, ctx) => {
    const task = found(params.taskId, tasks.get(params.taskId));
    return modern(ctx) ? modernTask(task, true) : legacyTask(task);
  });
  server.setRequestHandler("tasks/cancel", { params: TaskIdParams }, (params, ctx) => {
    const isModern = modern(ctx);
    const before = found(params.taskId, tasks.get(params.taskId));
    if (!isModern && before.status !== "working") {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Cannot cancel task ${params.taskId}: it is already ${before.status}.`,
      );
    }
    const task = found(params.taskId, tasks.cancel(params.taskId));
    return isModern ? {} : legacyTask(task);
  });
  // 2026: no task of ours asks for input, so there is never an outstanding key to answer (the SDK
  // lifts `inputResponses` out of params into ctx.mcpReq before this handler runs).
  server.setRequestHandler("tasks/update", { params: TaskIdParams }, (params, ctx) => {
    modern(ctx);
    found(params.taskId, tasks.get(params.taskId));
    return {};
  });
  // 2025 only (the SDK refuses them on 2026): the result once the task ends, and this tenant's tasks.
  server.setRequestHandler("tasks/result", { params: TaskIdParams }, async (params) => {
    const task = found(params.taskId, await tasks.settled(params.taskId));
    const related = { [RELATED_TASK_META_KEY]: { taskId: task.taskId } };
    if (task.status === "completed") {
      const result = task.result as Result;
      return { ...result, _meta: { ...(result._meta as object | undefined), ...related } };
    }
    if (task.status === "failed") throw new ProtocolError(task.error!.code, task.error!.message, related);
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Task ${task.taskId} was cancelled before it finished: it has no result. Call the tool again for one.`,
      related,
    );
  });
  server.setRequestHandler("tasks/list", { params: TaskListParams }, () => ({
    tasks: tasks.list().map(legacyTask),
  }));
}

/** The object a JSON text holds, or undefined. */
function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the client declared form elicitation (a bare `elicitation: {}` counts as form). */
function elicitationOf(server: Server, ctx: ServerContext): boolean {
  const caps =
    (envelope(ctx, CLIENT_CAPABILITIES_META_KEY) as ClientCapabilities | undefined) ??
    server.getClientCapabilities();
  const elicitation = caps?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (elicitation === undefined) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

function callContext(
  server: Server,
  ctx: ServerContext,
  call: { tenant: string; tool: string },
  args: unknown,
): CallContext {
  const modern = envelope(ctx, PROTOCOL_VERSION_META_KEY) !== undefined;
  const overHttp = ctx.http !== undefined;
  const meta = ctx.mcpReq._meta as { traceparent?: unknown; tracestate?: unknown } | undefined;
  return {
    signal: ctx.mcpReq.signal,
    trace: {
      requestId: ctx.mcpReq.id,
      traceparent: meta?.traceparent,
      tracestate: meta?.tracestate,
      transport: overHttp ? "tcp" : "pipe",
    },
    progress: progressSender(ctx),
    unsupportedReason: () => unsupportedReason(modern, overHttp),
    canConfirm() {
      return elicitationOf(server, ctx);
    },
    confirm: (message) => askConfirmation(server, ctx, call, args, message),
  };
}

/** notifications/progress to this request's progressToken (none: a no-op), in strictly increasing values. */
export function progressSender(ctx: ServerContext): CallContext["progress"] {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  let lastProgress = Number.NEGATIVE_INFINITY;
  return async (update) => {
    // The protocol requires strictly increasing progress values.
    if (progressToken === undefined || update.progress <= lastProgress) return;
    lastProgress = update.progress;
    await ctx.mcpReq.notify({
      method: "notifications/progress",
      params: { progressToken, progress: update.progress, total: update.total, message: update.message },
    });
  };
}

/** Why this client cannot be asked to confirm (`modern`: it speaks 2026-07-28), and what to do. */
export function unsupportedReason(modern: boolean, overHttp: boolean): { why: string; fix: string } {
  if (!modern && overHttp) {
    return {
      why: "this client speaks MCP 2025-11-25 over HTTP, which this server serves statelessly, so it cannot show a confirmation prompt mid-call",
      fix: "Use a client that speaks MCP 2026-07-28, or connect over stdio",
    };
  }
  return {
    why: "this MCP client cannot show a confirmation prompt (it declared no elicitation support)",
    fix: "Use a client that supports elicitation",
  };
}

/**
 * CallContext.confirm: the user's answer when the request carries one bound to this tenant, tool and
 * arguments; else ask (ConfirmationPending), or say the client cannot be asked.
 */
export async function askConfirmation(
  server: Server,
  ctx: ServerContext,
  call: { tenant: string; tool: string },
  args: unknown,
  message: string,
): Promise<Confirmation> {
  const { tool } = call;
  const modern = envelope(ctx, PROTOCOL_VERSION_META_KEY) !== undefined;
  const state = ctx.mcpReq.requestState<ConfirmState | string>();
  const bound =
    typeof state === "object" &&
    state !== null &&
    state.tenant === call.tenant &&
    state.tool === tool &&
    state.args === argsHash(args ?? {});
  if (bound) {
    const answer = inputResponse(ctx.mcpReq.inputResponses, "confirm");
    if (answer.kind === "elicit" && answer.action !== "accept") return "declined";
    const content = acceptedContent(ctx.mcpReq.inputResponses, "confirm", ConfirmAnswer);
    if (content !== undefined) return content.confirm ? "approved" : "declined";
  }
  if (!elicitationOf(server, ctx)) {
    if (!modern) return "unsupported";
    throw new CapabilityRequired(
      `This server runs with --confirm-writes: ${tool} must ask the user to approve the write, which needs the client capability elicitation (form). Declare it in io.modelcontextprotocol/clientCapabilities, or restart the server without --confirm-writes. Nothing was written.`,
    );
  }
  // Unbound or missing state, or no answer yet: ask (again). A fresh state binds this call.
  throw new ConfirmationPending(message);
}

// ---------------------------------------------------------------------------------------------
// stdio

/** The transport shape serveStdio drives; src/mcp/transports/stdio.ts implements it over stdin/stdout. */
export interface Wire {
  start(): Promise<void>;
  send(message: JSONRPCMessage): Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
}

/** Parse one line of the stdio wire into a JSON-RPC message (throws on anything else). */
export { parseJSONRPCMessage as parseMessage } from "@modelcontextprotocol/server";

/**
 * Serve both eras over one stdio connection: the opening message picks the era and one server
 * from `factory` is pinned to the connection.
 */
export async function serveStdioWire(
  factory: () => ProtocolServer,
  wire: Wire,
  onerror: (error: Error) => void,
): Promise<{ close(): Promise<void> }> {
  const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
  // biome-ignore lint/suspicious/noExplicitAny: Wire is the SDK Transport minus optional members.
  return serveStdio(() => factory().sdkServer, { transport: wire as any, onerror });
}

// ---------------------------------------------------------------------------------------------
// HTTP

/** One stateless MCP endpoint: every request builds its server from the factory. */
export interface HttpEndpoint {
  /** Serve one request whose body the caller has read and parsed. */
  handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
  close(): Promise<void>;
}

export async function createHttpEndpoint(
  /** `caller`: what the transport set in `req.auth.extra.caller` (tenant, OAuth scopes and names). */
  factory: (caller: Caller) => ProtocolServer,
  options: { maxBodyBytes: number; onerror: (error: Error) => void },
): Promise<HttpEndpoint> {
  const [{ createMcpHandler }, { toNodeHandler }] = await Promise.all([
    import("@modelcontextprotocol/server"),
    import("@modelcontextprotocol/node"),
  ]);
  const handler = createMcpHandler((ctx) => factory(callerOf(ctx.authInfo?.extra)).sdkServer, {
    legacy: "stateless",
    maxRequestBodySize: options.maxBodyBytes,
    onerror: options.onerror,
  });
  const node = toNodeHandler(handler, { maxRequestBodySize: options.maxBodyBytes, onerror: options.onerror });
  return {
    handle: (req, res, body) => node(req, res, body),
    close: () => handler.close(),
  };
}

function callerOf(extra: Record<string, unknown> | undefined): Caller {
  const caller = extra?.caller as Caller | undefined;
  return caller ?? { tenant: undefined };
}
