/**
 * MCP tasks, 2025-11-25 (the 1.x SDK client, which speaks them), against createServer: a review run
 * as a task shows its progress in the task's status, its result is the plain call's result, a
 * cancel stops its upstream requests, a finished task outlives the connection for its TTL and then
 * is gone, and a client that does not ask for a task gets a plain result. Pages arrive when the
 * test lets them through the gate, never after a delay.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createClients } from "../../src/client/index.js";
import type { Clients } from "../../src/client/types.js";
import { loadConfig } from "../../src/config/config.js";
import { IdempotencyStore } from "../../src/idempotency/store.js";
import { createServer } from "../../src/mcp/server.js";
import { TaskStore } from "../../src/mcp/tasks.js";
import { createLogger } from "../../src/telemetry/logger.js";
import { defineTool } from "../../tools/define.js";
import { type Gate, startGate } from "../helpers/gate.js";
import { connect } from "../helpers/mcp.js";
import { repeatBudgets, useSandbox } from "../helpers/sandbox.js";

// One clock for the server and the sandbox's seed: the budgets (and so the pages a review walks)
// are dated relative to it, so the counts below hold on any day the suite runs.
const NOW_MS = Date.parse("2026-11-20T12:00:00Z");
const NOW = () => new Date(NOW_MS);
const fixture = useSandbox({ clock: { now: () => NOW_MS } });
/** Every budget of company 1 since the start: over 2,000 budgets, more than 20 pages of 100. */
const REVIEW = { since: "all", group_by: ["currency"], max_records: 100_000 };
/** A result less `as_of`, the instant its reading began (two readings differ only there). */
const withoutAsOf = (content: unknown) => ({ ...(content as Record<string, unknown>), as_of: undefined });
const PAGES = 20;

let gate: Gate;
let clients: Clients;
beforeAll(async () => {
  repeatBudgets(fixture.sb, 9);
  gate = await startGate(fixture.sb.url, "/api/wo_budget");
  const config = loadConfig({
    ...fixture.sb.env(),
    MMS_BASE_URL: `${gate.url}/api`,
    MMS_AUTH_URL: gate.url,
    MMS_MAX_RETRIES: "0",
  });
  clients = createClients(config, { logger: createLogger({ level: "error", sink: () => {} }) });
});
afterAll(async () => {
  await clients.close();
  await gate.close();
});

const open: { close(): Promise<void> }[] = [];
beforeEach(() => gate.hold());
afterEach(async () => {
  gate.open();
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function client(tasks: TaskStore | undefined): Promise<Client> {
  const c = await connect({ clients, now: NOW, sandbox: false, ...(tasks ? { tasks } : {}) });
  open.push(c);
  return c.client;
}

const startTask = (c: Client, args: Record<string, unknown>) =>
  c.request(
    { method: "tools/call", params: { name: "query_budgets", arguments: args, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  );

/** Poll tasks/get until `done` holds (each poll is a round trip, not a timed wait). */
async function pollUntil(
  c: Client,
  taskId: string,
  done: (t: { status: string; statusMessage?: string }) => boolean,
) {
  for (;;) {
    const task = await c.experimental.tasks.getTask(taskId);
    if (done(task)) return task;
    // A poll interval, not a margin: the outcome never depends on it.
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("tasks over 2025-11-25", () => {
  it("declares tasks, and query_budgets alone may run as one", async () => {
    const c = await client(new TaskStore({ ttlMs: 60_000 }));
    expect(c.getServerCapabilities()?.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const { tools } = await c.listTools();
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    expect(support).toMatchObject({ query_budgets: "optional", create_warehouse_entry: undefined });
  });

  it("runs a review as a task: progress in its status, the plain call's result at the end", async () => {
    const tasks = new TaskStore({ ttlMs: 60_000, pollIntervalMs: 10 });
    const c = await client(tasks);
    const before = gate.received;
    const { task } = await startTask(c, REVIEW);
    expect(task).toMatchObject({ status: "working", ttl: 60_000, pollInterval: 10 });

    gate.release(1);
    const working = await pollUntil(c, task.taskId, (t) => t.statusMessage !== undefined);
    expect(working.status).toBe("working");
    expect(working.statusMessage).toMatch(/100/);

    gate.open();
    const result = await c.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    const pages = gate.received - before;
    expect(pages).toBeGreaterThan(PAGES);
    // fresh: the task's review left a snapshot, which would answer the plain call with no request.
    const plain = await c.callTool({ name: "query_budgets", arguments: { ...REVIEW, fresh: true } });
    expect(gate.received - before - pages).toBe(pages);
    expect(withoutAsOf(result.structuredContent)).toEqual(withoutAsOf(plain.structuredContent));
    expect(result.content).toEqual(plain.content);
    expect(result._meta).toEqual({ "io.modelcontextprotocol/related-task": { taskId: task.taskId } });
    expect((await c.experimental.tasks.getTask(task.taskId)).status).toBe("completed");
    expect((await c.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(task.taskId);
  });

  it("cancel aborts the task's upstream requests and no further page is asked for", async () => {
    const c = await client(new TaskStore({ ttlMs: 60_000 }));
    const before = { received: gate.received, forwarded: gate.forwarded };
    const { task } = await startTask(c, REVIEW);
    gate.release(1);
    await pollUntil(c, task.taskId, (t) => t.statusMessage !== undefined);
    // The first page told the walk how many there are; the next ones wait at the gate.
    await gate.untilReceived(before.received + 2);

    const cancelled = await c.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled.status).toBe("cancelled");
    // tasks/result answers once the task's work has stopped.
    await expect(c.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toThrow(
      /cancelled before it finished/,
    );
    // Only the first page was ever answered; the walk is over, so opening the gate lets nothing of it through.
    expect(gate.forwarded - before.forwarded).toBe(1);
    gate.open();
    await c.callTool({ name: "query_budgets", arguments: { limit: 1 } });
    const askedByWalk = gate.received - before.received - 1;
    expect(askedByWalk).toBeGreaterThanOrEqual(2);
    expect(askedByWalk).toBeLessThan(PAGES);
    expect((await c.experimental.tasks.getTask(task.taskId)).status).toBe("cancelled");
  });

  it("a finished task outlives its connection for its TTL, then is gone", async () => {
    let now = NOW_MS;
    const tasks = new TaskStore({ ttlMs: 900_000, now: () => now });
    gate.open();
    const first = await client(tasks);
    const { task } = await startTask(first, { limit: 5 });
    await first.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    await open.shift()!.close();

    const second = await client(tasks);
    now += 899_000;
    const kept = await second.experimental.tasks.getTask(task.taskId);
    expect(kept.status).toBe("completed");
    expect(kept.ttl).toBeGreaterThanOrEqual(900_000);
    const again = await second.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(again.isError).toBeFalsy();

    now += 2_000;
    await expect(second.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/no task/);
    expect((await second.experimental.tasks.listTasks()).tasks).toEqual([]);
  });

  it("a client that asks for no task gets a plain result, and no task is kept", async () => {
    gate.open();
    const tasks = new TaskStore({ ttlMs: 60_000 });
    const c = await client(tasks);
    const plain = await c.callTool({ name: "query_budgets", arguments: { limit: 2 } });
    expect(plain.isError).toBeFalsy();
    expect(plain).not.toHaveProperty("task");
    expect(tasks.list()).toEqual([]);
  });

  it("a tool that does not run as a task refuses a task, naming the fix", async () => {
    const c = await client(new TaskStore({ ttlMs: 60_000 }));
    await expect(
      c.request(
        {
          method: "tools/call",
          params: { name: "list_warehouse_groups_1", arguments: {}, task: {} },
        },
        CreateTaskResultSchema,
      ),
    ).rejects.toThrow(/does not run as a task.*without "task"/);
  });

  it("a server without a task store offers none", async () => {
    gate.open();
    const c = await client(undefined);
    expect(c.getServerCapabilities()?.tasks).toBeUndefined();
    const { tools } = await c.listTools();
    expect(tools.find((t) => t.name === "query_budgets")?.execution).toBeUndefined();
  });

  it("tells the tool it runs as a task (ToolContext.asTask), and only then", async () => {
    const probe = defineTool({
      name: "probe_task",
      title: "Probe",
      description: "Says whether it runs as a task.",
      inputSchema: z.object({}),
      outputSchema: z.object({ asTask: z.boolean() }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      taskSupport: "optional",
      handler: async (_input, ctx) => ({ asTask: ctx.asTask === true }),
      toText: (out) => `asTask ${out.asTask}`,
    });
    const server = createServer(
      {
        clients,
        logger: createLogger({ level: "error", sink: () => {} }),
        idempotency: new IdempotencyStore(),
        sandbox: false,
        version: "test",
        tasks: new TaskStore({ ttlMs: 60_000 }),
      },
      { tools: [probe], confirmWrites: false, checkOutputs: true },
    );
    const c = new SdkClient({ name: "probe", version: "1" });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.sdkServer.connect(serverSide);
    await c.connect(clientSide);
    open.push({ close: () => c.close().then(() => server.close()) });
    const { task } = await c.request(
      { method: "tools/call", params: { name: "probe_task", arguments: {}, task: {} } },
      CreateTaskResultSchema,
    );
    const asTask = await c.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(asTask.structuredContent).toEqual({ asTask: true });
    const plain = await c.callTool({ name: "probe_task", arguments: {} });
    expect(plain.structuredContent).toEqual({ asTask: false });
  });
});
