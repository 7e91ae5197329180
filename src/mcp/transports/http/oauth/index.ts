/**
 * OAuth 2.1 resource server (interface.md §7c) as an Authenticator: a valid access token (verify.ts)
 * becomes a caller with its scopes, `sub` and `client_id`, and, with tenants, the tenant its
 * MCP_OAUTH_TENANT_CLAIM names. Discovery answers the RFC 9728 metadata (metadata.ts); every 401
 * points at it.
 * IMPORTANT: a refusal never quotes the token nor a claim's value, and a token is never logged.
 */
import { createHmac, randomBytes } from "node:crypto";
import type { ResourceServerConfig } from "../../../../config/config.js";
import { READ_SCOPE } from "../../../caller.js";
import type { Authenticator, Challenge, Refusal } from "../auth.js";
import { IssuerCache } from "./issuer.js";
import { bearerChallenge, metadataPaths, metadataUrl, protectedResourceMetadata } from "./metadata.js";
import { createVerifier, type Verify } from "./verify.js";

export { fetchIssuerMetadata, IssuerUnavailable } from "./issuer.js";
export { metadataUrl } from "./metadata.js";

export interface OAuthOptions {
  config: ResourceServerConfig;
  /** With tenants: the tenant a tenant claim's value names, or undefined. Without: undefined. */
  tenantByClaim?: (value: string) => string | undefined;
  /** Injectable for tests and the bench; default: jose against the issuer's JWKS, or introspection. */
  verify?: Verify;
  /**
   * Told once, at start, when MCP_OAUTH_ISSUER cannot be reached (interface.md §9c): the server
   * still starts, and its verifier tries again on the first request.
   */
  onIssuerUnreachable?: (message: string) => void;
}

/** The start-up warning for an issuer that cannot be reached; `--check` says the same. */
export function issuerUnreachableWarning(issuer: string, problem: string): string {
  return `MCP_OAUTH_ISSUER ${issuer} cannot be reached: ${problem}. The server runs, but no OAuth access token can be checked until it answers; run maintenance-mcp --check --http to see what it finds.`;
}

/** The refusals of this resource server: 401 invalid_token, 403 with a reason, 403 insufficient_scope, the sign-in 401. */
function refusalsOf(config: ResourceServerConfig) {
  const identity = { issuer: config.issuer, publicUrl: config.publicUrl };
  return {
    invalid: (description: string): Challenge => ({
      status: 401,
      challenge: bearerChallenge(identity, READ_SCOPE, { code: "invalid_token", description }),
      message: `Unauthorized: ${description}. Sign in again to get a new access token for ${config.publicUrl}.`,
    }),
    forbidden: (message: string): Challenge => ({
      status: 403,
      challenge: `Bearer resource_metadata="${new URL(metadataUrl(config.publicUrl)).href}", error_description="${message.replace(/["\\]/g, "'")}"`,
      message: `Forbidden: ${message}`,
    }),
    /** The token could not be checked now (not its fault): 503, retry, never "sign in again". */
    unavailable: (description: string, retryAfterSeconds: number): Refusal => ({
      status: 503,
      retryAfterSeconds,
      message: `Service unavailable: ${description}; retry in ${retryAfterSeconds} s.`,
    }),
    signIn: (): Challenge => ({
      status: 401,
      challenge: bearerChallenge(identity, READ_SCOPE),
      message: `Unauthorized: sign in with OAuth (the authorization server is ${config.issuer}; this server's metadata is at ${metadataUrl(config.publicUrl)}).`,
    }),
    /**
     * The step-up challenge (MCP authorization, interface.md §9c): `scope` names what the call needs;
     * the host adds it to the scopes it already asked for and signs the user in again.
     */
    insufficientScope(scopes: readonly string[]): Challenge {
      const needed = scopes.join(" ");
      const description = `this call needs the scope ${needed}, which the access token does not grant`;
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

/**
 * The verifier: the injected one, or jose and introspection against the issuer. With
 * `onIssuerUnreachable`, the issuer's metadata is fetched now, so an unreachable one is said at start.
 */
function verifierOf(options: OAuthOptions): Verify {
  const { config, onIssuerUnreachable } = options;
  const issuerCache = new IssuerCache(config.issuer);
  if (onIssuerUnreachable !== undefined)
    void issuerCache.probe().then((problem) => {
      if (problem !== undefined) onIssuerUnreachable(issuerUnreachableWarning(config.issuer, problem));
    });
  return (
    options.verify ??
    createVerifier({
      issuer: config.issuer,
      audience: config.publicUrl,
      issuerCache,
      introspection: config.introspection,
    })
  );
}

export function oauthAuthentication(options: OAuthOptions): Authenticator {
  const { config } = options;
  const verify = verifierOf(options);
  const paths = metadataPaths(config.publicUrl);
  const document = protectedResourceMetadata({ issuer: config.issuer, publicUrl: config.publicUrl });
  const refusals = refusalsOf(config);
  // Keyed per process: the reference names one token without being a stand-in for it anywhere else.
  const refKey = randomBytes(32);
  const tokenRef = (token: string) => createHmac("sha256", refKey).update(token).digest("base64url");
  return {
    scheme: "oauth",
    async authenticate({ bearer, source }) {
      if (bearer === undefined) return { kind: "unknown" };
      const result = await verify(bearer, { source: source ?? "" });
      if (!result.ok)
        return {
          kind: "refused",
          refusal:
            result.retryAfterSeconds === undefined
              ? refusals.invalid(result.reason)
              : refusals.unavailable(result.reason, result.retryAfterSeconds),
        };
      const { subject, clientId, scopes, claims } = result.token;
      const found = tenantOfClaims(claims, config.tenantClaim, options.tenantByClaim);
      if ("refused" in found) return { kind: "refused", refusal: refusals.forbidden(found.refused) };
      const caller = {
        tenant: found.tenant,
        scopes,
        ...(subject === undefined ? {} : { subject }),
        ...(clientId === undefined ? {} : { clientId }),
        // A token that names no one owns its tasks and confirmations alone (interface.md §9c).
        ...(subject === undefined && clientId === undefined ? { tokenRef: tokenRef(bearer) } : {}),
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
