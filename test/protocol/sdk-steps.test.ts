/**
 * The steps of src/mcp/sdk.ts's createProtocolServer and callContext, each on its own: the prompt and
 * resource methods (through the real SDK client), a call's progress, why a client cannot confirm, and
 * the confirmation answer read from a request. server.test.ts and tasks.test.ts run them together.
 */
import { createHash } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { PROTOCOL_VERSION_META_KEY, type Server, type ServerContext } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import {
  askConfirmation,
  ConfirmationPending,
  createProtocolServer,
  createStateSigner,
  type ProtocolHandlers,
  progressSender,
  unsupportedReason,
} from "../../src/mcp/sdk.js";

async function clientOf(handlers: Partial<ProtocolHandlers>) {
  const server = createProtocolServer(
    { name: "steps", version: "test" },
    "test server",
    { listTools: () => [], callTool: async () => undefined, ...handlers },
    { signer: createStateSigner() },
  );
  const client = new Client({ name: "test-client", version: "1.0.0" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.sdkServer.connect(serverSide);
  await client.connect(clientSide);
  return { client, close: () => Promise.all([client.close(), server.close()]) };
}

describe("registerPromptMethods (through createProtocolServer)", () => {
  const prompt = {
    name: "p",
    title: "P",
    description: "a prompt",
    arguments: [{ name: "x", required: true }],
  };
  const handlers: Partial<ProtocolHandlers> = {
    listPrompts: () => [prompt],
    getPrompt: (name, args) => {
      if (name !== "p") return undefined;
      if (args.x === undefined) throw new Error("x: required; give x=1");
      return { messages: [{ role: "user", content: { type: "text", text: `x is ${args.x}` } }] };
    },
  };

  it("lists the prompts and renders one", async () => {
    const { client, close } = await clientOf(handlers);
    expect((await client.listPrompts()).prompts).toEqual([prompt]);
    expect((await client.getPrompt({ name: "p", arguments: { x: "1" } })).messages).toEqual([
      { role: "user", content: { type: "text", text: "x is 1" } },
    ]);
    await close();
  });

  it("answers a bad argument and an unknown prompt with InvalidParams naming the fix", async () => {
    const { client, close } = await clientOf(handlers);
    await expect(client.getPrompt({ name: "p", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("x: required; give x=1"),
    });
    await expect(client.getPrompt({ name: "q" })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("Unknown prompt: q. Call prompts/list for the available prompts."),
    });
    await close();
  });
});

describe("registerResourceMethods (through createProtocolServer)", () => {
  const resource = { uri: "ui://v/one.html", name: "one", mimeType: "text/html" };
  const handlers: Partial<ProtocolHandlers> = {
    listResources: () => [resource],
    readResource: async (uri) => {
      if (uri === "ui://v/broken.html") throw new Error("the view is not built: run npm run build");
      return uri === resource.uri
        ? { contents: [{ uri, mimeType: "text/html", text: "<p>1</p>" }] }
        : undefined;
    },
  };

  it("lists the resources, no templates, and reads one", async () => {
    const { client, close } = await clientOf(handlers);
    expect((await client.listResources()).resources).toEqual([resource]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect((await client.readResource({ uri: resource.uri })).contents).toEqual([
      { uri: resource.uri, mimeType: "text/html", text: "<p>1</p>" },
    ]);
    await close();
  });

  it("answers an unreadable view as an internal error and an unknown URI as not found", async () => {
    const { client, close } = await clientOf(handlers);
    await expect(client.readResource({ uri: "ui://v/broken.html" })).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining("run npm run build"),
    });
    await expect(client.readResource({ uri: "ui://v/none.html" })).rejects.toThrow(
      "Unknown resource: ui://v/none.html. Call resources/list for the available resources.",
    );
    await close();
  });
});

/** A ServerContext with only what callContext's steps read. */
function contextOf(mcpReq: Record<string, unknown>): ServerContext {
  return { mcpReq } as unknown as ServerContext;
}

describe("progressSender", () => {
  it("sends strictly increasing progress to the request's token", async () => {
    const sent: unknown[] = [];
    const progress = progressSender(
      contextOf({ _meta: { progressToken: "t1" }, notify: async (n: unknown) => sent.push(n) }),
    );
    await progress({ progress: 1, total: 3, message: "page 1" });
    await progress({ progress: 1, total: 3, message: "page 1 again" });
    await progress({ progress: 2, message: "page 2" });
    expect(sent).toEqual([
      {
        method: "notifications/progress",
        params: { progressToken: "t1", progress: 1, total: 3, message: "page 1" },
      },
      {
        method: "notifications/progress",
        params: { progressToken: "t1", progress: 2, total: undefined, message: "page 2" },
      },
    ]);
  });

  it("sends nothing when the request has no progress token", async () => {
    const sent: unknown[] = [];
    const progress = progressSender(contextOf({ notify: async (n: unknown) => sent.push(n) }));
    await progress({ progress: 1, message: "page 1" });
    expect(sent).toEqual([]);
  });
});

describe("unsupportedReason", () => {
  it("names the stateless 2025 HTTP session, else the missing elicitation, each with its fix", () => {
    expect(unsupportedReason(false, true).fix).toBe(
      "Use a client that speaks MCP 2026-07-28, or connect over stdio",
    );
    for (const [modern, overHttp] of [
      [false, false],
      [true, true],
      [true, false],
    ] as const) {
      expect(unsupportedReason(modern, overHttp)).toEqual({
        why: "this MCP client cannot show a confirmation prompt (it declared no elicitation support)",
        fix: "Use a client that supports elicitation",
      });
    }
  });
});

describe("askConfirmation", () => {
  const call = { tenant: "acme", tool: "create_warehouse_entry" };
  const args = { document: "D-1" };
  const hash = createHash("sha256").update('{"document":"D-1"}').digest("base64url");
  const bound = { v: 2, tenant: "acme", tool: "create_warehouse_entry", args: hash };
  const withElicitation = { getClientCapabilities: () => ({ elicitation: {} }) } as unknown as Server;
  const withoutElicitation = { getClientCapabilities: () => ({}) } as unknown as Server;
  const request = (state: unknown, inputResponses?: unknown, modern = false) =>
    contextOf({
      requestState: () => state,
      inputResponses,
      ...(modern ? { envelope: { [PROTOCOL_VERSION_META_KEY]: "2026-07-28" } } : {}),
    });

  it("reads the user's answer from a request bound to this tenant, tool and arguments", async () => {
    const accept = (confirm: boolean) => ({ confirm: { action: "accept", content: { confirm } } });
    await expect(
      askConfirmation(withElicitation, request(bound, accept(true)), call, args, "?"),
    ).resolves.toBe("approved");
    await expect(
      askConfirmation(withElicitation, request(bound, accept(false)), call, args, "?"),
    ).resolves.toBe("declined");
    await expect(
      askConfirmation(withElicitation, request(bound, { confirm: { action: "cancel" } }), call, args, "?"),
    ).resolves.toBe("declined");
  });

  it("asks (again) when the answer is bound to another tenant or other arguments, or there is none", async () => {
    const accepted = { confirm: { action: "accept", content: { confirm: true } } };
    for (const state of [{ ...bound, tenant: "other" }, { ...bound, args: "x" }, undefined]) {
      await expect(
        askConfirmation(withElicitation, request(state, accepted), call, args, "write?"),
      ).rejects.toEqual(new ConfirmationPending("write?"));
    }
  });

  it("without elicitation: unsupported for a 2025 client, a capability error naming the fix for 2026", async () => {
    await expect(askConfirmation(withoutElicitation, request(undefined), call, args, "?")).resolves.toBe(
      "unsupported",
    );
    await expect(
      askConfirmation(withoutElicitation, request(undefined, undefined, true), call, args, "?"),
    ).rejects.toThrow(/create_warehouse_entry must ask the user .* elicitation \(form\)\. Declare it/);
  });
});
