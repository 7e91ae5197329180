/** MCP over stdin/stdout. stdout carries only protocol messages; everything else goes to stderr. */
import type { Logger } from "../logger.js";
import { connectStdio, type ProtocolServer } from "../mcp.js";

/** Serve until the client closes stdin; resolves then. */
export async function serveStdio(server: ProtocolServer, logger: Logger): Promise<void> {
  const { closed } = await connectStdio(server);
  logger.info("serving MCP over stdio");
  await closed;
}
