/** The task store alone, on an injected clock: states, progress, cancel, TTL from the end, the bound. */
import { describe, expect, it, vi } from "vitest";
import { ownerOf, TaskLimitError, TaskScopeError, TaskStore } from "../../src/mcp/tasks.js";

const T0 = Date.parse("2026-11-20T12:00:00Z");

function setup(options: { ttlMs?: number; maxTasks?: number; maxTenantTasks?: number } = {}) {
  let now = T0;
  const store = new TaskStore({
    ttlMs: options.ttlMs ?? 1000,
    maxTasks: options.maxTasks,
    maxTenantTasks: options.maxTenantTasks,
    now: () => now,
  });
  return { store, advance: (ms: number) => (now += ms) };
}

/** Work that ends when the test says, with what it says. */
function controlled() {
  let finish!: (value: Record<string, unknown>) => void;
  let fail!: (error: unknown) => void;
  let signal!: AbortSignal;
  let report!: (message: string) => void;
  const work = (run: { signal: AbortSignal; report(message: string): void }) => {
    signal = run.signal;
    report = run.report;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
  };
  return {
    work,
    finish: (v: Record<string, unknown>) => finish(v),
    fail: (e: unknown) => fail(e),
    get signal() {
      return signal;
    },
    report: (m: string) => report(m),
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("TaskStore", () => {
  it("a task works, reports progress, completes, and is kept ttlMs after it ends", async () => {
    const { store, advance } = setup({ ttlMs: 1000 });
    const job = controlled();
    const started = store.start(job.work);
    expect(started).toMatchObject({ status: "working", ttlMs: 1000, pollIntervalMs: 1000 });
    await tick();
    advance(200);
    job.report("read 100 of 300 budgets");
    expect(store.get(started.taskId)).toMatchObject({
      statusMessage: "read 100 of 300 budgets",
      lastUpdatedAt: new Date(T0 + 200),
    });
    advance(4800);
    job.finish({ content: [] });
    const done = await store.settled(started.taskId);
    expect(done).toMatchObject({ status: "completed", result: { content: [] }, ttlMs: 6000 });
    advance(999);
    expect(store.get(started.taskId)?.status).toBe("completed");
    advance(1);
    expect(store.get(started.taskId)).toBeUndefined();
    expect(store.list()).toEqual([]);
  });

  it("a running task is never purged, however long it runs", async () => {
    const { store, advance } = setup({ ttlMs: 1000 });
    const job = controlled();
    const { taskId } = store.start(job.work);
    advance(60_000);
    expect(store.get(taskId)?.status).toBe("working");
  });

  it.each([
    [
      "a JSON-RPC error keeps its code",
      Object.assign(new Error("Unknown tool: x."), { code: -32602 }),
      -32602,
    ],
    ["anything else is -32603", new Error("boom"), -32603],
  ])("a failure: %s", async (_name, error, code) => {
    const { store } = setup();
    const job = controlled();
    const { taskId } = store.start(job.work);
    await tick();
    job.fail(error);
    expect(await store.settled(taskId)).toMatchObject({
      status: "failed",
      error: { code, message: error.message },
    });
  });

  it("cancel aborts the work's signal, reads cancelled at once, and keeps it when the work ends later", async () => {
    const { store } = setup();
    const job = controlled();
    const { taskId } = store.start(job.work);
    await tick();
    expect(store.cancel(taskId)?.status).toBe("cancelled");
    expect(job.signal.aborted).toBe(true);
    job.report("too late");
    job.finish({ content: [] });
    const after = await store.settled(taskId);
    expect(after).toMatchObject({ status: "cancelled", statusMessage: "Cancelled by the client." });
    expect(after).not.toHaveProperty("result");
    // Cancelling a finished task changes nothing; an unknown one is undefined.
    expect(store.cancel(taskId)?.status).toBe("cancelled");
    expect(store.cancel("nope")).toBeUndefined();
  });

  it("at the bound the oldest finished task leaves; when every slot runs, a new task is refused", async () => {
    const { store } = setup({ maxTasks: 2 });
    const first = controlled();
    const a = store.start(first.work);
    const b = store.start(controlled().work);
    expect(() => store.start(controlled().work)).toThrow(TaskLimitError);
    await tick();
    first.finish({ content: [] });
    await store.settled(a.taskId);
    const c = store.start(controlled().work);
    expect(store.get(a.taskId)).toBeUndefined();
    expect(store.list().map((t) => t.taskId)).toEqual([c.taskId, b.taskId]);
  });

  it("views are copies: a caller cannot change a task", () => {
    const { store } = setup();
    const view = store.start(controlled().work);
    view.status = "completed";
    expect(store.get(view.taskId)?.status).toBe("working");
  });

  it("close aborts every running task", async () => {
    const { store } = setup();
    const job = controlled();
    store.start(job.work);
    await tick();
    store.close();
    expect(job.signal.aborted).toBe(true);
  });

  describe("owners (interface.md §9b)", () => {
    const alice = ownerOf({ tenant: "t", subject: "alice", clientId: "host", scopes: ["mms:read"] });
    const bob = ownerOf({ tenant: "t", subject: "bob", clientId: "host", scopes: ["mms:read"] });
    const scopeOf = () => "mms:read";

    it("a task is its owner's alone: another subject, another client or the static token finds nothing", async () => {
      const { store } = setup();
      const mine = store.for(alice, scopeOf);
      const job = controlled();
      const task = mine.start(job.work, "query_budgets");
      for (const other of [
        store.for(bob, scopeOf),
        store.for(ownerOf({ tenant: "t", subject: "alice", clientId: "other", scopes: ["mms:read"] })),
        store,
      ]) {
        expect(other.get(task.taskId)).toBeUndefined();
        expect(other.cancel(task.taskId)).toBeUndefined();
        expect(await other.settled(task.taskId)).toBeUndefined();
        expect(other.list()).toEqual([]);
      }
      await tick();
      job.finish({ content: [] });
      expect((await mine.settled(task.taskId))?.status).toBe("completed");
      expect(mine.list().map((t) => t.taskId)).toEqual([task.taskId]);
    });

    it("the owner's token without the tool's scope reads neither status nor result; it may still cancel", async () => {
      const { store } = setup();
      const task = store.for(alice, scopeOf).start(controlled().work, "query_budgets");
      const writeOnly = store.for(
        ownerOf({ tenant: "t", subject: "alice", clientId: "host", scopes: ["mms:write"] }),
        scopeOf,
      );
      expect(() => writeOnly.get(task.taskId)).toThrow(TaskScopeError);
      await expect(writeOnly.settled(task.taskId)).rejects.toThrow(/needs the scope mms:read/);
      expect(writeOnly.cancel(task.taskId)?.status).toBe("cancelled");
    });

    it("each owner has its own bound: alice's full slots never refuse bob, and the refusal is about alice's own tasks", () => {
      const { store } = setup({ maxTasks: 2, maxTenantTasks: 3 });
      const a = store.for(alice, scopeOf);
      a.start(controlled().work);
      a.start(controlled().work);
      expect(() => a.start(controlled().work)).toThrow(
        /2 of your tasks are already running \(the bound of each user and client\)/,
      );
      const b = store.for(bob, scopeOf);
      expect(b.start(controlled().work).status).toBe("working");
      // The tenant's bound (3) is reached by everyone together: it says so.
      expect(() => b.start(controlled().work)).toThrow(/3 tasks of your tenant are already running/);
    });
  });
});

describe("a task whose client has gone (interface.md §9b)", () => {
  it("is cancelled once its client asked nothing about it for the TTL; asking keeps it running", async () => {
    vi.useFakeTimers();
    try {
      let now = T0;
      const store = new TaskStore({ ttlMs: 60_000, now: () => now });
      const work = controlled();
      const { taskId } = store.start(work.work);
      await Promise.resolve();
      await Promise.resolve();
      // Its client asks at 50 s: the task runs on past the first TTL.
      now += 50_000;
      vi.advanceTimersByTime(50_000);
      expect(store.get(taskId)?.status).toBe("working");
      now += 10_000;
      vi.advanceTimersByTime(10_000);
      expect(work.signal.aborted).toBe(false);
      // Then it goes: a TTL after its last question, the task's signal aborts (its waits end).
      now += 60_000;
      vi.advanceTimersByTime(60_000);
      expect(work.signal.aborted).toBe(true);
      expect(store.get(taskId)).toMatchObject({ status: "cancelled" });
      expect(store.get(taskId)?.statusMessage).toMatch(/asked nothing about it for 60 s/);
    } finally {
      vi.useRealTimers();
    }
  });
});
