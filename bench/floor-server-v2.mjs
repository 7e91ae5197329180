#!/usr/bin/env node
/**
 * The v2 framework floor: the smallest server the v2 SDK (@modelcontextprotocol/server 2.4, the SDK
 * ours is built on) makes, one `McpServer` with one tool returning a constant, serving both protocol
 * eras like ours. Benchmarks report ours against it beside the 1.x floor (bench/floor-server.mjs).
 *   node bench/floor-server-v2.mjs                   stdio (serveStdio)
 *   node bench/floor-server-v2.mjs --http --port 0   stateless Streamable HTTP at /mcp (createMcpHandler
 *     on node:http through toNodeHandler, without any of our checks); prints "listening on URL"
 */
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { McpServer } from "@modelcontextprotocol/server";

function makeServer() {
  const server = new McpServer({ name: "floor-v2", version: "1.0.0" });
  server.registerTool("constant", { title: "Constant", description: "Returns a constant." }, () => ({
    content: [{ type: "text", text: "ok" }],
  }));
  return server;
}

async function serveStdio() {
  const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
  serveStdio(makeServer);
}

async function serveHttp(host, port) {
  const { createMcpHandler } = await import("@modelcontextprotocol/server");
  const { toNodeHandler } = await import("@modelcontextprotocol/node");
  const handle = toNodeHandler(createMcpHandler(makeServer));
  const http = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise((resolve) => http.listen(port, host, resolve));
  process.stderr.write(`floor-v2 listening on http://${host}:${http.address().port}/mcp\n`);
}

const { values } = parseArgs({
  options: { http: { type: "boolean" }, host: { type: "string" }, port: { type: "string" } },
});
if (values.http) await serveHttp(values.host ?? "127.0.0.1", Number(values.port ?? 0));
else await serveStdio();
process.once("SIGTERM", () => process.exit(0));
