/**
 * The one module that imports @modelcontextprotocol/sdk (1.32, protocol 2025-11-25), so a move
 * to the v2 SDK touches only this file. It adapts the SDK's low-level Server to two plain
 * callbacks (list tools, call a tool) and wraps the transports. The Streamable HTTP transport
 * is imported on first use: stdio users never load it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  type GetPromptResult,
  isInitializeRequest,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type Prompt,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

export type { CallToolResult, GetPromptResult };
export type ToolListing = Tool;
export type PromptListing = Prompt;
export { isInitializeRequest };

/** What a tool call may do with the client, without knowing the SDK. */
export interface CallContext {
  signal: AbortSignal;
  /** Send notifications/progress; a no-op when the client sent no progressToken. */
  progress(update: { progress: number; total?: number | undefined; message: string }): Promise<void>;
  /** Whether the client declared the elicitation capability (form mode). */
  canElicit(): boolean;
  /** Ask the user to approve `message`; true only on an explicit accept with confirm=true. */
  confirm(message: string): Promise<boolean>;
}

export interface ProtocolHandlers {
  listTools(): ToolListing[];
  /** Returns undefined for an unknown tool name (answered as a JSON-RPC error). */
  callTool(name: string, args: unknown, context: CallContext): Promise<CallToolResult | undefined>;
  /** Present when the server offers prompts (advertises the `prompts` capability). */
  listPrompts?(): PromptListing[];
  /** Undefined for an unknown prompt; throws with the fix for a bad argument (both invalid params). */
  getPrompt?(name: string, args: Record<string, string>): GetPromptResult | undefined;
}

export interface ProtocolServer {
  readonly sdkServer: Server;
  close(): Promise<void>;
}

export function createProtocolServer(
  info: { name: string; version: string },
  instructions: string,
  handlers: ProtocolHandlers,
): ProtocolServer {
  const prompts =
    handlers.listPrompts && handlers.getPrompt
      ? { list: handlers.listPrompts, get: handlers.getPrompt }
      : undefined;
  const server = new Server(info, {
    capabilities: { tools: { listChanged: false }, ...(prompts ? { prompts: { listChanged: false } } : {}) },
    instructions,
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: handlers.listTools() }));

  if (prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: prompts.list() }));
    server.setRequestHandler(GetPromptRequestSchema, (request) => {
      let result: GetPromptResult | undefined;
      try {
        result = prompts.get(request.params.name, request.params.arguments ?? {});
      } catch (error) {
        throw new McpError(ErrorCode.InvalidParams, (error as Error).message);
      }
      if (result === undefined) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Unknown prompt: ${request.params.name}. Call prompts/list for the available prompts.`,
        );
      }
      return result;
    });
  }

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const progressToken = request.params._meta?.progressToken;
    let lastProgress = Number.NEGATIVE_INFINITY;
    const context: CallContext = {
      signal: extra.signal,
      async progress(update) {
        // The protocol requires strictly increasing progress values.
        if (progressToken === undefined || update.progress <= lastProgress) return;
        lastProgress = update.progress;
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken, progress: update.progress, total: update.total, message: update.message },
        });
      },
      canElicit: () => server.getClientCapabilities()?.elicitation !== undefined,
      async confirm(message) {
        const answer = await server.elicitInput(
          {
            mode: "form",
            message,
            requestedSchema: {
              type: "object",
              properties: {
                confirm: {
                  type: "boolean",
                  title: "Approve this write",
                  description: message,
                  default: false,
                },
              },
              required: ["confirm"],
            },
          },
          { signal: extra.signal },
        );
        return answer.action === "accept" && answer.content?.confirm === true;
      },
    };
    const result = await handlers.callTool(request.params.name, request.params.arguments, context);
    if (result === undefined) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${request.params.name}. Call tools/list for the available tools.`,
      );
    }
    return result;
  });

  return { sdkServer: server, close: () => server.close() };
}

/** Serve one ProtocolServer over stdin/stdout. Resolves when the client closes stdin. */
export async function connectStdio(server: ProtocolServer): Promise<{ closed: Promise<void> }> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await server.sdkServer.connect(transport);
  return { closed };
}

/** One Streamable HTTP session: its transport, bound to one ProtocolServer. */
export interface HttpSession {
  handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
  close(): Promise<void>;
}

export async function createHttpSession(
  server: ProtocolServer,
  hooks: { sessionId: () => string; onInitialized: (id: string) => void; onClosed: (id: string) => void },
): Promise<HttpSession> {
  const { StreamableHTTPServerTransport } = await import(
    "@modelcontextprotocol/sdk/server/streamableHttp.js"
  );
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: hooks.sessionId,
    onsessioninitialized: hooks.onInitialized,
    onsessionclosed: hooks.onClosed,
  });
  await server.sdkServer.connect(transport);
  return {
    handle: (req, res, body) => transport.handleRequest(req, res, body),
    close: async () => {
      await transport.close();
      await server.close();
    },
  };
}
