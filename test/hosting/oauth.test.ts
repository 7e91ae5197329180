/**
 * The server as an OAuth 2.1 resource server (interface.md §7c), against a REAL authorization server
 * (oidc-provider on loopback, src/sandbox/oauth-demo.ts) and the MCP SDK's own OAuth client doing
 * what a remote host does: discovery from the 401, dynamic registration, authorization code with
 * PKCE and `resource`, token, tools/call. Hostile tokens, signed with the authorization server's own
 * key where a signature is needed, all get 401 invalid_token and never reach a log line.
 */
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { generateKeyPair, importJWK, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { Secret } from "../../src/errors/secret.js";
import { idempotencyBackends } from "../../src/hosting/idempotency.js";
import { createServerSet } from "../../src/hosting/servers.js";
import { runCheck } from "../../src/main/check.js";
import { parseCli } from "../../src/main/cli.js";
import { createStateSigner } from "../../src/mcp/sdk.js";
import { selectTools } from "../../src/mcp/server.js";
import { oauthAuthentication } from "../../src/mcp/transports/http/oauth/index.js";
import { type HttpHandle, startHttp } from "../../src/mcp/transports/http.js";
import { SEED } from "../../src/sandbox/index.js";
import { type DemoAuthorizationServer, startDemoAuthorizationServer } from "../../src/sandbox/oauth-demo.js";
import { memoryProvider, signIn } from "../helpers/oauth.js";
import { captureLogger, useSandbox } from "../helpers/sandbox.js";

const fx = useSandbox();

interface Stack {
  as: DemoAuthorizationServer;
  http: HttpHandle;
  lines: string[];
  close(): Promise<void>;
}

/** The authorization server, then the MCP server whose public URL (known once listening) is the resource. */
const INTROSPECTOR = { clientId: "mcp-introspector", clientSecret: "introspector-secret-0123456789" };

async function startStack(grantedScopes?: string[], opaque = false): Promise<Stack> {
  let publicUrl = "";
  const as = await startDemoAuthorizationServer({
    resource: () => publicUrl,
    ...(grantedScopes ? { grantedScopes } : {}),
    ...(opaque ? { accessTokenFormat: "opaque" as const, introspectionClient: INTROSPECTOR } : {}),
  });
  const { logger, lines } = captureLogger("info");
  const tools = selectTools({ readOnly: false, hubAvailable: true }).tools;
  const backends = await idempotencyBackends({
    redisUrl: undefined,
    ttlMs: 60_000,
    redisTimeoutMs: 1000,
    tenants: undefined,
    logger,
  });
  const stopping = new AbortController();
  const config = loadConfig({ ...fx.sb.env({}), MMS_MAX_RETRIES: "0" });
  const serverSet = createServerSet({
    config,
    tenants: undefined,
    tools,
    sandbox: true,
    confirmWrites: false,
    logger,
    backends,
    signer: createStateSigner(),
    stopping: stopping.signal,
  });
  const http = await startHttp(serverSet.makeServer, {
    host: "127.0.0.1",
    port: 0,
    token: undefined,
    logger,
    version: "test",
    writerTools: new Set(tools.filter((t) => !t.annotations.readOnlyHint).map((t) => t.name)),
    authenticator: (url) => {
      publicUrl = url;
      return oauthAuthentication({
        config: {
          issuer: as.issuer,
          publicUrl: url,
          tenantClaim: undefined,
          introspection: opaque
            ? { clientId: INTROSPECTOR.clientId, clientSecret: new Secret(INTROSPECTOR.clientSecret) }
            : undefined,
        },
      });
    },
  });
  return {
    as,
    http,
    lines,
    async close() {
      await http.close();
      await serverSet.clients.close();
      await backends.close();
      await as.close();
    },
  };
}

/** The SDK client signs in (discovery from the 401, registration, PKCE + resource, token) and connects. */
async function signedInClient(url: string, scope?: string) {
  const provider = memoryProvider(scope);
  const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await expect(new Client({ name: "host", version: "1" }).connect(first)).rejects.toBeInstanceOf(
    UnauthorizedError,
  );
  expect(provider.authorizationUrl).toBeDefined();
  const callback = await signIn(provider.authorizationUrl!);
  await first.finishAuth(callback);
  const client = new Client({ name: "host", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
  return { client, provider };
}

const entry = (document: string) => ({
  warehouse_code: SEED.warehouses.main,
  movement_type: "purchase",
  document,
  code_user: SEED.users.withAccount,
  items: [{ code: SEED.itemCodes.sparePart, qty: 1, unit_cost: 5 }],
});

const post = (
  url: string,
  headers: Record<string, string> = {},
  body: unknown = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
) =>
  fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });

describe("OAuth resource server, full scopes", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it("publishes RFC 9728 metadata at the root and the path form; resource is the public URL byte for byte", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
    ]) {
      const res = await fetch(new URL(path, stack.http.url));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        resource: stack.http.url,
        authorization_servers: [stack.as.issuer],
        scopes_supported: ["mms:read", "mms:write"],
        bearer_methods_supported: ["header"],
        resource_name: "maintenance-mcp",
      });
    }
  });

  it("401 without a token points at the metadata by absolute URL and asks for mms:read", async () => {
    const res = await post(stack.http.url);
    expect(res.status).toBe(401);
    const origin = new URL(stack.http.url).origin;
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="mms:read"`,
    );
  });

  it("the MCP SDK's OAuth client signs in (mms:read, as the 401 asks), steps up to mms:write on a writer's 403, and writes; the audit log names sub and client_id", async () => {
    const { client, provider } = await signedInClient(stack.http.url);
    expect(provider.saved?.scope).toBe("mms:read");
    const listed = (await client.listTools()).tools.find((t) => t.name === "create_warehouse_entry");
    expect(listed?.description).toContain("Needs the OAuth scope mms:write, which your access token lacks");
    const read = await client.callTool({ name: "list_warehouse_groups_1", arguments: { limit: 1 } });
    expect(read.isError).toBeFalsy();
    // The writer is listed (interface.md §9c): the host calls it, gets the 403, and the SDK asks for more.
    provider.authorizationUrl = undefined;
    await expect(
      client.callTool({ name: "create_warehouse_entry", arguments: entry("OAUTH-1") }),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    expect(fx.sb.state.movements.filter((m) => m.movement.document === "OAUTH-1")).toHaveLength(0);
    expect((provider.authorizationUrl as URL | undefined)?.searchParams.get("scope")?.split(" ")).toEqual(
      expect.arrayContaining(["mms:read", "mms:write"]),
    );
    expect((provider.authorizationUrl as URL | undefined)?.searchParams.get("resource")).toBe(stack.http.url);
    expect((provider.authorizationUrl as URL | undefined)?.searchParams.get("code_challenge_method")).toBe(
      "S256",
    );
    await client.close();
    const stepUp = new StreamableHTTPClientTransport(new URL(stack.http.url), { authProvider: provider });
    await stepUp.finishAuth(await signIn(provider.authorizationUrl!));
    const writer = new Client({ name: "host", version: "1" });
    await writer.connect(
      new StreamableHTTPClientTransport(new URL(stack.http.url), { authProvider: provider }),
    );
    const relisted = (await writer.listTools()).tools.find((t) => t.name === "create_warehouse_entry");
    expect(relisted?.description).not.toContain("Needs the OAuth scope");
    const write = await writer.callTool({ name: "create_warehouse_entry", arguments: entry("OAUTH-1") });
    expect(write.isError).toBeFalsy();
    await writer.close();
    expect(fx.sb.state.movements.filter((m) => m.movement.document === "OAUTH-1")).toHaveLength(1);
    const token = provider.saved!.access_token;
    const audit = stack.lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((r) => r.audit === true);
    expect(audit).toMatchObject({ sub: "demo", outcome: "ok" });
    expect(typeof audit?.client_id).toBe("string");
    expect(stack.lines.join("\n")).not.toContain(token);
  });

  describe("hostile tokens: 401 invalid_token, never echoed, never logged", () => {
    const claims = () => ({ scope: "mms:read mms:write", client_id: "c", sub: "mallory" });
    const now = () => Math.floor(Date.now() / 1000);
    const sign = async (
      build: (jwt: SignJWT) => SignJWT,
      key?: Awaited<ReturnType<typeof importJWK>>,
      header: Record<string, unknown> = {},
    ) => {
      const k = key ?? (await importJWK(stack.as.signingKey as JWK, "ES256"));
      return build(new SignJWT(claims()))
        .setProtectedHeader({ alg: "ES256", kid: "demo-es256", ...header })
        .sign(k);
    };
    const valid = (jwt: SignJWT) =>
      jwt.setIssuer(stack.as.issuer).setAudience(stack.http.url).setIssuedAt().setExpirationTime("5m");

    const hostile: Record<string, () => Promise<string>> = {
      "bad signature": async () => sign(valid, (await generateKeyPair("ES256")).privateKey),
      "alg none": async () => {
        const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
        return `${b64({ alg: "none", typ: "JWT" })}.${b64({ ...claims(), iss: stack.as.issuer, aud: stack.http.url, exp: now() + 300 })}.`;
      },
      expired: () =>
        sign((j) =>
          j
            .setIssuer(stack.as.issuer)
            .setAudience(stack.http.url)
            .setIssuedAt(now() - 7200)
            .setExpirationTime(now() - 3600),
        ),
      "not yet valid": () => sign((j) => valid(j).setNotBefore(now() + 3600)),
      "another issuer": () =>
        sign((j) => j.setIssuer("https://evil.example").setAudience(stack.http.url).setExpirationTime("5m")),
      "another audience": () =>
        sign((j) =>
          j.setIssuer(stack.as.issuer).setAudience("https://other.example/mcp").setExpirationTime("5m"),
        ),
      "opaque, no introspection": async () => "opaque-token-value-0123456789",
    };

    it.each(Object.keys(hostile))("%s", async (kind) => {
      const token = await hostile[kind]!();
      const before = stack.lines.length;
      const res = await post(stack.http.url, { authorization: `Bearer ${token}` });
      expect(res.status).toBe(401);
      const challenge = res.headers.get("www-authenticate")!;
      expect(challenge).toMatch(
        /^Bearer error="invalid_token", scope="mms:read", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
      );
      const text = await res.text();
      expect(text + challenge).not.toContain(token);
      expect(stack.lines.slice(before).join("\n")).not.toContain(token);
    });

    it("a token in the query string", async () => {
      const token = await sign(valid);
      const res = await post(`${stack.http.url}?access_token=${token}`);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
      expect((await res.text()) + stack.lines.join("\n")).not.toContain(token);
    });

    it("a well-made token (same key, issuer, audience) passes: the refusals above are for their flaw", async () => {
      const res = await post(stack.http.url, { authorization: `Bearer ${await sign(valid)}` });
      expect(res.status).toBe(200);
    });
  });
});

describe("OAuth resource server, a token with mms:read only", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(["mms:read"]);
  });
  afterAll(() => stack.close());

  it("lists the writers too, saying they need mms:write; a writer call gets 403 insufficient_scope naming mms:write and writes nothing", async () => {
    const { client, provider } = await signedInClient(stack.http.url);
    const { tools } = await client.listTools();
    const description = (name: string) => tools.find((t) => t.name === name)?.description ?? "missing";
    for (const writer of ["create_warehouse_entry", "add_task_resources"])
      expect(description(writer)).toMatch(
        /\nNeeds the OAuth scope mms:write, which your access token lacks: a call is refused \(403 insufficient_scope\) and your host asks you to sign in again granting mms:write\.$/,
      );
    expect(description("list_warehouse_groups_1")).not.toContain("Needs the OAuth scope");
    await client.close();
    const before = fx.sb.state.movements.length;
    const res = await post(
      stack.http.url,
      { authorization: `Bearer ${provider.saved!.access_token}` },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "create_warehouse_entry", arguments: entry("NO") },
      },
    );
    expect(res.status).toBe(403);
    const origin = new URL(stack.http.url).origin;
    expect(res.headers.get("www-authenticate")).toMatch(
      new RegExp(
        `^Bearer error="insufficient_scope", scope="mms:write", resource_metadata="${origin}/\\.well-known/oauth-protected-resource/mcp"`,
      ),
    );
    expect(await res.json()).toMatchObject({
      error: { message: expect.stringContaining("sign in again and grant mms:write") },
    });
    expect(fx.sb.state.movements.length).toBe(before);
    expect(fx.sb.state.movements.filter((m) => m.movement.document === "NO")).toHaveLength(0);
  });
});

describe("OAuth resource server, opaque tokens (introspection, RFC 7662)", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(undefined, true);
  });
  afterAll(() => stack.close());

  it("a host's opaque token is introspected and accepted; an unknown one is refused", async () => {
    const { client, provider } = await signedInClient(stack.http.url);
    expect(provider.saved!.access_token.split(".")).toHaveLength(1);
    const read = await client.callTool({ name: "list_warehouse_groups_1", arguments: { limit: 1 } });
    expect(read.isError).toBeFalsy();
    await client.close();
    const res = await post(stack.http.url, { authorization: "Bearer not-a-token-this-server-issued" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
    expect(stack.lines.join("\n")).not.toContain(INTROSPECTOR.clientSecret);
  });
});

describe("--check --http with MCP_OAUTH_ISSUER", () => {
  it("fetches the issuer's metadata and JWKS and says what it found", async () => {
    const as = await startDemoAuthorizationServer({ resource: () => "http://127.0.0.1:3333/mcp" });
    try {
      const plan = parseCli(["--check", "--sandbox", "--http"]);
      if (plan.command !== "check") throw new Error("expected a check plan");
      const lines: string[] = [];
      const env = { MCP_OAUTH_ISSUER: as.issuer, MCP_PUBLIC_URL: "http://127.0.0.1:3333/mcp" };
      await runCheck(plan.plan, env, (line) => lines.push(line));
      const text = lines.join("\n");
      expect(text).toMatch(
        /ok {4}oauth issuer: http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-authorization-server: dynamic client registration, PKCE S256, introspection; resource http:\/\/127\.0\.0\.1:3333\/mcp, metadata http:\/\/127\.0\.0\.1:3333\/\.well-known\/oauth-protected-resource\/mcp/,
      );
      expect(text).toMatch(
        /ok {4}oauth keys: 1 signing keys at http:\/\/127\.0\.0\.1:\d+\/jwks: demo-es256 ES256/,
      );
      const down = await (async () => {
        const out: string[] = [];
        await runCheck(plan.plan, { ...env, MCP_OAUTH_ISSUER: "http://127.0.0.1:1" }, (l) => out.push(l));
        return out.join("\n");
      })();
      expect(down).toMatch(
        /FAIL {2}oauth issuer: no metadata for MCP_OAUTH_ISSUER \(http:\/\/127\.0\.0\.1:1\/\.well-known\/oauth-authorization-server: cannot connect/,
      );
    } finally {
      await as.close();
    }
  });
});
