#!/usr/bin/env node
/**
 * The `maintenance-mcp` binary's entry (bundled by scripts/build.mjs into dist/bin/maintenance-mcp.js):
 * checks the Node.js version, keeps the heap small over stdio (src/main/heap.ts), then loads the server
 * (src/main/index.ts).
 * IMPORTANT: it imports nothing statically but the pure version check and the heap settings
 * (node:v8 only). The server comes through `import()`, so on an unsupported Node it exits
 * (code 2, one line on stderr) before any other module is evaluated; a static import would be
 * evaluated first (in the bundle, every shared chunk).
 */
import { keepHeapSmall, servesOneClient } from "./main/heap.js";
import { nodeVersionProblem } from "./main/node-version.js";

const problem = nodeVersionProblem(process.versions.node);
if (problem !== undefined) {
  process.stderr.write(`${problem}\n`);
  process.exit(2);
}
if (servesOneClient(process.argv.slice(2))) keepHeapSmall();
await import("./main/index.js");
