/**
 * The first hour's smaller traps (issue 22, point 7), through the built binary: a connection
 * refused is a configuration problem naming the variable, not "retry later"; an https/http mix-up
 * either way is said in words with the fix, not in OpenSSL's; `sandbox --port` on a busy port is
 * one clear line and exit 2; --help lists every variable the server reads.
 */
import { readFileSync } from "node:fs";
import { createServer as createHttpsServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VARIABLE_NAMES } from "../../src/config/variables.js";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { closedPort } from "../client/fake-upstream.js";
import { BIN, cleanEnv, runBin } from "./bin.js";

let sb: SandboxHandle;
let tls: Server;
let tlsPort: number;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
  // A TLS server that never sees a valid request: only its handshake matters here.
  tls = createHttpsServer(
    {
      key: readFileSync("test/fixtures/tls/localhost-key.pem"),
      cert: readFileSync("test/fixtures/tls/localhost-cert.pem"),
    },
    (_req, res) => res.end("{}"),
  );
  await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", resolve));
  tlsPort = (tls.address() as AddressInfo).port;
});
afterAll(async () => {
  await sb.close();
  tls.close();
});

/** The first text line of one list_warehouse_groups_1 call by the binary over stdio with `env`. */
async function callWith(env: Record<string, string>): Promise<{ isError: boolean; text: string }> {
  const client = new Client({ name: "e2e", version: "1" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN], env: cleanEnv(env), stderr: "pipe" }),
  );
  try {
    const result = await client.callTool({ name: "list_warehouse_groups_1", arguments: { limit: 1 } });
    const text = (result.content as { text: string }[])[0]!.text.split("\n")[0]!;
    return { isError: result.isError === true, text };
  } finally {
    await client.close();
  }
}

const hawk = () => {
  const { MMS_HAWK_ID, MMS_HAWK_KEY } = sb.env({ auth: "hawk" });
  return { MMS_HAWK_ID: MMS_HAWK_ID!, MMS_HAWK_KEY: MMS_HAWK_KEY! };
};

describe("upstream URLs that cannot work, said as configuration problems", () => {
  it("connection refused names MMS_BASE_URL and never says retry later", async () => {
    const port = await closedPort();
    const { isError, text } = await callWith({
      ...hawk(),
      MMS_BASE_URL: `http://127.0.0.1:${port}/api`,
      MMS_MAX_RETRIES: "0",
    });
    expect(isError).toBe(true);
    expect(text).toBe(
      `Upstream unreachable (NETWORK): connection refused by 127.0.0.1:${port}: nothing accepts connections there (hint: check MMS_BASE_URL (host and port) and that the server there is up; a configuration problem, retrying will not help)`,
    );
    expect(text).not.toMatch(/retry later/);
  });

  it("connection refused at the token endpoint names MMS_AUTH_URL", async () => {
    const port = await closedPort();
    const { text } = await callWith({
      ...sb.env(),
      MMS_AUTH_URL: `http://127.0.0.1:${port}`,
      MMS_MAX_RETRIES: "0",
    });
    expect(text).toContain(`connection refused by 127.0.0.1:${port}`);
    expect(text).toContain("(hint: check MMS_AUTH_URL (host and port) and that the server there is up");
  });

  it("https:// to a plain-HTTP server: in words, with the fix", async () => {
    const { isError, text } = await callWith({
      ...hawk(),
      MMS_BASE_URL: `${sb.url.replace("http:", "https:")}/api`,
    });
    expect(isError).toBe(true);
    const host = new URL(sb.url).host;
    expect(text).toBe(
      `Upstream unreachable (NETWORK): ${host} answered in plain HTTP, not TLS: the URL says https:// but the server there speaks http:// (hint: use http:// instead of https:// in MMS_BASE_URL (or enable TLS on that server))`,
    );
    expect(text).not.toMatch(/SSL routines|ssl3_|0A00010B/);
  });

  it("http:// to a TLS server: in words, with the fix", async () => {
    const { isError, text } = await callWith({ ...hawk(), MMS_BASE_URL: `http://127.0.0.1:${tlsPort}/api` });
    expect(isError).toBe(true);
    expect(text).toBe(
      `Upstream unreachable (NETWORK): 127.0.0.1:${tlsPort} speaks TLS (HTTPS) and dropped the plain-HTTP request: the URL says http:// but the server there speaks https:// (hint: use https:// instead of http:// in MMS_BASE_URL)`,
    );
  });
});

describe("the command line", () => {
  it("sandbox --port on a busy port: one clear line, exit 2", async () => {
    const port = new URL(sb.url).port;
    const run = await runBin(["sandbox", "--port", port], cleanEnv());
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `maintenance-mcp sandbox: port ${port} on 127.0.0.1 is already in use (another sandbox?); stop it, or choose another port with --port N (0 picks a free one)\n`,
    );
    expect(run.stdout).toBe("");
  });

  it("--help lists every variable the server reads", async () => {
    const run = await runBin(["--help"], cleanEnv());
    expect(run.code).toBe(0);
    for (const name of VARIABLE_NAMES) expect(run.stdout).toMatch(new RegExp(`^  ${name} +\\S`, "m"));
    expect(run.stdout).toContain("maintenance-mcp --check [options]");
  });
});

describe("a TLS server drops the plain request unread", () => {
  it("the probe connects to it once more, only to shake hands", async () => {
    let connections = 0;
    tls.on("connection", () => connections++);
    await callWith({ ...hawk(), MMS_BASE_URL: `http://127.0.0.1:${tlsPort}/api`, MMS_MAX_RETRIES: "3" });
    // The plain request, then the handshake probe: no retries of a request that cannot work.
    expect(connections).toBe(2);
  }, 20_000);
});
