/**
 * Access-token verification: a JWT with `jose` (signature by the issuer's JWKS, asymmetric
 * algorithms only so `alg: none` and HMAC-with-the-public-key never pass, `iss`, `aud` =
 * MCP_PUBLIC_URL, `exp`, `nbf`), an opaque token by introspection (RFC 7662) when a client for it is
 * configured. The answer is the token's claims or a reason in our own words.
 * IMPORTANT: no reason quotes the token or a claim value; nothing here logs.
 */
import { type TokenClaims, tokenClaims, type Verification, type VerifierOptions } from "./claims.js";
import { checkIntrospected, fairIntrospection, type TokenSource } from "./introspection.js";
import type { IssuerCache } from "./issuer.js";
import { digest, TimedCache } from "./timed-cache.js";

export type { TokenClaims, Verification, VerifierOptions };
export { checkIntrospected, tokenClaims };

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

/** A verifier: a token (and where it came from, for fair introspection turns) to its verification. */
export type Verify = (token: string, from?: TokenSource) => Promise<Verification>;

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;

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

type PublicJwk = { kid?: string; kty?: string; crv?: string; x?: string; y?: string; n?: string; e?: string };
type KeySetFunction = ((...args: never[]) => unknown) & { jwks(): { keys?: PublicJwk[] } | undefined };

/**
 * A key by its public material (RFC 7638's members), so a key is recognised with or without a `kid`,
 * and a `kid` reused for another key is not taken for the old one.
 */
export const keyMaterial = (k: PublicJwk) => JSON.stringify([k.kty, k.crv, k.x, k.y, k.n, k.e]);

/**
 * The issuer's key set (jose's remote JWKS): fetched on first use, refetched on an unknown `kid` (at
 * most once per `cooldownMs`) and when older than 5 minutes. `holds(material)`: whether the set as
 * last fetched still publishes that key (a removed key revokes what it verified, `kid` or not).
 */
export function remoteKeySet(options: { issuerCache: IssuerCache; cooldownMs?: number }) {
  let keys: Promise<KeySetFunction> | undefined;
  const get = async () => {
    keys ??= (async () => {
      const { createRemoteJWKSet } = await import("jose");
      const { jwks_uri } = await options.issuerCache.get();
      if (jwks_uri === undefined) throw new Error("the authorization server publishes no jwks_uri");
      return createRemoteJWKSet(new URL(jwks_uri), {
        cooldownDuration: options.cooldownMs ?? 60_000,
        cacheMaxAge: REMEMBER_MS,
        timeoutDuration: 5_000,
      }) as unknown as KeySetFunction;
    })().catch((error: unknown) => {
      keys = undefined;
      throw error;
    });
    return keys;
  };
  let loaded: KeySetFunction | undefined;
  // The materials of each fetched set, computed once per set.
  const materials = new WeakMap<object, Set<string>>();
  return {
    async get(): Promise<KeySetFunction> {
      loaded = await get();
      return loaded;
    },
    holds(material: string): boolean {
      const set = loaded?.jwks();
      if (set === undefined) return true;
      const known = materials.get(set) ?? new Set((set.keys ?? []).map(keyMaterial));
      materials.set(set, known);
      return known.has(material);
    },
  };
}

type KeySet = ReturnType<typeof remoteKeySet>;

const KEYS_UNREADABLE: Verification = {
  ok: false,
  reason: "the authorization server's keys could not be read",
  retryAfterSeconds: 10,
};

/** One JWT checked with jose against the key set; the material of the key that verified it, for revocation. */
export async function verifyJwt(
  token: string,
  keys: KeySet,
  options: { issuer: string; audience: string; tolerance: number },
): Promise<Verification & { material?: string }> {
  const { jwtVerify, exportJWK } = await import("jose");
  let jwks: KeySetFunction;
  try {
    jwks = await keys.get();
  } catch {
    return KEYS_UNREADABLE;
  }
  try {
    const { payload, key } = await jwtVerify(token, jwks as Parameters<typeof jwtVerify>[1], {
      issuer: options.issuer,
      audience: options.audience,
      algorithms: ALGORITHMS,
      clockTolerance: options.tolerance,
      requiredClaims: ["exp"],
    });
    const claims = tokenClaims(payload as Record<string, unknown>);
    if (key === undefined) return { ok: true, token: claims };
    return { ok: true, token: claims, material: keyMaterial(await exportJWK(key)) };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_JWKS_TIMEOUT" || code === "ERR_JWKS_INVALID") return KEYS_UNREADABLE;
    return { ok: false, reason: reasonOf(error) };
  }
}

export function createVerifier(options: VerifierOptions): Verify {
  const tolerance = options.clockToleranceSeconds ?? 5;
  const keys = remoteKeySet({
    issuerCache: options.issuerCache,
    ...(options.jwksCooldownMs === undefined ? {} : { cooldownMs: options.jwksCooldownMs }),
  });
  const verified = new VerifiedTokens(10_000, options.now ?? Date.now);
  const jwt = { issuer: options.issuer, audience: options.audience, tolerance };
  const verifyJwtOnce = async (token: string): Promise<Verification> => {
    const hit = verified.get(token, (material) => keys.holds(material));
    if (hit !== undefined) return { ok: true, token: hit };
    const result = await verifyJwt(token, keys, jwt);
    if (!result.ok) return result;
    verified.set(token, result.token, result.material);
    return { ok: true, token: result.token };
  };
  const introspect = fairIntrospection(options, tolerance);
  return (token, from) => (JWT_SHAPE.test(token) ? verifyJwtOnce(token) : introspect(token, from));
}

/** A verified token is remembered at most this long (interface.md §9b), and the key set is refetched as often. */
const REMEMBER_MS = 5 * 60 * 1000;

/**
 * JWTs already verified, by the SHA-256 of the token (never the token), until their `exp` and at most
 * 5 minutes: a host sends the same token on every request, and a signature check costs about 1 ms
 * (bench "oauth"). A token whose key the key set no longer publishes is dropped (a removed key
 * revokes, with or without a `kid`). Bounded: past `max` entries the oldest goes.
 */
export class VerifiedTokens {
  readonly #entries: TimedCache<{ token: TokenClaims; material: string | undefined }>;
  readonly #now: () => number;
  constructor(max = 10_000, now: () => number = Date.now) {
    this.#entries = new TimedCache(max, now);
    this.#now = now;
  }

  /** `holds(material)`: whether the key set still publishes the key that verified it (default: yes). */
  get(token: string, holds: (material: string) => boolean = () => true): TokenClaims | undefined {
    const key = digest(token);
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.material === undefined || holds(entry.material)) return entry.token;
    this.#entries.delete(key);
    return undefined;
  }

  set(token: string, claims: TokenClaims, material?: string): void {
    const exp = claims.claims.exp;
    if (typeof exp !== "number") return;
    this.#entries.set(
      digest(token),
      { token: claims, material },
      Math.min(exp * 1000, this.#now() + REMEMBER_MS),
    );
  }
}
