/**
 * MCP tasks over stateless Streamable HTTP with a tenants file, in both eras: every request is
 * served by a fresh server, so a task lives in its tenant's store, not in a connection. A task of
 * north is invisible to south (get, result, cancel, list), over 2025-11-25 (the 1.x SDK client) and
 * over the 2026-07-28 tasks extension (raw requests, framed as the spec says: the SDK client has no
 * tasks extension to speak it with).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { raw2026 } from "../helpers/raw-2026.js";
import { startTenantsServer, TENANT_TOKENS, type TenantsServer } from "./tenants-http.js";

let sb: SandboxHandle;
let server: TenantsServer;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
  server = await startTenantsServer(sb);
});
afterAll(async () => {
  await server.close();
  await sb.close();
});

async function client2025(tenant: keyof typeof TENANT_TOKENS): Promise<Client> {
  const client = new Client({ name: `tasks-${tenant}`, version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${TENANT_TOKENS[tenant]}` } },
    }),
  );
  return client;
}

/** A fixed window, so the task's result and a plain call's are comparable whole. */
const REVIEW = {
  group_by: ["currency"],
  since: "all",
  until: new Date(Date.now() + 86_400_000).toISOString(),
};
const TASKS_CAPS = { extensions: { "io.modelcontextprotocol/tasks": {} } };

/** One 2026 request as `tenant`, with the tasks extension offered unless `caps` says otherwise. */
function as2026(
  tenant: keyof typeof TENANT_TOKENS,
  method: string,
  params: Record<string, unknown>,
  caps: Record<string, unknown> = TASKS_CAPS,
) {
  return raw2026<{
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: unknown };
  }>(server.url, method, params, {
    capabilities: caps,
    headers: {
      authorization: `Bearer ${TENANT_TOKENS[tenant]}`,
      ...(typeof params.taskId === "string" ? { "mcp-name": params.taskId } : {}),
    },
  });
}

describe("tasks over 2025-11-25 HTTP, per tenant", () => {
  it("north's task is north's alone: south can neither read, await, cancel nor list it", async () => {
    const north = await client2025("north");
    const south = await client2025("south");
    try {
      const { task } = await north.request(
        { method: "tools/call", params: { name: "query_budgets", arguments: REVIEW, task: {} } },
        CreateTaskResultSchema,
      );
      const result = await north.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ complete: true });
      expect((await north.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(task.taskId);

      await expect(south.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/no task/);
      await expect(south.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toThrow(
        /no task/,
      );
      await expect(south.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/no task/);
      expect((await south.experimental.tasks.listTasks()).tasks).toEqual([]);
      expect((await north.experimental.tasks.getTask(task.taskId)).status).toBe("completed");
    } finally {
      await north.close();
      await south.close();
    }
  });
});

describe("the 2026-07-28 tasks extension over HTTP", () => {
  it("server/discover names the extension and no 2025 tasks capability", async () => {
    const { body } = await as2026("north", "server/discover", {});
    const caps = body?.result?.capabilities as Record<string, unknown>;
    expect(caps.extensions).toMatchObject({ "io.modelcontextprotocol/tasks": {} });
    expect(caps).not.toHaveProperty("tasks");
  });

  it("a review for a client that offers tasks is a task; tasks/get gives its status, then the whole result", async () => {
    const created = await as2026("north", "tools/call", { name: "query_budgets", arguments: REVIEW });
    expect(created.status).toBe(200);
    const task = created.body!.result!;
    expect(task).toMatchObject({ resultType: "task", status: "working", ttlMs: 900_000 });
    expect(task).not.toHaveProperty("content");
    const taskId = task.taskId as string;

    const get = async () => (await as2026("north", "tasks/get", { taskId })).body!.result!;
    let got = await get();
    while (got.status === "working") {
      expect(got.resultType).toBe("complete");
      await new Promise((r) => setTimeout(r, 5)); // a poll interval, not a margin
      got = await get();
    }
    expect(got.status).toBe("completed");
    const plain = await as2026("north", "tools/call", { name: "query_budgets", arguments: REVIEW }, {});
    const result = got.result as Record<string, unknown>;
    expect(result.structuredContent).toEqual(plain.body!.result!.structuredContent);

    // south cannot see it; a client that does not offer the extension is told what to declare.
    expect((await as2026("south", "tasks/get", { taskId })).body!.error).toMatchObject({ code: -32602 });
    expect((await as2026("north", "tasks/get", { taskId }, {})).body!.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: TASKS_CAPS },
    });
    // 2025's tasks/list and tasks/result do not exist in this era.
    expect((await as2026("north", "tasks/list", {})).body!.error?.code).toBe(-32601);
    expect((await as2026("north", "tasks/result", { taskId })).body!.error?.code).toBe(-32601);
    // tasks/update and tasks/cancel of a finished task: an empty acknowledgement.
    expect(
      (await as2026("north", "tasks/update", { taskId, inputResponses: {} })).body!.result,
    ).toMatchObject({
      resultType: "complete",
    });
    expect((await as2026("north", "tasks/cancel", { taskId })).body!.result).toMatchObject({
      resultType: "complete",
    });
  });

  it("a client that offers no tasks, or a one-page lookup, gets a plain result", async () => {
    const plain = await as2026("north", "tools/call", { name: "query_budgets", arguments: REVIEW }, {});
    expect(plain.body!.result).toMatchObject({ resultType: "complete" });
    expect(plain.body!.result).toHaveProperty("structuredContent");
    const page = await as2026("north", "tools/call", { name: "query_budgets", arguments: { limit: 3 } });
    expect(page.body!.result).toMatchObject({ resultType: "complete" });
    expect(page.body!.result).toHaveProperty("structuredContent");
  });
});
