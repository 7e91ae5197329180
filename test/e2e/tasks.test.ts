/**
 * MCP tasks through the built binary, both eras, both transports: a review run as a task shows its
 * progress in the task's status and ends with the plain call's result; a cancelled one stops its
 * upstream requests. The upstream is the sandbox behind a gate that holds each budget page until the
 * test lets it through, so nothing here waits on time. 2025-11-25 speaks through the 1.x SDK client
 * (which has tasks); 2026-07-28 through raw requests framed as the spec says, because the v2 SDK
 * client refuses a `resultType: "task"` answer (it has no tasks extension).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { type Gate, startGate } from "../helpers/gate.js";
import { MODERN, raw2026 } from "../helpers/raw-2026.js";
import { repeatBudgets } from "../helpers/sandbox.js";
import { BIN, cleanEnv, rawSession, startBin } from "./bin.js";

let sb: SandboxHandle;
let gate: Gate;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
  repeatBudgets(sb, 9);
  gate = await startGate(sb.url, "/api/wo_budget");
});
afterAll(async () => {
  await gate.close();
  await sb.close();
});
beforeEach(() => gate.hold());

const env = () => cleanEnv({ ...sb.env(), MMS_BASE_URL: `${gate.url}/api`, MMS_AUTH_URL: gate.url });
/** A review of every budget since the start, in a fixed window (more than 20 pages of 100). */
const REVIEW = {
  since: "all",
  until: new Date(Date.now() + 86_400_000).toISOString(),
  group_by: ["currency"],
  max_records: 100_000,
};
const PAGES = 20;

interface Status {
  status: string;
  statusMessage?: string | undefined;
}

/** One client of either era and transport, reduced to what the test does with a task. */
interface TaskClient {
  start(args: Record<string, unknown>): Promise<string>;
  get(taskId: string): Promise<Status>;
  /** The completed task's CallToolResult. */
  result(taskId: string): Promise<Record<string, unknown>>;
  /** Cancel; resolves with the status tasks/cancel answered (2026 answers none: then tasks/get's). */
  cancel(taskId: string): Promise<string>;
  plain(args: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

async function legacyClient(transport: "stdio" | "http", url: string | undefined): Promise<TaskClient> {
  const client = new Client({ name: "e2e-tasks-2025", version: "1" });
  await client.connect(
    transport === "http"
      ? new StreamableHTTPClientTransport(new URL(url!))
      : new StdioClientTransport({ command: process.execPath, args: [BIN], env: env(), stderr: "pipe" }),
  );
  return {
    start: async (args) =>
      (
        await client.request(
          { method: "tools/call", params: { name: "query_budgets", arguments: args, task: {} } },
          CreateTaskResultSchema,
        )
      ).task.taskId,
    get: (taskId) => client.experimental.tasks.getTask(taskId),
    result: (taskId) => client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema),
    async cancel(taskId) {
      const answer = await client.experimental.tasks.cancelTask(taskId);
      // tasks/result answers once the cancelled work has stopped.
      await expect(client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)).rejects.toThrow(
        /cancelled/,
      );
      return answer.status;
    },
    plain: (args) => client.callTool({ name: "query_budgets", arguments: args }),
    close: () => client.close(),
  };
}

async function modernClient(transport: "stdio" | "http", url: string | undefined): Promise<TaskClient> {
  const caps = { extensions: { "io.modelcontextprotocol/tasks": {} } };
  const meta = (offer: boolean) => ({
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": offer ? caps : {},
  });
  const session = transport === "stdio" ? rawSession([], env()) : undefined;
  const send = async (method: string, params: Record<string, unknown>, offer = true) => {
    const answer = session
      ? await session.request(method, { ...params, _meta: meta(offer) })
      : (
          await raw2026<Record<string, unknown>>(url!, method, params, {
            capabilities: offer ? caps : {},
            headers: typeof params.taskId === "string" ? { "mcp-name": params.taskId } : {},
          })
        ).body!;
    if (answer.error) throw new Error(JSON.stringify(answer.error));
    return answer.result as Record<string, unknown>;
  };
  const get = (taskId: string) => send("tasks/get", { taskId }) as Promise<Status & Record<string, unknown>>;
  return {
    async start(args) {
      const created = await send("tools/call", { name: "query_budgets", arguments: args });
      expect(created.resultType).toBe("task");
      return created.taskId as string;
    },
    get,
    async result(taskId) {
      for (;;) {
        const task = await get(taskId);
        if (task.status !== "working") return task.result as Record<string, unknown>;
        await pause();
      }
    },
    async cancel(taskId) {
      expect(await send("tasks/cancel", { taskId })).toMatchObject({ resultType: "complete" });
      return (await get(taskId)).status;
    },
    plain: (args) => send("tools/call", { name: "query_budgets", arguments: args }, false),
    close: async () => {
      await session?.end();
    },
  };
}

/** Between two polls: a poll interval (the outcome never depends on it). */
const pause = () => new Promise((resolve) => setTimeout(resolve, 10));

/** Poll tasks/get until its status carries a progress line (each poll is a round trip, not a timed wait). */
async function untilProgress(client: TaskClient, taskId: string): Promise<Status> {
  for (;;) {
    const task = await client.get(taskId);
    if (task.statusMessage !== undefined || task.status !== "working") return task;
    await pause();
  }
}

const CASES: ["2025-11-25" | "2026-07-28", "stdio" | "http"][] = [
  ["2025-11-25", "stdio"],
  ["2025-11-25", "http"],
  ["2026-07-28", "stdio"],
  ["2026-07-28", "http"],
];

describe.each(CASES)("tasks for a %s client over %s", (era, transport) => {
  it("a review task shows progress and ends with the plain result; a cancelled one stops its requests", async () => {
    const server =
      transport === "http"
        ? await startBin(["--http", "--port", "0"], env(), /listening on (http:\S+)/)
        : undefined;
    const client = await (era === "2025-11-25" ? legacyClient : modernClient)(transport, server?.match[1]);
    try {
      // A review to completion.
      let before = gate.received;
      const done = await client.start(REVIEW);
      gate.release(1);
      const working = await untilProgress(client, done);
      expect(working).toMatchObject({ status: "working", statusMessage: expect.stringMatching(/100/) });
      gate.open();
      const result = await client.result(done);
      const pages = gate.received - before;
      expect(pages).toBeGreaterThan(PAGES);
      // fresh: the task's review left a snapshot, which would answer with no request.
      const plain = await client.plain({ ...REVIEW, fresh: true });
      expect({ ...(result.structuredContent as Record<string, unknown>), as_of: undefined }).toEqual({
        ...(plain.structuredContent as Record<string, unknown>),
        as_of: undefined,
      });
      expect((await client.get(done)).status).toBe("completed");

      // A review cancelled after its first page.
      gate.hold();
      before = gate.received;
      const forwarded = gate.forwarded;
      const aborted = gate.aborted;
      const cancelled = await client.start({ ...REVIEW, fresh: true });
      gate.release(1);
      await untilProgress(client, cancelled);
      await gate.untilReceived(before + 2);
      expect(await client.cancel(cancelled)).toBe("cancelled");
      // Every page request after the first was abandoned by the server, none answered.
      await gate.untilAborted(aborted + (gate.received - before) - 1);
      expect(gate.forwarded - forwarded).toBe(1);
      gate.open();
      await client.plain({ limit: 1 });
      expect(gate.received - before - 1).toBeLessThan(pages);
      expect((await client.get(cancelled)).status).toBe("cancelled");
    } finally {
      await client.close();
      server?.child.kill();
    }
  });
});
