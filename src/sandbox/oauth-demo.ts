/**
 * A demo OAuth 2.1 / OpenID authorization server on loopback (`--sandbox --http --oauth-demo`, and
 * the tests' real authorization server): oidc-provider with dynamic client registration, PKCE
 * (required), resource indicators (RFC 8707: the one resource is the MCP endpoint, tokens are JWTs
 * whose audience it is), introspection, and one demo user, `demo`, signing in on the library's
 * development pages (any password). Loaded on demand: a start without --oauth-demo never loads it.
 * IMPORTANT: a demonstration only: in-memory, development interactions, loopback.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export const DEMO_USER = "demo";
export const DEMO_SCOPES = ["mms:read", "mms:write"] as const;

export interface DemoAuthorizationServerOptions {
  host?: string;
  port?: number;
  /** The MCP endpoint (MCP_PUBLIC_URL): the one resource tokens are issued for. A function: known after listen. */
  resource: () => string;
  /** Scopes the demo user grants (default both). */
  grantedScopes?: readonly string[];
  /** Claims added to every access token (e.g. a tenant claim). */
  extraClaims?: Record<string, unknown>;
  /** "opaque": access tokens the resource server must introspect (default "jwt"). */
  accessTokenFormat?: "jwt" | "opaque";
  /** A confidential client allowed to introspect tokens (MCP_OAUTH_INTROSPECTION_CLIENT_ID/_SECRET). */
  introspectionClient?: { clientId: string; clientSecret: string };
  /** The signing key as a private JWK (with kid and alg); default a fresh ES256 key. */
  signingKey?: Record<string, unknown>;
}

export interface DemoAuthorizationServer {
  issuer: string;
  /** The private signing key (the tests sign hostile tokens with it). */
  signingKey: Record<string, unknown>;
  close(): Promise<void>;
}

async function freshKey(): Promise<Record<string, unknown>> {
  const { generateKeyPair, exportJWK } = await import("jose");
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: "demo-es256", alg: "ES256", use: "sig" };
}

/**
 * Dynamic registration without the client's `scope`: a registered scope would cap the client, and a
 * host that registered while asking for mms:read could never step up to mms:write (the MCP step-up
 * flow). The body is handed on parsed, as the library accepts it.
 */
async function registerUncapped(
  req: IncomingMessage,
  res: ServerResponse,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    const metadata = JSON.parse(text) as Record<string, unknown>;
    delete metadata.scope;
    (req as IncomingMessage & { body?: unknown }).body = JSON.stringify(metadata);
  } catch {
    (req as IncomingMessage & { body?: unknown }).body = text;
  }
  handle(req, res);
}

export async function startDemoAuthorizationServer(
  options: DemoAuthorizationServerOptions,
): Promise<DemoAuthorizationServer> {
  const { default: Provider, errors } = await import("oidc-provider");
  const signingKey = options.signingKey ?? (await freshKey());
  const host = options.host ?? "127.0.0.1";
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://${host}:${port}`;
  const granted = (options.grantedScopes ?? DEMO_SCOPES).join(" ");
  const provider = new Provider(issuer, {
    clients: options.introspectionClient
      ? [
          {
            client_id: options.introspectionClient.clientId,
            client_secret: options.introspectionClient.clientSecret,
            grant_types: [],
            response_types: [],
            redirect_uris: [],
          },
        ]
      : [],
    jwks: { keys: [signingKey as never] },
    scopes: ["openid", "offline_access", ...DEMO_SCOPES],
    claims: { openid: ["sub"] },
    pkce: { required: () => true },
    // The one key's algorithm for ID tokens too (the library's default, RS256, needs an RSA key).
    clientDefaults: {
      grant_types: ["authorization_code"],
      id_token_signed_response_alg: String(signingKey.alg ?? "ES256"),
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    },
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.resource(),
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (indicator !== options.resource()) throw new errors.InvalidTarget();
          return {
            scope: granted,
            audience: options.resource(),
            accessTokenFormat: options.accessTokenFormat ?? "jwt",
            accessTokenTTL: 3600,
            jwt: { sign: { alg: String(signingKey.alg ?? "ES256") as "ES256" } },
          };
        },
      },
    },
    // One demo user; any other login is asked again.
    findAccount: (_ctx: unknown, id: string) =>
      id === DEMO_USER ? { accountId: id, claims: () => ({ sub: id }) } : undefined,
    extraTokenClaims: () => options.extraClaims,
    ttl: { AccessToken: 3600, AuthorizationCode: 120, Interaction: 600, Session: 3600, Grant: 3600 },
  });
  // The library's own warnings (development interactions) are for its developers, not our stdout.
  provider.on("server_error", () => {});
  const handle = provider.callback();
  server.on("request", (req, res) => {
    if (req.method === "POST" && req.url === "/reg") void registerUncapped(req, res, handle);
    else handle(req, res);
  });
  return {
    issuer,
    signingKey,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
