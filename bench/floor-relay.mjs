#!/usr/bin/env node
import { readFileSync } from "node:fs";
/**
 * The relay floor: the v2 framework floor (bench/floor-server-v2.mjs) plus the upstream request, and
 * nothing else. Its one tool, `relay` {key}, makes the sandbox request recorded under `key` (the
 * same direct undici client as the benchmarks' "direct" series: GET, `body.json()`) and returns the
 * answer ours gave for that same request, recorded beforehand. No validation, no paging, no
 * rendering: it is what any server built on this SDK costs to carry exactly our answer from exactly
 * this request, so `ours / relay` is the cost of our own work and `relay / (direct + floor)` what a
 * target leaves for it (docs/quality.md).
 *   RELAY_FILE=answers.json node bench/floor-relay.mjs   (stdio; the file: see bench/lib/servers.mjs connectRelay)
 *   RELAY_FILE=answers.json node bench/floor-relay.mjs --http --port 0   stateless Streamable HTTP at /mcp,
 *     as floor-server-v2.mjs serves it (createMcpHandler through toNodeHandler, none of our checks);
 *     prints "listening on URL"
 */
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { directClient } from "./lib/upstream.mjs";

const { upstream, answers } = JSON.parse(readFileSync(process.env.RELAY_FILE, "utf8"));
const get = await directClient({
  env: () => upstream.env,
  authUrl: upstream.authUrl,
  baseUrl: upstream.baseUrl,
});

function makeServer() {
  const server = new McpServer({ name: "floor-relay", version: "1.0.0" });
  server.registerTool(
    "relay",
    {
      title: "Relay",
      description: "Makes a recorded request, returns a recorded answer.",
      inputSchema: z.object({ key: z.string() }),
    },
    async ({ key }) => {
      const { path, query, result } = answers[key];
      await get(path, query);
      return result;
    },
  );
  return server;
}

async function serveHttp(host, port) {
  const { createMcpHandler } = await import("@modelcontextprotocol/server");
  const { toNodeHandler } = await import("@modelcontextprotocol/node");
  const handle = toNodeHandler(createMcpHandler(makeServer));
  const http = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise((resolve) => http.listen(port, host, resolve));
  process.stderr.write(`floor-relay listening on http://${host}:${http.address().port}/mcp\n`);
}

const { values } = parseArgs({
  options: { http: { type: "boolean" }, host: { type: "string" }, port: { type: "string" } },
});
if (values.http) await serveHttp(values.host ?? "127.0.0.1", Number(values.port ?? 0));
else {
  const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
  serveStdio(makeServer);
}
process.once("SIGTERM", () => process.exit(0));
