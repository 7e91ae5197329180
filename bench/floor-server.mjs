#!/usr/bin/env node
/**
 * The framework floor: the smallest server the same SDK (@modelcontextprotocol/sdk 1.32) makes,
 * one `McpServer` with one tool returning a constant. Benchmarks compare ours against it.
 *   node bench/floor-server.mjs                      stdio
 *   node bench/floor-server.mjs --http --port 0      Streamable HTTP at /mcp, one session per client
 *     (prints "listening on http://127.0.0.1:PORT/mcp" on stderr, like ours)
 * The HTTP mode mirrors ours (stateful sessions, SSE answers, a node:http server) without any
 * of its checks, so the comparison isolates what our server adds.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

function makeServer() {
  const server = new McpServer({ name: "floor", version: "1.0.0" });
  server.registerTool("constant", { title: "Constant", description: "Returns a constant." }, () => ({
    content: [{ type: "text", text: "ok" }],
  }));
  return server;
}

async function serveStdio() {
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  await makeServer().connect(new StdioServerTransport());
}

async function serveHttp(host, port) {
  const { StreamableHTTPServerTransport } = await import(
    "@modelcontextprotocol/sdk/server/streamableHttp.js"
  );
  const { isInitializeRequest } = await import("@modelcontextprotocol/sdk/types.js");
  const sessions = new Map();
  const readJson = async (req) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  };
  const http = createServer(async (req, res) => {
    const id = req.headers["mcp-session-id"];
    const body = req.method === "POST" ? await readJson(req) : undefined;
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (!transport && req.method === "POST" && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sid) => sessions.set(sid, transport),
        onsessionclosed: (sid) => sessions.delete(sid),
      });
      await makeServer().connect(transport);
    }
    if (!transport) {
      res.writeHead(400).end();
      return;
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise((resolve) => http.listen(port, host, resolve));
  process.stderr.write(`floor listening on http://${host}:${http.address().port}/mcp\n`);
}

const { values } = parseArgs({
  options: { http: { type: "boolean" }, host: { type: "string" }, port: { type: "string" } },
});
if (values.http) await serveHttp(values.host ?? "127.0.0.1", Number(values.port ?? 0));
else await serveStdio();
process.once("SIGTERM", () => process.exit(0));
