/**
 * One step of the HTTP edge on a real node:http server on port 0: `step(req, res)` runs per request;
 * when it did not answer, the server answers 200 {"passed": <what the step returned>}.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export async function serveStep(
  step: (req: IncomingMessage, res: ServerResponse) => unknown,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const passed = await step(req, res);
    if (!res.headersSent) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ passed: passed ?? null }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
