/**
 * The Node.js versions this server supports (package.json `engines` and `preinstall`, kept equal by
 * a unit test). Older ones fail late and obscurely (Node 18: `File is not defined` inside undici on
 * the first call), so the binary checks first and says which version it needs, on stderr and, over
 * stdio, to the MCP host itself (hosts hide stderr and would show only "Connection closed").
 * IMPORTANT: this module runs on the old Node.js: no syntax newer than Node 14's, no import.
 */

/** The oldest supported Node.js version. */
export const MIN_NODE = "20.19.0";

function parts(version: string): number[] {
  return version
    .replace(/^v/, "")
    .split(/[.-]/)
    .slice(0, 3)
    .map((p) => Number.parseInt(p, 10) || 0);
}

/** One line naming the version needed, or undefined when `version` (e.g. "18.20.4") is supported. */
export function nodeVersionProblem(version: string, minimum: string = MIN_NODE): string | undefined {
  const have = parts(version);
  const need = parts(minimum);
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) > (need[i] ?? 0)) return undefined;
    if ((have[i] ?? 0) < (need[i] ?? 0)) {
      return `maintenance-mcp needs Node.js ${minimum} or newer; this is Node.js ${version.replace(/^v/, "")}. Install a current LTS from https://nodejs.org and try again.`;
    }
  }
  return undefined;
}

/** Whether `argv` starts an MCP server over stdio (not --http, --check, --help, --version, `sandbox`). */
export function servesStdio(argv: readonly string[]): boolean {
  const other = ["--http", "--check", "--help", "-h", "--version", "-v"];
  return argv[0] !== "sandbox" && !argv.some((a) => other.indexOf(a) !== -1);
}

/**
 * On an unsupported Node.js over stdio: answer every JSON-RPC request (the host's `initialize` first)
 * with an error that is `problem`, until stdin ends; then `done`. Notifications get no answer.
 */
export function answerWithProblem(problem: string, done: () => void): void {
  let buffer = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) => {
    buffer += chunk;
    let end = buffer.indexOf("\n");
    while (end !== -1) {
      const answer = problemAnswer(buffer.slice(0, end), problem);
      // This is the stdio transport of a server that cannot start (too old a Node.js): its only answers.
      if (answer !== undefined) process.stdout.write(`${answer}\n`); // stdout-ok: the transport itself
      buffer = buffer.slice(end + 1);
      end = buffer.indexOf("\n");
    }
  });
  process.stdin.on("end", done);
}

/** The JSON-RPC error answering one line, or undefined for a notification or a line that is not JSON-RPC. */
export function problemAnswer(line: string, problem: string): string | undefined {
  let message: { id?: unknown; method?: unknown } | null;
  try {
    message = JSON.parse(line) as { id?: unknown; method?: unknown } | null;
  } catch (_) {
    return undefined;
  }
  if (message === null || typeof message !== "object" || typeof message.method !== "string") return undefined;
  if (message.id === undefined || message.id === null) return undefined;
  return JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32603, message: problem } });
}
