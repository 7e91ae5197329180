/**
 * What verification gives the resource server: a token's claims in the names it uses, or why the
 * token is refused; and the verifier's options. Shared by the JWT and the introspection paths.
 */
import type { Secret } from "../../../../errors/secret.js";
import type { IssuerCache } from "./issuer.js";

/** The claims the resource server uses. */
export interface TokenClaims {
  subject: string | undefined;
  clientId: string | undefined;
  scopes: string[];
  /** Every claim, for the tenant claim (MCP_OAUTH_TENANT_CLAIM). */
  claims: Record<string, unknown>;
}

/**
 * A token's claims, or why it is refused. `retryAfterSeconds`: it was not the token's fault (the
 * authorization server or its keys cannot be read, too many tokens are being checked at once): the
 * edge answers 503 with Retry-After, never a 401 that would send the user back to sign in.
 */
export type Verification =
  | { ok: true; token: TokenClaims }
  | { ok: false; reason: string; retryAfterSeconds?: number };

export interface VerifierOptions {
  issuer: string;
  audience: string;
  issuerCache: IssuerCache;
  introspection: { clientId: string; clientSecret: Secret } | undefined;
  /** Seconds of clock difference tolerated on exp and nbf (default 5). */
  clockToleranceSeconds?: number;
  /** Epoch ms (tests inject a clock); default Date.now. */
  now?: () => number;
  /** Introspection calls at once (default 8). */
  maxIntrospections?: number;
  /** How long a request waits for an introspection turn (default 5000 ms). */
  introspectionWaitMs?: number;
  /** Least time between two JWKS fetches for an unknown kid (default 60000 ms; tests: 0). */
  jwksCooldownMs?: number;
  /** The HTTP client for introspection (tests count calls); default fetch. */
  fetch?: typeof fetch;
}

/** `scope` (RFC 9068, space-separated) or `scp` (Entra: a string; Okta: an array). */
function scopesOf(claims: Record<string, unknown>): string[] {
  const raw = claims.scope ?? claims.scp;
  if (typeof raw === "string") return raw.split(" ").filter((s) => s !== "");
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === "string");
  return [];
}

const stringClaim = (claims: Record<string, unknown>, ...names: string[]) => {
  for (const name of names) if (typeof claims[name] === "string") return claims[name] as string;
  return undefined;
};

export function tokenClaims(claims: Record<string, unknown>): TokenClaims {
  return {
    subject: stringClaim(claims, "sub"),
    // RFC 9068 names it client_id; OpenID Connect azp; Entra v1 appid.
    clientId: stringClaim(claims, "client_id", "azp", "appid"),
    scopes: scopesOf(claims),
    claims,
  };
}
