/**
 * The static schemes of the HTTP edge: no authentication (loopback only, checked at start), one
 * MCP_HTTP_TOKEN (compared in constant time), or a token per tenant (MCP_TENANTS_FILE, resolved by
 * the caller's `tenantOf`). Their 401 and the OAuth discovery paths clients probe say how to send
 * the token, and nothing points at OAuth (issue 22).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Authenticator, Challenge } from "./auth.js";

type StaticMode = "token" | "tenants" | "none";

/** What a client must send, in words, for the 401 and the OAuth discovery answers. No secret. */
function howToAuthenticate(mode: StaticMode): string {
  switch (mode) {
    case "token":
      return 'This server uses a static bearer token, not OAuth: send the header Authorization: Bearer <the value of its MCP_HTTP_TOKEN>, set in your client\'s configuration (e.g. "headers" of the server entry).';
    case "tenants":
      return "This server uses static bearer tokens, one per tenant (MCP_TENANTS_FILE), not OAuth: send the header Authorization: Bearer <your tenant's token>, set in your client's configuration (e.g. \"headers\" of the server entry).";
    case "none":
      return "This server needs no authentication and does not use OAuth: connect to /mcp without an Authorization header.";
  }
}

/**
 * The paths an OAuth-capable MCP client probes after a 401 (MCP authorization, 2025-06-18 and
 * later: RFC 9728 protected-resource metadata at the root and with the endpoint path appended,
 * RFC 8414 and OpenID Connect discovery, path-inserted and path-appended), and the endpoints a
 * 2025-03-26 client falls back to without metadata (/authorize, /token, /register).
 */
const OAUTH_PROBE =
  /^(?:\/mcp)?\/\.well-known\/(?:oauth-protected-resource|oauth-authorization-server|openid-configuration)(?:\/.*)?$|^\/(?:authorize|token|register)\/?$/;

export const isOAuthProbe = (path: string): boolean => OAUTH_PROBE.test(path);

/**
 * The answer to an OAuth probe: 404 with JSON that says how to authenticate instead. 404 because
 * RFC 9728 and RFC 8414 define only a 200 as metadata: a 404 is what clients (the MCP SDKs among
 * them) read as "this server publishes no OAuth metadata", so they neither parse a document that
 * would point them at an authorization server nor retry; a 401 would ask for credentials to read
 * the metadata, a 5xx reads as an outage. `error_description` carries the instruction for clients
 * that show an OAuth error's description.
 */
function staticTokenNotice(mode: StaticMode, path: string) {
  return {
    error: "oauth_not_supported",
    error_description: howToAuthenticate(mode),
    authentication: mode === "none" ? "none" : "static_bearer_token",
    ...(mode === "none" ? {} : { header: "Authorization: Bearer <token>" }),
    endpoint: "/mcp",
    path,
  };
}

/**
 * 401 for a missing or wrong bearer token. The challenge is a plain Bearer one (RFC 6750) with no
 * resource_metadata, so nothing points the client at OAuth, and says in its description what to send.
 */
function staticRefusal(mode: StaticMode, sentBearer: boolean): Challenge {
  const description = howToAuthenticate(mode);
  const what = sentBearer
    ? mode === "tenants"
      ? "the bearer token matches no tenant of this server (MCP_TENANTS_FILE)"
      : "the bearer token is not this server's MCP_HTTP_TOKEN"
    : "no Authorization: Bearer header";
  return {
    status: 401,
    challenge: `Bearer realm="maintenance-mcp"${sentBearer ? ', error="invalid_token"' : ""}, error_description="${description.replace(/["\\]/g, "'")}"`,
    message: `Unauthorized: ${what}. ${description}`,
  };
}

/** Constant-time comparison of a presented token with the expected one. */
export function sameSecret(given: string, expected: string): boolean {
  // Hash both sides so lengths match and timing reveals nothing.
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

function staticScheme(
  mode: StaticMode,
  accepts: (bearer: string | undefined) => { tenant: string | undefined } | undefined,
): Authenticator {
  return {
    scheme: mode === "token" ? "bearer" : mode,
    authenticate({ bearer }) {
      const found = accepts(bearer);
      return found === undefined
        ? { kind: "unknown" }
        : { kind: "accepted", caller: { tenant: found.tenant } };
    },
    unauthorized: (sentBearer) => staticRefusal(mode, sentBearer),
    discovery: (path) =>
      isOAuthProbe(path) ? { status: 404, body: staticTokenNotice(mode, path) } : undefined,
  };
}

/** Every request is accepted (a loopback bind without MCP_HTTP_TOKEN). */
export const noAuthentication = (): Authenticator => staticScheme("none", () => ({ tenant: undefined }));

/** One static bearer token, MCP_HTTP_TOKEN (`reveal` gives its value at each comparison). */
export const staticTokenAuthentication = (token: { reveal(): string }): Authenticator =>
  staticScheme("token", (bearer) =>
    bearer !== undefined && sameSecret(bearer, token.reveal()) ? { tenant: undefined } : undefined,
  );

/** A token per tenant: `tenantOf` names the tenant of a token (constant time), or undefined. */
export const tenantTokenAuthentication = (
  tenantOf: (bearerToken: string | undefined) => string | undefined,
): Authenticator =>
  staticScheme("tenants", (bearer) => {
    const tenant = tenantOf(bearer);
    return tenant === undefined ? undefined : { tenant };
  });
