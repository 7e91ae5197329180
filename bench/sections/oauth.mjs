/**
 * 11. OAuth (interface.md §7c): the cost of a verified JWT access token. One server (`--http`, the
 * sandbox upstream) accepts both a static MCP_HTTP_TOKEN and OAuth access tokens from a real
 * authorization server (the demo one, oidc-provider, in this process); one SDK client sends the
 * static token, another a JWT signed by the authorization server's key (verified by the server
 * against its JWKS, fetched once and cached). Calls alternate one by one. Target: the JWT call's
 * median <= 1.05 x the static token call's.
 */
import { createServer } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { importJWK, SignJWT } from "jose";
import { startDemoAuthorizationServer } from "../../dist/src/sandbox/oauth-demo.js";
import { interleave, median, p95 } from "../lib/measure.mjs";
import { callOk, childEnv, OURS_BIN, startHttpServer } from "../lib/servers.mjs";

const CALLS = 300;
const STATIC_TOKEN = "bench-static-token-0123456789abcdef";

/** A port free now (the public URL, and so the token audience, must be known before the start). */
async function freePort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function connect(url, token) {
  const client = new Client({ name: "bench-oauth", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

export default async function oauth({ sb }) {
  const url = `http://127.0.0.1:${await freePort()}/mcp`;
  const as = await startDemoAuthorizationServer({ resource: () => url });
  const port = new URL(url).port;
  const ours = await startHttpServer(
    OURS_BIN,
    ["--http", "--port", port],
    childEnv({ ...sb.env(), MCP_HTTP_TOKEN: STATIC_TOKEN, MCP_OAUTH_ISSUER: as.issuer, MCP_PUBLIC_URL: url }),
  );
  try {
    const key = await importJWK(as.signingKey, "ES256");
    const jwt = await new SignJWT({ scope: "mms:read mms:write", client_id: "bench", sub: "bench-user" })
      .setProtectedHeader({ alg: "ES256", kid: as.signingKey.kid, typ: "at+jwt" })
      .setIssuer(as.issuer)
      .setAudience(url)
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(key);
    const clients = { static: await connect(url, STATIC_TOKEN), jwt: await connect(url, jwt) };
    const call = (name) => () => callOk(clients[name], "list_warehouse_groups_1", { limit: 10 });
    const samples = await interleave(
      { static: call("static"), jwt: call("jwt") },
      { rounds: CALLS, warmup: 20, label: "oauth", progressEvery: 100 },
    );
    for (const c of Object.values(clients)) await c.close();
    const ratio = median(samples.jwt) / median(samples.static);
    const bench = "11. OAuth (ms per call)";
    process.stderr.write(
      `  oauth: static ${median(samples.static).toFixed(2)} ms, jwt ${median(samples.jwt).toFixed(2)} ms\n`,
    );
    return {
      rows: [
        {
          bench,
          series: "static bearer token (MCP_HTTP_TOKEN)",
          n: CALLS,
          median: median(samples.static),
          p95: p95(samples.static),
        },
        {
          bench,
          series: "verified JWT access token (jose, cached JWKS)",
          n: CALLS,
          median: median(samples.jwt),
          p95: p95(samples.jwt),
          ratio,
          note: "ratio = / static token",
        },
      ],
      targets: [
        {
          name: "11. OAuth: a call with a verified JWT / with a static token",
          figure: ratio.toFixed(3),
          target: "<= 1.05",
          met: ratio <= 1.05,
        },
      ],
    };
  } finally {
    await ours.stop();
    await as.close();
  }
}
