/**
 * Security, end to end against the built binary: full stdio sessions with known secrets and
 * LOG_LEVEL=debug, provoking 401s, 422s, a rejected client secret, a wrong Hawk key, an error
 * body that echoes credentials and a forged Hawk `Server-Authorization`; no secret may appear on
 * stdout (which must be JSON-RPC only), on stderr or in any result. Then the HTTP transport's
 * gatekeeping: bearer token (401), Origin and Host (403), body cap (413), and the refusal to
 * bind a non-loopback host without MCP_HTTP_TOKEN.
 */
import type { ChildProcess } from "node:child_process";
import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEMO_CREDENTIALS, type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import {
  allText,
  BIN,
  firstLine,
  REPO_ROOT,
  requireDist,
  type SpawnedServer,
  spawnBin,
  spawnHttpServer,
  within,
} from "./helpers.js";

const WRONG_SECRET = "wrong-client-secret-7f3a9c";
const WRONG_HAWK_KEY = "wrong-hawk-key-5be21d0c";
const HTTP_TOKEN = "mcp-http-token-9d8e7f6a5b4c";
const basic = (id: string, secret: string) => Buffer.from(`${id}:${secret}`).toString("base64");

let sb: SandboxHandle;
beforeAll(async () => {
  requireDist();
  sb = await startSandbox({ port: 0, faults: true });
});
afterAll(() => sb?.close());
beforeEach(() => sb.faults.reset());

/** Every secret value the sessions could leak: configured ones and every token the sandbox issued. */
function secrets(): string[] {
  const d = DEMO_CREDENTIALS.oauth.demo;
  return [
    d.clientSecret,
    basic(d.clientId, d.clientSecret),
    DEMO_CREDENTIALS.hawk.key,
    WRONG_SECRET,
    basic(d.clientId, WRONG_SECRET),
    WRONG_HAWK_KEY,
    HTTP_TOKEN,
    ...Object.keys(sb.state.tokens),
  ];
}

function expectNoSecret(where: string, text: string): void {
  for (const s of secrets()) {
    expect(text.includes(s), `${where} contains the secret ${s.slice(0, 4)}…`).toBe(false);
  }
}

interface StdioSession {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  results: string[];
  stdout(): string;
  stderr(): string;
  close(): Promise<void>;
}

/** The built binary over stdio with the SDK's StdioClientTransport, all output captured. */
async function stdioSession(env: Record<string, string>): Promise<StdioSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    env: { ...env, LOG_LEVEL: "debug" },
    cwd: REPO_ROOT,
    stderr: "pipe",
  });
  let out = "";
  let err = "";
  transport.stderr?.on("data", (c: Buffer) => {
    err += c.toString("utf8");
  });
  // Tee the raw stdout (to check that every line is JSON-RPC) as soon as the process exists.
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    const child = (transport as unknown as { _process?: ChildProcess })._process;
    child?.stdout?.on("data", (c: Buffer) => {
      out += c.toString("utf8");
    });
  };
  const client = new Client({ name: "security-test", version: "1.0.0" });
  await within(10_000, client.connect(transport), "stdio connect");
  const results: string[] = [];
  return {
    client,
    results,
    async call(name, args = {}) {
      const r = (await within(10_000, client.callTool({ name, arguments: args }), name)) as CallToolResult;
      results.push(JSON.stringify(r));
      return r;
    },
    stdout: () => out,
    stderr: () => err,
    close: () => client.close(),
  };
}

function expectCleanSession(s: StdioSession): void {
  const lines = s
    .stdout()
    .split("\n")
    .filter((l) => l !== "");
  expect(lines.length).toBeGreaterThan(2);
  for (const line of lines) {
    const msg = JSON.parse(line) as { jsonrpc?: string };
    expect(msg.jsonrpc, line.slice(0, 200)).toBe("2.0");
  }
  expectNoSecret("stdout", s.stdout());
  expectNoSecret("stderr", s.stderr());
  for (const r of s.results) expectNoSecret("a tool result", r);
  // Logs are structured: one JSON object per stderr line.
  for (const line of s
    .stderr()
    .split("\n")
    .filter((l) => l !== ""))
    expect(() => JSON.parse(line), line).not.toThrow();
}

describe("no secret on stdout, stderr or in results (stdio, LOG_LEVEL=debug)", () => {
  it("OAuth session: expired token, 422, 404, token endpoint down, an error body echoing credentials", async () => {
    const s = await stdioSession(sb.env({ auth: "oauth" }));
    try {
      expect((await s.call("list_dags")).isError).toBeFalsy();
      expect((await s.call("query_budgets", { limit: 2 })).isError).toBeFalsy();

      sb.faults.expireTokens(); // 401 → refresh → repeat
      expect((await s.call("list_warehouse_groups_1", { limit: 2 })).isError).toBeFalsy();

      const r422 = await s.call("add_task_resources", {
        id_group_task: 1,
        id_task: 102,
        resources: [{ type_description: "INVENTORY", id_item: 1005 }],
      });
      expect(r422.isError).toBe(true);
      expect(firstLine(r422)).toMatch(/422 VALIDATION/);

      const r404 = await s.call("create_warehouse_entry", {
        warehouse_code: "WH-NOPE",
        movement_type: "purchase",
        document: "SEC-1",
        code_user: "HR-001",
        items: [{ code: "SP-1003", qty: 1, unit_cost: 1 }],
      });
      expect(firstLine(r404)).toMatch(/404 NOT_FOUND/);

      // An upstream that echoes the credentials it received in its error body.
      const token = Object.keys(sb.state.tokens).at(-1)!;
      const echo = `token ${token} secret ${DEMO_CREDENTIALS.oauth.demo.clientSecret} basic ${basic("demo-client", "demo-secret")}`;
      sb.faults.failNext("/api/wo_budget", 1, {
        status: 422,
        body: { success: false, message: "422", data: [{ ERROR: echo }], total: 0 },
      });
      const echoed = await s.call("query_budgets", { limit: 1 });
      expect(echoed.isError).toBe(true);
      // The upstream's words come through, with each credential masked.
      expect(firstLine(echoed)).toMatch(/422 VALIDATION/);
      expect(firstLine(echoed)).toMatch(/token \S+ secret \S+ basic \S+/);
      sb.faults.failNext("/hub", 1, {
        status: 500,
        body: `<html><title>${echo}</title></html>`,
        contentType: "text/html",
      });
      expect((await s.call("list_dags")).isError).toBe(true);

      sb.faults.tokenEndpointDown(true);
      sb.faults.expireTokens();
      const down = await s.call("query_budgets", { limit: 1 });
      expect(down.isError).toBe(true);
      expect(firstLine(down)).toMatch(/token endpoint/i);
    } finally {
      await s.close();
    }
    expect(Object.keys(sb.state.tokens).length).toBeGreaterThanOrEqual(2); // the check covers real tokens
    expectCleanSession(s);
    // Debug logging was really on, so the check covered debug records too.
    expect(s.stderr()).toMatch(/"level":"debug"/);
  });

  it("Hawk session: skew, a forged Server-Authorization (SECURITY, data discarded), 422", async () => {
    const s = await stdioSession(sb.env({ auth: "hawk" }));
    try {
      sb.faults.skew(300_000);
      expect((await s.call("query_budgets", { limit: 1 })).isError).toBeFalsy();

      sb.faults.failNext("/api/wo_budget", 1, {
        status: 200,
        body: {
          success: true,
          message: "200",
          data: [{ id: 1, folio: "FORGED-DATA-42", wo_folio: "1", status: 1 }],
          total: 1,
        },
        headers: { "Server-Authorization": 'Hawk mac="Zm9yZ2VkIG1hYyB2YWx1ZQ==", hash="Zm9yZ2Vk"' },
      });
      const forged = await s.call("query_budgets", { limit: 1 });
      expect(forged.isError).toBe(true);
      expect(firstLine(forged)).toMatch(/SECURITY/);
      expect(allText(forged)).not.toContain("FORGED-DATA-42");

      sb.faults.failNext("POST /api/warehouse_entries_orders", 1, {
        status: 200,
        body: { success: true, message: "200", data: { id: 999, folio_target: "FORGED-ENTRY" }, total: 1 },
        headers: { "Server-Authorization": 'Hawk mac="bm90IHRoZSByaWdodCBtYWM="' },
      });
      const forgedWrite = await s.call("create_warehouse_entry", {
        warehouse_code: "WH-MAIN",
        movement_type: "purchase",
        document: "SEC-FORGED",
        code_user: "HR-001",
        items: [{ code: "SP-1003", qty: 1, unit_cost: 1 }],
      });
      expect(forgedWrite.isError).toBe(true);
      expect(firstLine(forgedWrite)).toMatch(/SECURITY/);
      expect(allText(forgedWrite)).not.toContain("FORGED-ENTRY");

      const r422 = await s.call("create_warehouse_entry", {
        warehouse_code: "WH-MAIN",
        movement_type: "purchase",
        document: "SEC-2",
        code_user: "HR-003",
        items: [{ code: "SP-1003", qty: 1, unit_cost: 1 }],
      });
      expect(firstLine(r422)).toMatch(/422 VALIDATION/);
    } finally {
      await s.close();
    }
    expectCleanSession(s);
  });

  it("rejected credentials: a wrong client secret and a wrong Hawk key are named, never shown", async () => {
    const s = await stdioSession({
      ...sb.env({ auth: "hawk" }),
      MMS_CLIENT_SECRET: WRONG_SECRET,
      MMS_HAWK_KEY: WRONG_HAWK_KEY,
    });
    try {
      const dags = await s.call("list_dags");
      expect(dags.isError).toBe(true);
      expect(firstLine(dags)).toMatch(/AUTH/);
      expect(firstLine(dags)).toMatch(/MMS_CLIENT_SECRET/);
      const budgets = await s.call("query_budgets", { limit: 1 });
      expect(budgets.isError).toBe(true);
      expect(firstLine(budgets)).toMatch(/401 AUTH/);
      expect(firstLine(budgets)).toMatch(/MMS_HAWK_KEY/);
    } finally {
      await s.close();
    }
    expectCleanSession(s);
  });
});

// ---------- HTTP transport ----------

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});

/** One POST with full control of the headers (Host included), tolerant of an early close after the answer. */
function post(
  url: string,
  headers: Record<string, string>,
  body: string | Buffer,
  chunked = false,
): Promise<RawAnswer> {
  const u = new URL(url);
  return within(
    10_000,
    new Promise<RawAnswer>((resolve, reject) => {
      let answered = false;
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...(chunked ? {} : { "content-length": String(Buffer.byteLength(body)) }),
            ...headers,
          },
        },
        (res) => {
          answered = true;
          let text = "";
          res.on("data", (c: Buffer) => {
            text += c.toString("utf8");
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
          res.on("error", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        },
      );
      req.on("error", (e) => {
        if (!answered) reject(e);
      });
      if (chunked) {
        const buf = Buffer.isBuffer(body) ? body : Buffer.from(body);
        for (let i = 0; i < buf.length; i += 64 * 1024) req.write(buf.subarray(i, i + 64 * 1024));
        req.end();
      } else {
        req.end(body);
      }
    }),
    "HTTP request",
  );
}

describe("HTTP transport gatekeeping (built binary, MCP_HTTP_TOKEN set)", () => {
  let server: SpawnedServer & { url: string };
  let port: string;
  const auth = { authorization: `Bearer ${HTTP_TOKEN}` };

  beforeAll(async () => {
    server = await spawnHttpServer([], { ...sb.env(), MCP_HTTP_TOKEN: HTTP_TOKEN, LOG_LEVEL: "debug" });
    port = new URL(server.url).port;
  });
  afterAll(() => server?.stop());

  it("no token → 401 with a Bearer challenge", async () => {
    const r = await post(server.url, {}, INIT);
    expect(r.status).toBe(401);
    expect(String(r.headers["www-authenticate"])).toMatch(/^Bearer/);
    expect(r.body).toMatch(/MCP_HTTP_TOKEN/);
  });

  it("a wrong token, a token prefix or another scheme → 401", async () => {
    for (const value of [
      "Bearer wrong-token",
      `Bearer ${HTTP_TOKEN.slice(0, -1)}`,
      `Bearer ${HTTP_TOKEN}x`,
      `Basic ${Buffer.from(`x:${HTTP_TOKEN}`).toString("base64")}`,
      HTTP_TOKEN,
    ]) {
      const r = await post(server.url, { authorization: value }, INIT);
      expect(r.status, value.slice(0, 12)).toBe(401);
    }
  });

  it("the right token → the request is served (stateless: no session id)", async () => {
    const r = await post(server.url, auth, INIT);
    expect(r.status).toBe(200);
    expect(r.headers["mcp-session-id"]).toBeUndefined();
    expect(r.body).toContain('"serverInfo"');
  });

  it("a foreign Origin → 403, even with the right token; a loopback Origin is accepted", async () => {
    for (const origin of ["http://evil.example", "https://attacker.test:8443", "null"]) {
      const r = await post(server.url, { ...auth, origin }, INIT);
      expect(r.status, origin).toBe(403);
    }
    const ok = await post(server.url, { ...auth, origin: `http://localhost:${port}` }, INIT);
    expect(ok.status).toBe(200);
  });

  it("a foreign Host (DNS rebinding) → 403, even with the right token", async () => {
    for (const host of [`evil.example:${port}`, "attacker.test", `10.0.0.1:${port}`]) {
      const r = await post(server.url, { ...auth, host }, INIT);
      expect(r.status, host).toBe(403);
    }
  });

  it("a body over 1 MiB → 413, declared or streamed", async () => {
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "ping",
      params: { pad: "x".repeat(1024 * 1024) },
    });
    const declared = await post(server.url, auth, big);
    expect(declared.status).toBe(413);
    const streamed = await post(server.url, auth, big, true);
    expect(streamed.status).toBe(413);
    // Unauthenticated big bodies are refused before anything is read.
    expect((await post(server.url, {}, big)).status).toBe(401);
    // The server is still healthy.
    expect((await post(server.url, auth, INIT)).status).toBe(200);
  });

  it("the HTTP token never appears in the server's output", () => {
    expect(server.stderr().length).toBeGreaterThan(0);
    expectNoSecret("HTTP server stderr", server.stderr());
    expectNoSecret("HTTP server stdout", server.stdout());
  });
});

describe("start-up refusal", () => {
  it("a non-loopback bind without MCP_HTTP_TOKEN exits 2 naming MCP_HTTP_TOKEN, and never listens", async () => {
    const child = spawnBin(["--http", "--host", "0.0.0.0", "--port", "0"], sb.env());
    const code = await within(10_000, child.exited, "refused start-up");
    expect(code).toBe(2);
    expect(child.stderr()).toMatch(/MCP_HTTP_TOKEN/);
    expect(child.stderr()).not.toMatch(/listening on/);
    expect(child.stderr()).not.toMatch(/\n\s+at /); // no stack trace
    expectNoSecret("refusal message", child.stderr() + child.stdout());
  });
});
