#!/usr/bin/env node
/**
 * The `maintenance-mcp` binary's entry (bundled by scripts/build.mjs into dist/bin/maintenance-mcp.js):
 * checks the Node.js version, holds the young generation small (src/young-generation.ts), then loads
 * the server (src/index.ts).
 * IMPORTANT: it imports nothing statically but the pure version check and the young-generation
 * setting (node:v8 only). The server comes through `import()`, so on an unsupported Node it exits
 * (code 2, one line on stderr) before any other module is evaluated; a static import would be
 * evaluated first (in the bundle, every shared chunk).
 */
import { nodeVersionProblem } from "./node-version.js";
import { holdYoungGeneration } from "./young-generation.js";

const problem = nodeVersionProblem(process.versions.node);
if (problem !== undefined) {
  process.stderr.write(`${problem}\n`);
  process.exit(2);
}
holdYoungGeneration();
await import("./index.js");
