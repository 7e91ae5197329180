/**
 * Access-token verification: a JWT with `jose` (signature by the issuer's JWKS, asymmetric
 * algorithms only so `alg: none` and HMAC-with-the-public-key never pass, `iss`, `aud` =
 * MCP_PUBLIC_URL, `exp`, `nbf`), an opaque token by introspection (RFC 7662) when a client for it is
 * configured. The answer is the token's claims or a reason in our own words.
 * IMPORTANT: no reason quotes the token or a claim value; nothing here logs.
 */
import { createHash } from "node:crypto";
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

export type Verification = { ok: true; token: TokenClaims } | { ok: false; reason: string };

export interface VerifierOptions {
  issuer: string;
  audience: string;
  issuerCache: IssuerCache;
  introspection: { clientId: string; clientSecret: Secret } | undefined;
  /** Seconds of clock difference tolerated on exp and nbf (default 5). */
  clockToleranceSeconds?: number;
}

/** Signature algorithms accepted: asymmetric only (the key set is public). */
const ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;

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

/** jose's error codes, in our words (never its message: it may quote a claim). */
function reasonOf(error: unknown): string {
  const code = (error as { code?: string }).code;
  const claim = (error as { claim?: string }).claim;
  switch (code) {
    case "ERR_JWT_EXPIRED":
      return "the access token has expired";
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      if (claim === "nbf") return "the access token is not valid yet (nbf)";
      if (claim === "iss") return "the access token was issued by another authorization server";
      if (claim === "aud")
        return "the access token is for another resource (its audience is not this server's URL)";
      return "the access token's claims are not valid";
    case "ERR_JOSE_ALG_NOT_ALLOWED":
    case "ERR_JOSE_NOT_SUPPORTED":
      return "the access token's signature algorithm is not accepted";
    case "ERR_JWKS_NO_MATCHING_KEY":
      return "the access token is signed with a key the authorization server does not publish";
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return "the access token's signature is not valid";
    case "ERR_JWKS_TIMEOUT":
    case "ERR_JWKS_INVALID":
      return "the authorization server's keys could not be read";
    default:
      return "the access token is malformed";
  }
}

export function createVerifier(options: VerifierOptions): (token: string) => Promise<Verification> {
  const tolerance = options.clockToleranceSeconds ?? 5;
  let keys: Promise<(...args: never[]) => unknown> | undefined;
  const keySet = async () => {
    keys ??= (async () => {
      const { createRemoteJWKSet } = await import("jose");
      const { jwks_uri } = await options.issuerCache.get();
      if (jwks_uri === undefined) throw new Error("the authorization server publishes no jwks_uri");
      // Cached; an unknown kid refetches the set, at most once a minute.
      return createRemoteJWKSet(new URL(jwks_uri), { cooldownDuration: 60_000, timeoutDuration: 5_000 });
    })().catch((error: unknown) => {
      keys = undefined;
      throw error;
    });
    return keys;
  };

  const verifyJwt = async (token: string): Promise<Verification> => {
    const { jwtVerify } = await import("jose");
    let jwks: Awaited<ReturnType<typeof keySet>>;
    try {
      jwks = await keySet();
    } catch {
      return { ok: false, reason: "the authorization server's keys could not be read; try again shortly" };
    }
    try {
      const { payload } = await jwtVerify(token, jwks as Parameters<typeof jwtVerify>[1], {
        issuer: options.issuer,
        audience: options.audience,
        algorithms: ALGORITHMS,
        clockTolerance: tolerance,
        requiredClaims: ["exp"],
      });
      return { ok: true, token: tokenClaims(payload as Record<string, unknown>) };
    } catch (error) {
      return { ok: false, reason: reasonOf(error) };
    }
  };

  const introspect = async (token: string): Promise<Verification> => {
    const client = options.introspection;
    if (client === undefined)
      return {
        ok: false,
        reason: "the access token is not a JWT, and token introspection is not configured",
      };
    let endpoint: string | undefined;
    try {
      endpoint = (await options.issuerCache.get()).introspection_endpoint;
    } catch {
      return { ok: false, reason: "the authorization server could not be reached; try again shortly" };
    }
    if (endpoint === undefined)
      return { ok: false, reason: "the authorization server offers no introspection" };
    const basic = Buffer.from(
      `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret.reveal())}`,
    ).toString("base64");
    let claims: Record<string, unknown>;
    try {
      const res = await fetch(endpoint, {
        method: "POST",
        headers: {
          authorization: `Basic ${basic}`,
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
        signal: AbortSignal.timeout(5_000),
      });
      if (!res.ok) return { ok: false, reason: "the authorization server refused to introspect the token" };
      claims = (await res.json()) as Record<string, unknown>;
    } catch {
      return { ok: false, reason: "the authorization server could not be reached; try again shortly" };
    }
    return checkIntrospected(claims, options, Date.now() / 1000, tolerance);
  };

  const verified = new VerifiedTokens();
  const verifyJwtOnce = async (token: string): Promise<Verification> => {
    const hit = verified.get(token);
    if (hit !== undefined) return { ok: true, token: hit };
    const result = await verifyJwt(token);
    if (result.ok) verified.set(token, result.token);
    return result;
  };

  return (token) => (JWT_SHAPE.test(token) ? verifyJwtOnce(token) : introspect(token));
}

/**
 * JWTs already verified, by the SHA-256 of the token (never the token), until their `exp`: a host
 * sends the same token on every request, and a signature check costs about 1 ms (bench "oauth").
 * Bounded: past `max` entries the oldest goes. A JWT cannot be revoked before its exp anyway.
 */
export class VerifiedTokens {
  readonly #entries = new Map<string, { token: TokenClaims; expiresAt: number }>();
  constructor(
    private readonly max = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(token: string): TokenClaims | undefined {
    const key = digest(token);
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.now() < entry.expiresAt) return entry.token;
    this.#entries.delete(key);
    return undefined;
  }

  set(token: string, claims: TokenClaims): void {
    const exp = claims.claims.exp;
    if (typeof exp !== "number") return;
    if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(digest(token), { token: claims, expiresAt: exp * 1000 });
  }
}

const digest = (token: string) => createHash("sha256").update(token).digest("base64url");

/** An introspection answer (RFC 7662 §2.2) held to the same rules as a JWT. */
export function checkIntrospected(
  claims: Record<string, unknown>,
  options: { issuer: string; audience: string },
  nowSeconds: number,
  tolerance: number,
): Verification {
  if (claims.active !== true)
    return { ok: false, reason: "the access token is not active (revoked or expired)" };
  if (typeof claims.exp === "number" && claims.exp + tolerance < nowSeconds)
    return { ok: false, reason: "the access token has expired" };
  if (typeof claims.nbf === "number" && claims.nbf - tolerance > nowSeconds)
    return { ok: false, reason: "the access token is not valid yet (nbf)" };
  if (claims.iss !== undefined && claims.iss !== options.issuer)
    return { ok: false, reason: "the access token was issued by another authorization server" };
  // The audience must be this server (RFC 8707): a token for another resource is never accepted.
  const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!aud.includes(options.audience))
    return {
      ok: false,
      reason: "the access token is for another resource (its audience is not this server's URL)",
    };
  return { ok: true, token: tokenClaims(claims) };
}
