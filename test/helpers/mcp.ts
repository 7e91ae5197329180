/** An SDK Client wired to createServer() through the SDK's in-memory transport pair. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type CallToolResult, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Clients } from "../../src/client/types.js";
import type { ReviewServices } from "../../src/domain/review/services.js";
import type { SecretScope } from "../../src/errors/secret.js";
import { IdempotencyStore } from "../../src/idempotency/store.js";
import { createServer, selectTools } from "../../src/mcp/server.js";
import type { TaskStore } from "../../src/mcp/tasks.js";
import { createLogger, type Logger } from "../../src/telemetry/logger.js";

export interface McpFixtureOptions {
  clients: Clients;
  readOnly?: boolean;
  tools?: string[];
  confirmWrites?: boolean;
  sandbox?: boolean;
  logger?: Logger;
  idempotency?: IdempotencyStore;
  /** MMS_BUDGET_DISCOUNT as the server would read it. */
  budgetDiscount?: "percent" | "amount";
  /** MMS_BUDGET_LOOKBACK_DAYS as the server would read it. */
  budgetLookbackDays?: number;
  /** The server's clock (tools' "now"); default the system clock. */
  now?: () => Date;
  /** The tenant's MCP task store; without it the server offers no tasks. */
  tasks?: TaskStore;
  /** The secrets results are scrubbed with (a tenant's configuration's); default the process's. */
  secrets?: SecretScope;
  /** The review services (snapshots, bytes in flight, deadline) of the server's tenant. */
  reviews?: ReviewServices;
  /** Answer elicitation requests (declares the capability); omit for a client without elicitation. */
  elicit?: (message: string) => {
    action: "accept" | "decline" | "cancel";
    content?: Record<string, unknown>;
  };
}

export async function connect(
  options: McpFixtureOptions,
): Promise<{ client: Client; close(): Promise<void> }> {
  const { tools } = selectTools({
    readOnly: options.readOnly ?? false,
    only: options.tools,
    hubAvailable: options.clients.hub !== undefined,
  });
  const server = createServer(
    {
      clients: options.clients,
      logger: options.logger ?? createLogger({ level: "error", sink: () => {} }),
      idempotency: options.idempotency ?? new IdempotencyStore(),
      sandbox: options.sandbox ?? true,
      version: "test",
      ...(options.budgetDiscount ? { budgetDiscount: options.budgetDiscount } : {}),
      ...(options.budgetLookbackDays ? { budgetLookbackDays: options.budgetLookbackDays } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(options.tasks ? { tasks: options.tasks } : {}),
      ...(options.secrets ? { secrets: options.secrets } : {}),
      ...(options.reviews ? { reviews: options.reviews } : {}),
    },
    { tools, confirmWrites: options.confirmWrites ?? false, checkOutputs: true },
  );
  const client = new Client(
    { name: "test-client", version: "1.0.0" },
    { capabilities: options.elicit ? { elicitation: { form: {} } } : {} },
  );
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, async (request) => answer(request.params.message));
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.sdkServer.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** The text of a result's first content block. */
export function textOf(result: unknown): string {
  const r = result as CallToolResult;
  const first = r.content[0];
  return first && first.type === "text" ? first.text : "";
}
