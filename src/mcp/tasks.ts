/**
 * MCP tasks of one tenant, in memory: a task-augmented `tools/call` runs here to completion while
 * the client polls, and its result outlives the connection that asked for it. The store knows no
 * protocol era: `src/mcp/sdk.ts` renders its records as 2025-11-25 tasks or as the 2026-07-28
 * tasks extension. Bounded: at most `maxTasks` records, a finished one kept `ttlMs` after it
 * finished, purged on the next use (no timer for that). A running task whose client asks nothing
 * about it for the TTL is taken as gone and cancelled (one unref'd timer per running task). Task ids are random
 * UUIDs, and each tenant has its own store, so one tenant can neither find nor guess another's.
 * Within a tenant a task belongs to who made it (interface.md §9b): the tenant's static token, or
 * one OAuth subject through one client (`ownerOf`). `for(owner)` is that owner's view: it gets,
 * lists, awaits and cancels only its own tasks, reads a result only with the scope the tool needed,
 * and has its own bound (`maxTasks`) within the tenant's (`maxTenantTasks`).
 * IMPORTANT: tasks live in this process only; a restart loses them and replicas do not share them.
 */
import { randomUUID } from "node:crypto";
import type { Caller } from "./caller.js";

export type TaskStatus = "working" | "completed" | "failed" | "cancelled";

/** What a client may read of a task: a copy, never the live record. */
export interface TaskView {
  taskId: string;
  status: TaskStatus;
  /** The latest progress line of a running task, or why it ended. */
  statusMessage?: string | undefined;
  createdAt: Date;
  lastUpdatedAt: Date;
  /** Retention from creation: the TTL while it runs; once finished, until it is purged. */
  ttlMs: number;
  pollIntervalMs: number;
  /** A completed task's result (a CallToolResult, isError results included). */
  result?: Record<string, unknown> | undefined;
  /** A failed task's JSON-RPC error (a protocol failure, never a tool error). */
  error?: { code: number; message: string } | undefined;
}

/** What a task's work receives: its own signal (aborted by tasks/cancel) and a progress line. */
export interface TaskRun {
  signal: AbortSignal;
  report(message: string): void;
}

export interface TaskStoreOptions {
  /** How long a finished task is kept (MMS_TASK_TTL_SECONDS × 1000). */
  ttlMs: number;
  /** Records one owner keeps at most, running and finished (default 64). */
  maxTasks?: number;
  /** Records the tenant keeps at most, all owners together (default 1024). */
  maxTenantTasks?: number;
  /** The poll interval suggested to clients, in ms (default 1000). */
  pollIntervalMs?: number;
  /** Epoch ms; tests inject a clock. Default Date.now. */
  now?: () => number;
}

/** Thrown by TaskStore.start when every slot holds a running task. */
export class TaskLimitError extends Error {
  override readonly name = "TaskLimitError";
}

/** Thrown when a caller reads a task whose tool needed a scope its token lacks (JSON-RPC invalid params). */
export class TaskScopeError extends Error {
  override readonly name = "TaskScopeError";
  readonly code = -32602;
}

/** Who made a task: the tenant's static token, or an OAuth subject through one client. */
export interface TaskOwner {
  /** Equal keys, same owner. */
  key: string;
  /** The token's scopes (OAuth); undefined: a static token, which may call every tool. */
  scopes?: readonly string[] | undefined;
}

/**
 * The owner a caller's tasks belong to: the static token, an OAuth subject through one client, or,
 * for a token that names neither (interface.md §9c), that token itself (its `tokenRef`): binding
 * keeps its tasks usable for the token's life, where a refusal would take tasks away from it.
 */
export function ownerOf(caller: Caller | undefined): TaskOwner {
  if (caller?.scopes === undefined && caller?.subject === undefined && caller?.clientId === undefined)
    return { key: "token" };
  if (caller.subject === undefined && caller.clientId === undefined)
    // Without a reference (never from the OAuth edge), an owner no one else can be: nothing shared.
    return { key: JSON.stringify(["oauth-token", caller.tokenRef ?? randomUUID()]), scopes: caller.scopes };
  return {
    key: JSON.stringify(["oauth", caller.subject ?? null, caller.clientId ?? null]),
    scopes: caller.scopes,
  };
}

/** What the protocol server does with tasks, for one owner (TaskStore.for). */
export interface TaskAccess {
  /** `tool`: the tool the task runs (reading its result needs the scope the tool needs). */
  start(work: (run: TaskRun) => Promise<Record<string, unknown>>, tool?: string): TaskView;
  get(taskId: string): TaskView | undefined;
  list(): TaskView[];
  cancel(taskId: string): TaskView | undefined;
  settled(taskId: string): Promise<TaskView | undefined>;
}

interface Entry {
  owner: string;
  /** The scope reading its status and result needs (the tool's), or undefined. */
  scope: string | undefined;
  view: TaskView;
  controller: AbortController;
  settled: Promise<void>;
  /** Epoch ms after which a finished task is purged; undefined while it runs. */
  expiresAt?: number;
  /** Epoch ms its client last asked about it (started, got, listed, awaited, cancelled). */
  seenAt: number;
  /** Ends a running task whose client has gone (see #watch). */
  watch?: NodeJS.Timeout;
}

const TOKEN_OWNER: TaskOwner = { key: "token" };

export class TaskStore implements TaskAccess {
  readonly #entries = new Map<string, Entry>();
  readonly #ttlMs: number;
  readonly #maxTasks: number;
  readonly #maxTenantTasks: number;
  readonly #pollIntervalMs: number;
  readonly #now: () => number;

  constructor(options: TaskStoreOptions) {
    this.#ttlMs = options.ttlMs;
    this.#maxTasks = options.maxTasks ?? 64;
    this.#maxTenantTasks = Math.max(options.maxTenantTasks ?? 1024, this.#maxTasks);
    this.#pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.#now = options.now ?? Date.now;
  }

  /**
   * One owner's view: its own tasks only, read only with the scope their tool needs (`scopeOf`, for
   * callers whose token carries scopes).
   */
  for(owner: TaskOwner, scopeOf?: (tool: string) => string | undefined): TaskAccess {
    return {
      start: (work, tool) => this.#start(owner, work, tool === undefined ? undefined : scopeOf?.(tool)),
      get: (taskId) => this.#readable(owner, this.#own(owner, taskId)),
      list: () => this.#list(owner),
      cancel: (taskId) => this.#cancel(this.#own(owner, taskId)),
      settled: (taskId) => this.#settled(owner, taskId),
    };
  }

  // The store itself is the static token's view (stdio, tests).
  start(work: (run: TaskRun) => Promise<Record<string, unknown>>): TaskView {
    return this.#start(TOKEN_OWNER, work, undefined);
  }
  get(taskId: string): TaskView | undefined {
    return this.#readable(TOKEN_OWNER, this.#own(TOKEN_OWNER, taskId));
  }
  list(): TaskView[] {
    return this.#list(TOKEN_OWNER);
  }
  cancel(taskId: string): TaskView | undefined {
    return this.#cancel(this.#own(TOKEN_OWNER, taskId));
  }
  settled(taskId: string): Promise<TaskView | undefined> {
    return this.#settled(TOKEN_OWNER, taskId);
  }

  /** Abort every running task (shutdown). */
  close(): void {
    for (const entry of this.#entries.values()) {
      clearTimeout(entry.watch);
      if (entry.view.status === "working") entry.controller.abort(new Error("server shutting down"));
    }
  }

  /**
   * Start `work` as a new task of `owner` and return its first view (status "working"). The task is
   * readable before this returns. A rejection of `work` fails the task with its JSON-RPC code
   * (default -32603); whatever `work` settles with after a cancel is dropped.
   */
  #start(
    owner: TaskOwner,
    work: (run: TaskRun) => Promise<Record<string, unknown>>,
    scope: string | undefined,
  ): TaskView {
    this.#purge();
    this.#makeRoom(owner.key);
    const now = new Date(this.#now());
    const view: TaskView = {
      taskId: randomUUID(),
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.#ttlMs,
      pollIntervalMs: this.#pollIntervalMs,
    };
    const controller = new AbortController();
    const entry: Entry = {
      owner: owner.key,
      scope,
      view,
      controller,
      settled: Promise.resolve(),
      seenAt: this.#now(),
    };
    this.#entries.set(view.taskId, entry);
    this.#watch(entry);
    const report = (message: string) => {
      if (view.status !== "working") return;
      view.statusMessage = message;
      view.lastUpdatedAt = new Date(this.#now());
    };
    entry.settled = Promise.resolve()
      .then(() => work({ signal: controller.signal, report }))
      .then(
        (result) => this.#finish(entry, { status: "completed", result }),
        (error: unknown) => this.#finish(entry, { status: "failed", error: rpcError(error) }),
      );
    return copy(view);
  }

  /** The owner's task, or undefined when it is unknown, expired, or someone else's (the same answer). */
  #own(owner: TaskOwner, taskId: string): Entry | undefined {
    this.#purge();
    const entry = this.#entries.get(taskId);
    if (entry?.owner !== owner.key) return undefined;
    entry.seenAt = this.#now();
    return entry;
  }

  /** The task's view; throws when the owner's token now lacks the scope the tool needed. */
  #readable(owner: TaskOwner, entry: Entry | undefined): TaskView | undefined {
    if (entry === undefined) return undefined;
    const { scope } = entry;
    if (scope !== undefined && owner.scopes !== undefined && !owner.scopes.includes(scope))
      throw new TaskScopeError(
        `Task ${entry.view.taskId} runs a tool that needs the scope ${scope}, which this access token does not grant: sign in again and grant ${scope} to read it.`,
      );
    return copy(entry.view);
  }

  /** The owner's tasks, newest first. */
  #list(owner: TaskOwner): TaskView[] {
    this.#purge();
    const now = this.#now();
    return [...this.#entries.values()]
      .filter((e) => e.owner === owner.key)
      .map((e) => {
        e.seenAt = now;
        return copy(e.view);
      })
      .reverse();
  }

  /**
   * Cancel a running task: its signal aborts (so its upstream requests stop) and it reads
   * "cancelled" at once. A finished task is returned unchanged; undefined when unknown.
   */
  #cancel(entry: Entry | undefined): TaskView | undefined {
    if (!entry) return undefined;
    if (entry.view.status === "working") {
      this.#finish(entry, { status: "cancelled", statusMessage: "Cancelled by the client." });
      entry.controller.abort(new Error("task cancelled"));
    }
    return copy(entry.view);
  }

  /** The task once its work has settled (a cancelled task: once its work has stopped). */
  async #settled(owner: TaskOwner, taskId: string): Promise<TaskView | undefined> {
    const entry = this.#own(owner, taskId);
    if (!entry) return undefined;
    this.#readable(owner, entry);
    await entry.settled;
    return copy(entry.view);
  }

  /**
   * A running task whose client has gone (asked nothing about it for the TTL: it could no longer read
   * the result) is cancelled, so its waits and upstream requests end (interface.md §9b). One unref'd
   * timer per running task, re-armed while its client keeps asking.
   */
  #watch(entry: Entry): void {
    const check = () => {
      if (entry.view.status !== "working") return;
      const idleMs = this.#now() - entry.seenAt;
      if (idleMs < this.#ttlMs) {
        entry.watch = setTimeout(check, this.#ttlMs - idleMs).unref();
        return;
      }
      this.#finish(entry, {
        status: "cancelled",
        statusMessage: `Stopped: its client asked nothing about it for ${Math.round(this.#ttlMs / 1000)} s (gone).`,
      });
      entry.controller.abort(new Error("task abandoned by its client"));
    };
    entry.watch = setTimeout(check, this.#ttlMs).unref();
  }

  #finish(entry: Entry, end: Partial<TaskView> & { status: TaskStatus }): void {
    // The first end wins: a cancelled task keeps "cancelled" when its work settles later.
    if (entry.view.status !== "working") return;
    clearTimeout(entry.watch);
    const now = this.#now();
    Object.assign(entry.view, end, { lastUpdatedAt: new Date(now) });
    entry.expiresAt = now + this.#ttlMs;
    entry.view.ttlMs = entry.expiresAt - entry.view.createdAt.getTime();
  }

  #purge(): void {
    const now = this.#now();
    for (const [id, entry] of this.#entries) {
      if (entry.expiresAt !== undefined && entry.expiresAt <= now) this.#entries.delete(id);
    }
  }

  /**
   * At the owner's bound, the owner's oldest finished task leaves; at the tenant's, the tenant's
   * oldest finished one. When all are running, refuse, naming whose bound it is.
   */
  #makeRoom(owner: string): void {
    const own = [...this.#entries].filter(([, e]) => e.owner === owner);
    if (own.length >= this.#maxTasks && !this.#dropOldestFinished(own))
      throw new TaskLimitError(
        `${this.#maxTasks} of your tasks are already running (the bound of each user and client); wait for one to finish or cancel one (tasks/cancel), or call without a task`,
      );
    if (this.#entries.size >= this.#maxTenantTasks && !this.#dropOldestFinished([...this.#entries]))
      throw new TaskLimitError(
        `${this.#maxTenantTasks} tasks of your tenant are already running (the tenant's bound, all its users together); retry when some have finished, or call without a task`,
      );
  }

  #dropOldestFinished(entries: [string, Entry][]): boolean {
    const oldest = entries.find(([, e]) => e.expiresAt !== undefined);
    if (oldest === undefined) return false;
    this.#entries.delete(oldest[0]);
    return true;
  }
}

function copy(view: TaskView): TaskView {
  return { ...view };
}

/** A JSON-RPC error for a task that failed at the protocol level. */
function rpcError(error: unknown): { code: number; message: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return {
    code: typeof code === "number" && Number.isSafeInteger(code) ? code : -32603,
    message: error instanceof Error ? error.message : "Internal error",
  };
}
