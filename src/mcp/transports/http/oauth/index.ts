/**
 * OAuth 2.1 resource server (interface.md §7c) as an Authenticator: a valid access token (verify.ts)
 * becomes a caller with its scopes, `sub` and `client_id`, and, with tenants, the tenant its
 * MCP_OAUTH_TENANT_CLAIM names. Discovery answers the RFC 9728 metadata (metadata.ts); every 401
 * points at it.
 * IMPORTANT: a refusal never quotes the token nor a claim's value, and a token is never logged.
 */
import type { ResourceServerConfig } from "../../../../config/config.js";
import { READ_SCOPE, WRITE_SCOPE } from "../../../caller.js";
import type { Authenticator, Refusal } from "../auth.js";
import { IssuerCache } from "./issuer.js";
import { bearerChallenge, metadataPaths, metadataUrl, protectedResourceMetadata } from "./metadata.js";
import { createVerifier, type Verification } from "./verify.js";

export { fetchIssuerMetadata, IssuerUnavailable } from "./issuer.js";
export { metadataUrl } from "./metadata.js";

export interface OAuthOptions {
  config: ResourceServerConfig;
  /** With tenants: the tenant a tenant claim's value names, or undefined. Without: undefined. */
  tenantByClaim?: (value: string) => string | undefined;
  /** Injectable for tests and the bench; default: jose against the issuer's JWKS, or introspection. */
  verify?: (token: string) => Promise<Verification>;
}

/** The refusals of this resource server: 401 invalid_token, 403 with a reason, 403 insufficient_scope, the sign-in 401. */
function refusalsOf(config: ResourceServerConfig) {
  const identity = { issuer: config.issuer, publicUrl: config.publicUrl };
  return {
    invalid: (description: string): Refusal => ({
      status: 401,
      challenge: bearerChallenge(identity, READ_SCOPE, { code: "invalid_token", description }),
      message: `Unauthorized: ${description}. Sign in again to get a new access token for ${config.publicUrl}.`,
    }),
    forbidden: (message: string): Refusal => ({
      status: 403,
      challenge: `Bearer resource_metadata="${new URL(metadataUrl(config.publicUrl)).href}", error_description="${message.replace(/["\\]/g, "'")}"`,
      message: `Forbidden: ${message}`,
    }),
    signIn: (): Refusal => ({
      status: 401,
      challenge: bearerChallenge(identity, READ_SCOPE),
      message: `Unauthorized: sign in with OAuth (the authorization server is ${config.issuer}; this server's metadata is at ${metadataUrl(config.publicUrl)}).`,
    }),
    insufficientScope(scopes: readonly string[]): Refusal {
      const needed = scopes.includes(WRITE_SCOPE) ? `${READ_SCOPE} ${WRITE_SCOPE}` : READ_SCOPE;
      const description = `this call needs the scope ${scopes.join(" ")}, which the access token does not grant`;
      return {
        status: 403,
        challenge: bearerChallenge(identity, needed, { code: "insufficient_scope", description }),
        message: `Forbidden: ${description}; sign in again and grant ${needed}.`,
      };
    },
  };
}

/**
 * With tenants: the tenant the token's MCP_OAUTH_TENANT_CLAIM names, or the 403 message (naming the
 * claim, never its value nor the tenants). Without: no tenant.
 */
export function tenantOfClaims(
  claims: Record<string, unknown>,
  claim: string | undefined,
  tenantByClaim: ((value: string) => string | undefined) | undefined,
): { tenant: string | undefined } | { refused: string } {
  if (tenantByClaim === undefined || claim === undefined) return { tenant: undefined };
  const value = claims[claim];
  if (typeof value !== "string" || value === "")
    return {
      refused: `the access token carries no "${claim}" claim (MCP_OAUTH_TENANT_CLAIM), so it names no tenant of this server; ask your administrator to add it`,
    };
  const tenant = tenantByClaim(value);
  if (tenant === undefined)
    return {
      refused: `the access token's "${claim}" claim (MCP_OAUTH_TENANT_CLAIM) names no tenant of this server; ask your administrator`,
    };
  return { tenant };
}

export function oauthAuthentication(options: OAuthOptions): Authenticator {
  const { config } = options;
  const verify =
    options.verify ??
    createVerifier({
      issuer: config.issuer,
      audience: config.publicUrl,
      issuerCache: new IssuerCache(config.issuer),
      introspection: config.introspection,
    });
  const paths = metadataPaths(config.publicUrl);
  const document = protectedResourceMetadata({ issuer: config.issuer, publicUrl: config.publicUrl });
  const refusals = refusalsOf(config);
  return {
    scheme: "oauth",
    async authenticate({ bearer }) {
      if (bearer === undefined) return { kind: "unknown" };
      const result = await verify(bearer);
      if (!result.ok) return { kind: "refused", refusal: refusals.invalid(result.reason) };
      const { subject, clientId, scopes, claims } = result.token;
      const found = tenantOfClaims(claims, config.tenantClaim, options.tenantByClaim);
      if ("refused" in found) return { kind: "refused", refusal: refusals.forbidden(found.refused) };
      const caller = {
        tenant: found.tenant,
        scopes,
        ...(subject === undefined ? {} : { subject }),
        ...(clientId === undefined ? {} : { clientId }),
      };
      return { kind: "accepted", caller };
    },
    unauthorized: (sentBearer) =>
      sentBearer ? refusals.invalid("the access token is not valid") : refusals.signIn(),
    discovery(path) {
      if (!paths.has(path)) return undefined;
      // A browser-based host (the MCP Inspector) reads the metadata across origins.
      return {
        status: 200,
        body: document,
        headers: { "access-control-allow-origin": "*", "cache-control": "max-age=3600" },
      };
    },
    insufficientScope: refusals.insufficientScope,
  };
}
