#!/usr/bin/env node
/**
 * The `maintenance-mcp` binary's entry (bundled by scripts/build.mjs into dist/bin/maintenance-mcp.js):
 * checks the Node.js version, keeps the heap small over stdio (src/main/heap.ts), then loads the server
 * (src/main/index.ts).
 * IMPORTANT: it imports nothing statically but the pure version check and the heap settings
 * (node:v8 only). The server comes through `import()`, so on an unsupported Node no other module is
 * evaluated (a static import would be, first: in the bundle, every shared chunk): it says which
 * version it needs, one line on stderr, and over stdio answers the host's requests with it, then
 * exits 2 when stdin ends (at once elsewhere: --http, --check, a terminal).
 */
import { keepHeapSmall, servesOneClient } from "./main/heap.js";
import { answerWithProblem, nodeVersionProblem, servesStdio } from "./main/node-version.js";

const problem = nodeVersionProblem(process.versions.node);
if (problem === undefined) {
  if (servesOneClient(process.argv.slice(2))) keepHeapSmall();
  await import("./main/index.js");
} else {
  process.stderr.write(`${problem}\n`);
  // Over stdio an MCP host hides stderr: its initialize is answered with the problem (interface.md §9).
  if (process.stdin.isTTY || !servesStdio(process.argv.slice(2))) process.exit(2);
  answerWithProblem(problem, () => process.exit(2));
}
