/**
 * IMPORTANT: imported first by src/index.ts, for its side effect. ES modules run in import
 * order, so this exits (code 2, one line on stderr) before any module that needs a newer Node
 * is evaluated. It deliberately imports nothing but the pure version check.
 */
import { nodeVersionProblem } from "./node-version.js";

const problem = nodeVersionProblem(process.versions.node);
if (problem !== undefined) {
  process.stderr.write(`${problem}\n`);
  process.exit(2);
}
