/**
 * The README's troubleshooting quotes what the server says: each case is produced for real with the built binary
 * (a private CA, an upstream that refuses connections, a missing variable), and the README must carry the same
 * words and the fix it names, so a reworded message fails here rather than leaving a user with a stale guide.
 */
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { createServer, type Server } from "node:https";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { BIN, cleanEnv, runBin, startBin } from "./bin.js";

/** The README as rendered: Markdown joins wrapped lines, so whitespace runs count as one space. */
const readme = readFileSync("README.md", "utf8").replace(/\s+/g, " ");
const TLS = join(import.meta.dirname, "..", "fixtures", "tls");

let sb: SandboxHandle;
let front: Server;
let httpsOrigin: string;

beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
  // The sandbox behind HTTPS with a certificate no public CA signed, as a company's own CA would issue.
  const target = new URL(sb.url);
  front = createServer(
    {
      key: readFileSync(join(TLS, "localhost-key.pem")),
      cert: readFileSync(join(TLS, "localhost-cert.pem")),
    },
    (req, res) => {
      const upstream = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    },
  );
  front.listen(0, "127.0.0.1");
  await once(front, "listening");
  httpsOrigin = `https://127.0.0.1:${(front.address() as AddressInfo).port}`;
});
afterAll(async () => {
  front?.closeAllConnections();
  front?.close();
  await sb?.close();
});

/** One tool call through the built binary over stdio with this entry `env`; returns the result's text. */
async function callWith(env: Record<string, string>): Promise<{ isError: boolean; text: string }> {
  const client = new Client({ name: "troubleshooting", version: "1" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN], env: cleanEnv(env), stderr: "pipe" }),
  );
  try {
    const result = await client.callTool({ name: "list_warehouse_groups_1", arguments: { limit: 1 } });
    const [first] = result.content as { type: string; text: string }[];
    return { isError: result.isError === true, text: first!.text };
  } finally {
    await client.close();
  }
}

const hawkEnv = (baseUrl: string) => {
  const { MMS_HAWK_ID, MMS_HAWK_KEY } = sb.env({ auth: "hawk" });
  return { MMS_BASE_URL: baseUrl, MMS_AUTH: "hawk", MMS_HAWK_ID: MMS_HAWK_ID!, MMS_HAWK_KEY: MMS_HAWK_KEY! };
};

describe("README troubleshooting", () => {
  it("private CA: the TLS failure it quotes, fixed by NODE_EXTRA_CA_CERTS in the entry's env", async () => {
    const env = hawkEnv(`${httpsOrigin}/api`);
    const failed = await callWith(env);
    expect(failed.isError).toBe(true);
    expect(failed.text).toMatch(
      /^Upstream unreachable \(NETWORK\): TLS failure talking to 127\.0\.0\.1:\d+: /,
    );
    expect(failed.text).toMatch(/self-signed certificate/);
    expect(readme).toContain("TLS failure talking to host: ");
    expect(readme).toContain("self-signed certificate");
    expect(readme).toContain('"NODE_EXTRA_CA_CERTS": "/absolute/path/to/company-ca.pem"');

    const fixed = await callWith({ ...env, NODE_EXTRA_CA_CERTS: join(TLS, "localhost-cert.pem") });
    expect(fixed.isError, fixed.text).toBe(false);
  }, 30_000);

  it("connection refused by the upstream: the error it quotes names the host and port", async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createTcpServer().listen(0, "127.0.0.1");
    await once(probe, "listening");
    const { port } = probe.address() as AddressInfo;
    probe.close();
    const { isError, text } = await callWith({
      ...hawkEnv(`http://127.0.0.1:${port}/api`),
      MMS_MAX_RETRIES: "0",
    });
    expect(isError).toBe(true);
    expect(text).toContain(`Upstream unreachable (NETWORK): connection refused by 127.0.0.1:${port}`);
    expect(readme).toContain("`Upstream unreachable (NETWORK): connection refused by host:port`");
  }, 30_000);

  it("a configuration problem reaches the client: the words it quotes, from a tool call", async () => {
    const { isError, text } = await callWith({ ...hawkEnv(`${sb.url}/api`), MMS_READONLY: "true" });
    expect(isError).toBe(true);
    const refused =
      "did you mean MMS_READ_ONLY? Ignored, the tools that write upstream would be offered, so no tool runs until it is fixed";
    expect(text).toContain("maintenance-mcp cannot run list_warehouse_groups_1: Configuration problem");
    expect(text).toContain(refused);
    expect(readme).toContain("maintenance-mcp cannot run <tool>: Configuration problem");
    expect(readme).toContain(refused);
  }, 30_000);

  it("an https/http mix-up, either way: the words it quotes", async () => {
    const tlsToPlain = await callWith(hawkEnv(`${sb.url.replace("http:", "https:")}/api`));
    expect(tlsToPlain.text).toContain("answered in plain HTTP, not TLS");
    const plainToTls = await callWith(hawkEnv(`${httpsOrigin.replace("https:", "http:")}/api`));
    expect(plainToTls.text).toContain("speaks TLS (HTTPS) and dropped the plain-HTTP request");
    expect(readme).toContain(
      "`answered in plain HTTP, not TLS` or `speaks TLS (HTTPS) and dropped the plain-HTTP request`",
    );
  }, 30_000);

  it("an OAuth attempt over HTTP: the words it quotes, from the server's discovery answer", async () => {
    const { child, match } = await startBin(
      ["--sandbox", "--http", "--port", "0"],
      cleanEnv({ MCP_HTTP_TOKEN: "troubleshooting-token-0123456789" }),
      /listening on (http:\S+)/,
    );
    try {
      const res = await fetch(new URL("/.well-known/oauth-protected-resource", match[1]!));
      const { error_description } = (await res.json()) as { error_description: string };
      const quoted =
        "This server uses a static bearer token, not OAuth: send the header Authorization: Bearer <the value of its MCP_HTTP_TOKEN>";
      expect(error_description).toContain(quoted);
      expect(readme).toContain(quoted);
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  }, 30_000);

  it("a missing variable: the configuration message it quotes names the variable", async () => {
    const { MMS_CLIENT_ID, MMS_CLIENT_SECRET, MMS_AUTH_URL } = sb.env();
    const run = await runBin(
      ["--http", "--port", "0"],
      cleanEnv({
        MMS_CLIENT_ID: MMS_CLIENT_ID!,
        MMS_CLIENT_SECRET: MMS_CLIENT_SECRET!,
        MMS_AUTH_URL: MMS_AUTH_URL!,
      }),
    );
    expect(run.code).toBe(2);
    const quoted = "Configuration problem: MMS_BASE_URL: required: base URL of the main API";
    expect(run.stderr).toContain(quoted);
    expect(readme).toContain(quoted);
  }, 30_000);
});
