/**
 * Starting the servers under test (ours: the shipped bundle, dist/bin/; the SDK floor) and talking to them with the
 * SDK's own client, over stdio or Streamable HTTP. Every server is a child process of the
 * benchmark; only loopback addresses are used.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** The shipped bundle; BENCH_OURS_BIN points the bench at another build (a side-by-side of two releases). */
export const OURS_BIN =
  process.env.BENCH_OURS_BIN || fileURLToPath(new URL("../../dist/bin/maintenance-mcp.js", import.meta.url));
export const FLOOR_BIN = fileURLToPath(new URL("../floor-server.mjs", import.meta.url));
/** The same floor on the v2 SDK (ours is built on it). */
export const FLOOR_V2_BIN = fileURLToPath(new URL("../floor-server-v2.mjs", import.meta.url));
/** The v2 floor plus the upstream request, returning ours' recorded answer (bench/floor-relay.mjs). */
export const RELAY_BIN = fileURLToPath(new URL("../floor-relay.mjs", import.meta.url));

/**
 * Where the servers of this run keep their review history (interface.md §6e; on by default, as for a
 * user): a directory of the run, removed at its end. In ~/.local/state it piled up run after run, and
 * each run read what the earlier ones left.
 */
const STATE_HOME = mkdtempSync(join(tmpdir(), "maintenance-mcp-bench-state-"));
process.once("exit", () => rmSync(STATE_HOME, { recursive: true, force: true }));

/** The environment a server child gets: PATH etc., no inherited MMS_*, quiet logs, plus `extra`. */
export function childEnv(extra = {}) {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("MMS_") && k !== "MCP_HTTP_TOKEN"),
  );
  return { ...base, XDG_STATE_HOME: STATE_HOME, LOG_LEVEL: "error", ...extra };
}

/** BENCH_NODE_ARGS: node flags for the servers a bench starts (e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`; NODE_OPTIONS refuses --cpu-prof). */
const BENCH_NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);

/**
 * Spawn a stdio MCP server (`node ...nodeArgs bin`) and connect an SDK client to it.
 * @returns {Promise<{client: Client, pid: number, close: () => Promise<void>}>}
 */
export async function connectStdio(bin, env = childEnv(), nodeArgs = BENCH_NODE_ARGS) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeArgs, bin],
    env,
    stderr: "pipe",
  });
  transport.stderr?.resume(); // drain; the servers log at level error only
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid, close: () => client.close() };
}

/** Connect one SDK client over Streamable HTTP (one session). */
export async function connectHttp(url) {
  const client = new Client({ name: "bench", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return {
    client,
    close: async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

/**
 * Spawn `node [BENCH_NODE_ARGS] <bin> ...args` and wait for the "listening on http://...:PORT/mcp" line on stderr.
 * @returns {Promise<{url: string, pid: number, stop: () => Promise<void>}>}
 */
export function startHttpServer(bin, args, env = childEnv(), timeoutMs = 15_000) {
  const child = spawn(process.execPath, [...BENCH_NODE_ARGS, bin, ...args], {
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return new Promise((resolve, reject) => {
    let seen = "";
    let started = false;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${bin} did not start within ${timeoutMs} ms: ${seen}`));
    }, timeoutMs);
    child.once("exit", (code) => reject(new Error(`${bin} exited with ${code}: ${seen}`)));
    child.stderr.on("data", (chunk) => {
      if (seen.length < 10_000) seen += chunk;
      const m = /listening on (http:\/\/\S+\/mcp)/.exec(seen);
      if (!m || started) return;
      started = true;
      clearTimeout(timer);
      resolve({
        url: m[1],
        pid: child.pid,
        stop: async () => {
          child.kill("SIGTERM");
          const t = setTimeout(() => child.kill("SIGKILL"), 5_000);
          await exited;
          clearTimeout(t);
        },
      });
    });
  });
}

/** Resident set size of a process in MiB, from /proc/<pid>/status: now (VmRSS) or at its peak (VmHWM). */
export function rssMiB(pid, which = "VmRSS") {
  const m = new RegExp(`${which}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no ${which} for pid ${pid}`);
  return Number(m[1]) / 1024;
}

/** CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat (clock ticks of 10 ms). */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Peak resident set size of a process in MiB (VmHWM). */
export const peakRssMiB = (pid) => rssMiB(pid, "VmHWM");

/** Call a tool and throw when the result is an error, so that errors are never timed as calls. */
export async function callOk(client, name, args = {}) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content).slice(0, 500)}`);
  return result;
}

/**
 * Record ours' answer to each call in `calls` ({key: {tool, args, path, query}}: the tool call and the
 * upstream GET it makes) through `client`, into a file the relay floor (bench/floor-relay.mjs) reads
 * at start; `use(file)` starts it, and the file is removed once it has.
 */
async function withAnswers(sb, client, calls, use) {
  const answers = {};
  for (const [key, { tool, args, path, query }] of Object.entries(calls)) {
    const { content, structuredContent } = await callOk(client, tool, args);
    answers[key] = { path, query, result: { content, structuredContent } };
  }
  const dir = mkdtempSync(join(tmpdir(), "relay-"));
  const file = join(dir, "answers.json");
  const upstream = { env: sb.env(), authUrl: sb.authUrl, baseUrl: sb.baseUrl };
  writeFileSync(file, JSON.stringify({ upstream, answers }));
  try {
    return await use(file);
  } finally {
    rmSync(dir, { recursive: true, force: true }); // read at start
  }
}

/**
 * Record ours' answers (see withAnswers), then start the relay floor over stdio that makes the same
 * GET and returns that answer, as tool `relay` {key}.
 * @returns {Promise<{client: Client, pid: number, close: () => Promise<void>}>}
 */
export function connectRelay(sb, ours, calls) {
  return withAnswers(sb, ours.client, calls, (file) =>
    connectStdio(RELAY_BIN, childEnv({ RELAY_FILE: file })),
  );
}

/**
 * The same relay floor over stateless Streamable HTTP (createMcpHandler, as floor-server-v2.mjs), its
 * answers recorded through `client` (any client of ours).
 * @returns {Promise<{url: string, pid: number, stop: () => Promise<void>}>}
 */
export function startRelayHttp(sb, client, calls) {
  return withAnswers(sb, client, calls, (file) =>
    startHttpServer(RELAY_BIN, ["--http", "--port", "0"], childEnv({ RELAY_FILE: file })),
  );
}
