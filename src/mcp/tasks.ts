/**
 * MCP tasks of one tenant, in memory: a task-augmented `tools/call` runs here to completion while
 * the client polls, and its result outlives the connection that asked for it. The store knows no
 * protocol era: `src/mcp/sdk.ts` renders its records as 2025-11-25 tasks or as the 2026-07-28
 * tasks extension. Bounded: at most `maxTasks` records, a finished one kept `ttlMs` after it
 * finished, purged on the next use (no timer for that). A running task whose client asks nothing
 * about it for the TTL is taken as gone and cancelled (one unref'd timer per running task). Task ids are random
 * UUIDs, and each tenant has its own store, so one tenant can neither find nor guess another's.
 * IMPORTANT: tasks live in this process only; a restart loses them and replicas do not share them.
 */
import { randomUUID } from "node:crypto";

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
  /** Records kept at most, running and finished (default 64). */
  maxTasks?: number;
  /** The poll interval suggested to clients, in ms (default 1000). */
  pollIntervalMs?: number;
  /** Epoch ms; tests inject a clock. Default Date.now. */
  now?: () => number;
}

/** Thrown by TaskStore.start when every slot holds a running task. */
export class TaskLimitError extends Error {
  override readonly name = "TaskLimitError";
}

interface Entry {
  view: TaskView;
  controller: AbortController;
  settled: Promise<void>;
  /** Epoch ms after which a finished task is purged; undefined while it runs. */
  expiresAt?: number;
  /** Epoch ms its client last asked about it (started, got, listed, awaited). */
  seenAt: number;
  /** Ends a running task whose client has gone (see #watch). */
  watch?: NodeJS.Timeout;
}

export class TaskStore {
  readonly #entries = new Map<string, Entry>();
  readonly #ttlMs: number;
  readonly #maxTasks: number;
  readonly #pollIntervalMs: number;
  readonly #now: () => number;

  constructor(options: TaskStoreOptions) {
    this.#ttlMs = options.ttlMs;
    this.#maxTasks = options.maxTasks ?? 64;
    this.#pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Start `work` as a new task and return its first view (status "working"). The task is readable
   * before this returns. A rejection of `work` fails the task with its JSON-RPC code (default
   * -32603); whatever `work` settles with after a cancel is dropped.
   */
  start(work: (run: TaskRun) => Promise<Record<string, unknown>>): TaskView {
    this.#purge();
    this.#makeRoom();
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
    const entry: Entry = { view, controller, settled: Promise.resolve(), seenAt: this.#now() };
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

  /** The task, or undefined when it is unknown or expired. */
  get(taskId: string): TaskView | undefined {
    this.#purge();
    const entry = this.#entries.get(taskId);
    if (entry) entry.seenAt = this.#now();
    return entry ? copy(entry.view) : undefined;
  }

  /** Every task kept, newest first. */
  list(): TaskView[] {
    this.#purge();
    const now = this.#now();
    return [...this.#entries.values()]
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
  cancel(taskId: string): TaskView | undefined {
    this.#purge();
    const entry = this.#entries.get(taskId);
    if (!entry) return undefined;
    if (entry.view.status === "working") {
      this.#finish(entry, { status: "cancelled", statusMessage: "Cancelled by the client." });
      entry.controller.abort(new Error("task cancelled"));
    }
    return copy(entry.view);
  }

  /** The task once its work has settled (a cancelled task: once its work has stopped). */
  async settled(taskId: string): Promise<TaskView | undefined> {
    const entry = this.#entries.get(taskId);
    if (!entry) return this.get(taskId);
    entry.seenAt = this.#now();
    await entry.settled;
    return copy(entry.view);
  }

  /** Abort every running task (shutdown). */
  close(): void {
    for (const entry of this.#entries.values()) {
      clearTimeout(entry.watch);
      if (entry.view.status === "working") entry.controller.abort(new Error("server shutting down"));
    }
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

  /** At the bound, the oldest finished task leaves; when all are running, refuse. */
  #makeRoom(): void {
    if (this.#entries.size < this.#maxTasks) return;
    for (const [id, entry] of this.#entries) {
      if (entry.expiresAt !== undefined) {
        this.#entries.delete(id);
        return;
      }
    }
    throw new TaskLimitError(
      `${this.#maxTasks} tasks are already running for this client; wait for one to finish or cancel one (tasks/cancel), or call without a task`,
    );
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
