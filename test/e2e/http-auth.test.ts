/**
 * HTTP with MCP_HTTP_TOKEN, as an OAuth-capable client meets it (issue 22, point 3): the 401 and
 * every OAuth discovery path a client probes say, in JSON, that the server uses a static bearer
 * token and how to send it, with a status no client reads as "start OAuth" (404), nothing that
 * points at an authorization server, and no secret. The MCP SDK's own OAuth client, run against
 * the built binary, ends with our instruction and never opens a browser.
 */
import { once } from "node:events";
import {
  Client as ClientV2,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, startBin } from "./bin.js";

const TOKEN = "http-token-for-the-auth-test-0123456789";
let server: Awaited<ReturnType<typeof startBin>>;
let url: URL;

beforeAll(async () => {
  server = await startBin(
    ["--sandbox", "--http", "--port", "0"],
    cleanEnv({ MCP_HTTP_TOKEN: TOKEN }),
    /listening on (http:\S+)/,
  );
  url = new URL(server.match[1]!);
});
afterAll(async () => {
  server.child.kill("SIGTERM");
  await once(server.child, "exit");
});

/** What the MCP TypeScript SDK client, other clients and the legacy 2025-03-26 fallback probe. */
const PROBES = [
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/mcp",
  "/.well-known/oauth-authorization-server",
  "/.well-known/oauth-authorization-server/mcp",
  "/.well-known/openid-configuration",
  "/.well-known/openid-configuration/mcp",
  "/mcp/.well-known/openid-configuration",
  "/mcp/.well-known/oauth-authorization-server",
  "/authorize",
  "/token",
  "/register",
];

describe("OAuth discovery against a static bearer token", () => {
  it.each(PROBES)("%s answers 404 with JSON saying how to send the token", async (path) => {
    for (const method of ["GET", "POST"]) {
      const res = await fetch(new URL(path, url), { method });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("application/json");
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({
        error: "oauth_not_supported",
        error_description:
          'This server uses a static bearer token, not OAuth: send the header Authorization: Bearer <the value of its MCP_HTTP_TOKEN>, set in your client\'s configuration (e.g. "headers" of the server entry).',
        authentication: "static_bearer_token",
        header: "Authorization: Bearer <token>",
        endpoint: "/mcp",
        path,
      });
      // Nothing a client could take for metadata, and no secret.
      expect(text).not.toMatch(/authorization_servers|authorization_endpoint|issuer|resource_metadata/);
      expect(text).not.toContain(TOKEN);
    }
  });

  it("other paths keep the plain not-found answer", async () => {
    const res = await fetch(new URL("/.well-known/security.txt", url));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { message: "Not found: the MCP endpoint is /mcp" } });
  });

  it("401 says the same, with a plain Bearer challenge (no resource_metadata)", async () => {
    const post = (headers: Record<string, string>) =>
      fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
    const none = await post({});
    expect(none.status).toBe(401);
    const challenge = none.headers.get("www-authenticate")!;
    expect(challenge).toMatch(
      /^Bearer realm="maintenance-mcp", error_description="This server uses a static bearer token, not OAuth/,
    );
    expect(challenge).not.toMatch(/resource_metadata|error=/);
    expect(((await none.json()) as { error: { message: string } }).error.message).toBe(
      'Unauthorized: no Authorization: Bearer header. This server uses a static bearer token, not OAuth: send the header Authorization: Bearer <the value of its MCP_HTTP_TOKEN>, set in your client\'s configuration (e.g. "headers" of the server entry).',
    );
    const wrong = await post({ authorization: "Bearer not-the-token" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toMatch(
      /^Bearer realm="maintenance-mcp", error="invalid_token"/,
    );
    expect(((await wrong.json()) as { error: { message: string } }).error.message).toMatch(
      /^Unauthorized: the bearer token is not this server's MCP_HTTP_TOKEN\. /,
    );
  });

  it("the MCP SDK's OAuth client ends with our instruction, and never sends the user to a sign-in page", async () => {
    let redirected = false;
    let registered: unknown;
    const provider: OAuthClientProvider = {
      get redirectUrl() {
        return "http://127.0.0.1:1/callback";
      },
      get clientMetadata() {
        return { redirect_uris: ["http://127.0.0.1:1/callback"], client_name: "oauth-capable host" };
      },
      clientInformation: () => registered as undefined,
      saveClientInformation: (info) => {
        registered = info;
      },
      tokens: () => undefined,
      saveTokens: () => {},
      redirectToAuthorization: () => {
        redirected = true;
      },
      saveCodeVerifier: () => {},
      codeVerifier: () => "verifier",
    };
    const client = new ClientV2({ name: "oauth-capable host", version: "1" });
    const error = await client
      .connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(error?.message).toContain(
      "This server uses a static bearer token, not OAuth: send the header Authorization: Bearer <the value of its MCP_HTTP_TOKEN>",
    );
    expect(redirected).toBe(false);
    expect(registered).toBeUndefined();
    expect(error?.message).not.toContain(TOKEN);
  });

  it("with the header, the same client connects", async () => {
    const client = new ClientV2({ name: "configured host", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    expect((await client.listTools()).tools).toHaveLength(5);
    await client.close();
  });

  it("the token never appears in the server's output", () => {
    expect(server.output.stderr + server.output.stdout).not.toContain(TOKEN);
  });
});

describe("an unreachable MCP_OAUTH_ISSUER (interface.md §9c)", () => {
  it("is warned about once at start, the server still starts, and a token it cannot check gets 503 with Retry-After, not 401", async () => {
    const issuer = "http://127.0.0.1:1";
    const warned =
      /"level":"warn","msg":"MCP_OAUTH_ISSUER http:\/\/127\.0\.0\.1:1 cannot be reached: no metadata for MCP_OAUTH_ISSUER \(http:\/\/127\.0\.0\.1:1\/\.well-known\/oauth-authorization-server: cannot connect;[^"]*\)\. The server runs, but no OAuth access token can be checked until it answers; run maintenance-mcp --check --http to see what it finds\."/g;
    const oauth = await startBin(
      ["--sandbox", "--http", "--port", "0"],
      cleanEnv({ MCP_OAUTH_ISSUER: issuer, MCP_PUBLIC_URL: "http://127.0.0.1:3333/mcp" }),
      /listening on (http:\S+)[\s\S]*MCP_OAUTH_ISSUER|MCP_OAUTH_ISSUER[\s\S]*listening on (http:\S+)/,
    );
    try {
      const endpoint = oauth.match[1] ?? oauth.match[2]!;
      // A JWT-shaped token: its keys cannot be read, which is no fault of the token.
      const jwtShaped = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl";
      const res = await fetch(endpoint, {
        method: "POST",
        headers: {
          authorization: `Bearer ${jwtShaped}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("10");
      expect(res.headers.get("www-authenticate")).toBeNull();
      expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
        "Service unavailable: the authorization server's keys could not be read; retry in 10 s.",
      );
      expect(oauth.output.stderr.match(warned)).toHaveLength(1);
    } finally {
      oauth.child.kill("SIGTERM");
      await once(oauth.child, "exit");
    }
    expect(oauth.output.stderr.match(warned)).toHaveLength(1);
  });
});
