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

type KeySetFunction = ((...args: never[]) => unknown) & { jwks(): { keys?: { kid?: string }[] } | undefined };

/**
 * The issuer's key set (jose's remote JWKS): fetched on first use, refetched on an unknown `kid` (at
 * most once per `cooldownMs`) and when older than 5 minutes. `holds(kid)`: whether the set as last
 * fetched still publishes that key (a removed key revokes what it verified).
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
  return {
    async get(): Promise<KeySetFunction> {
      loaded = await get();
      return loaded;
    },
    holds(kid: string | undefined): boolean {
      const set = loaded?.jwks();
      if (kid === undefined || set === undefined) return true;
      return (set.keys ?? []).some((k) => k.kid === kid);
    },
  };
}

type KeySet = ReturnType<typeof remoteKeySet>;

/** One JWT checked with jose against the key set; the `kid` that verified it, for revocation. */
export async function verifyJwt(
  token: string,
  keys: KeySet,
  options: { issuer: string; audience: string; tolerance: number },
): Promise<Verification & { kid?: string | undefined }> {
  const { jwtVerify } = await import("jose");
  let jwks: KeySetFunction;
  try {
    jwks = await keys.get();
  } catch {
    return { ok: false, reason: "the authorization server's keys could not be read; try again shortly" };
  }
  try {
    const { payload, protectedHeader } = await jwtVerify(token, jwks as Parameters<typeof jwtVerify>[1], {
      issuer: options.issuer,
      audience: options.audience,
      algorithms: ALGORITHMS,
      clockTolerance: options.tolerance,
      requiredClaims: ["exp"],
    });
    return { ok: true, token: tokenClaims(payload as Record<string, unknown>), kid: protectedHeader.kid };
  } catch (error) {
    return { ok: false, reason: reasonOf(error) };
  }
}

/** One RFC 7662 call: the token's claims, or a reason (`transient`: not the token's fault, not cached). */
export async function introspectOnce(
  token: string,
  options: VerifierOptions,
  tolerance: number,
  now: () => number,
): Promise<Verification & { transient?: boolean }> {
  const client = options.introspection;
  if (client === undefined)
    return { ok: false, reason: "the access token is not a JWT, and token introspection is not configured" };
  let endpoint: string | undefined;
  try {
    endpoint = (await options.issuerCache.get()).introspection_endpoint;
  } catch {
    return {
      ok: false,
      transient: true,
      reason: "the authorization server could not be reached; try again shortly",
    };
  }
  if (endpoint === undefined)
    return { ok: false, reason: "the authorization server offers no introspection" };
  const basic = Buffer.from(
    `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret.reveal())}`,
  ).toString("base64");
  let claims: Record<string, unknown>;
  try {
    const res = await (options.fetch ?? fetch)(endpoint, {
      method: "POST",
      headers: {
        authorization: `Basic ${basic}`,
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
      signal: AbortSignal.timeout(5_000),
    });
    if (!res.ok)
      return {
        ok: false,
        transient: true,
        reason: "the authorization server refused to introspect the token",
      };
    claims = (await res.json()) as Record<string, unknown>;
  } catch {
    return {
      ok: false,
      transient: true,
      reason: "the authorization server could not be reached; try again shortly",
    };
  }
  return checkIntrospected(claims, options, now() / 1000, tolerance);
}

/**
 * Introspection, bounded (interface.md §9b): answers cached by the token's hash until its `exp` (at
 * most 5 minutes; refusals 30 s), one call per token at a time, at most `maxIntrospections` (8) calls
 * at once; the rest wait up to `introspectionWaitMs` (5 s) for a turn, then are refused.
 */
export function boundedIntrospection(options: VerifierOptions, tolerance: number) {
  const now = options.now ?? Date.now;
  const answers = new TimedCache<Verification>(10_000, now);
  const pending = new Map<string, Promise<Verification>>();
  const turns = new Turns(options.maxIntrospections ?? 8);
  const call = async (token: string, key: string): Promise<Verification> => {
    if (!(await turns.take(options.introspectionWaitMs ?? 5_000)))
      return { ok: false, reason: "too many access tokens are being checked at once; try again shortly" };
    try {
      const result = await introspectOnce(token, options, tolerance, now);
      if (!("transient" in result && result.transient)) answers.set(key, result, keepFor(result, now()));
      return result;
    } finally {
      turns.give();
    }
  };
  return (token: string): Promise<Verification> => {
    const key = digest(token);
    const cached = answers.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    let flight = pending.get(key);
    if (flight === undefined) {
      flight = call(token, key).finally(() => pending.delete(key));
      pending.set(key, flight);
    }
    return flight;
  };
}

/** How long an introspection answer is kept: an accepted token until its exp, at most 5 min; a refusal 30 s. */
function keepFor(result: Verification, nowMs: number): number {
  if (!result.ok) return nowMs + REFUSAL_MS;
  const exp = result.token.claims.exp;
  return Math.min(typeof exp === "number" ? exp * 1000 : nowMs, nowMs + REMEMBER_MS);
}

export function createVerifier(options: VerifierOptions): (token: string) => Promise<Verification> {
  const tolerance = options.clockToleranceSeconds ?? 5;
  const keys = remoteKeySet({
    issuerCache: options.issuerCache,
    ...(options.jwksCooldownMs === undefined ? {} : { cooldownMs: options.jwksCooldownMs }),
  });
  const verified = new VerifiedTokens(10_000, options.now ?? Date.now);
  const jwt = { issuer: options.issuer, audience: options.audience, tolerance };
  const verifyJwtOnce = async (token: string): Promise<Verification> => {
    const hit = verified.get(token, (kid) => keys.holds(kid));
    if (hit !== undefined) return { ok: true, token: hit };
    const result = await verifyJwt(token, keys, jwt);
    if (!result.ok) return result;
    verified.set(token, result.token, result.kid);
    return { ok: true, token: result.token };
  };
  const introspect = boundedIntrospection(options, tolerance);
  return (token) => (JWT_SHAPE.test(token) ? verifyJwtOnce(token) : introspect(token));
}

/** A verified token is remembered at most this long (interface.md §9b), and the key set is refetched as often. */
const REMEMBER_MS = 5 * 60 * 1000;
/** An introspection refusal is remembered this long. */
const REFUSAL_MS = 30 * 1000;

/** Entries by key until their own time, bounded: past `max` entries the oldest goes. */
class TimedCache<T> {
  readonly #entries = new Map<string, { value: T; until: number }>();
  constructor(
    private readonly max: number,
    private readonly now: () => number,
  ) {}
  get(key: string): T | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.now() < entry.until) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }
  delete(key: string): void {
    this.#entries.delete(key);
  }
  set(key: string, value: T, until: number): void {
    if (until <= this.now()) return;
    this.#entries.delete(key);
    if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { value, until });
  }
}

/** At most `limit` holders at once; the rest wait in order, each up to its own time. */
class Turns {
  #free: number;
  readonly #waiting: ((got: boolean) => void)[] = [];
  constructor(limit: number) {
    this.#free = limit;
  }
  take(waitMs: number): Promise<boolean> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const at = this.#waiting.indexOf(wake);
        if (at !== -1) this.#waiting.splice(at, 1);
        resolve(false);
      }, waitMs);
      const wake = (got: boolean) => {
        clearTimeout(timer);
        resolve(got);
      };
      this.#waiting.push(wake);
    });
  }
  give(): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next(true);
    else this.#free++;
  }
}

/**
 * JWTs already verified, by the SHA-256 of the token (never the token), until their `exp` and at most
 * 5 minutes: a host sends the same token on every request, and a signature check costs about 1 ms
 * (bench "oauth"). A token whose key the key set no longer publishes is dropped (a removed key
 * revokes). Bounded: past `max` entries the oldest goes.
 */
export class VerifiedTokens {
  readonly #entries: TimedCache<{ token: TokenClaims; kid: string | undefined }>;
  readonly #now: () => number;
  constructor(max = 10_000, now: () => number = Date.now) {
    this.#entries = new TimedCache(max, now);
    this.#now = now;
  }

  /** `holds(kid)`: whether the key set still publishes the key that verified it (default: yes). */
  get(token: string, holds: (kid: string | undefined) => boolean = () => true): TokenClaims | undefined {
    const key = digest(token);
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (holds(entry.kid)) return entry.token;
    this.#entries.delete(key);
    return undefined;
  }

  set(token: string, claims: TokenClaims, kid?: string): void {
    const exp = claims.claims.exp;
    if (typeof exp !== "number") return;
    this.#entries.set(digest(token), { token: claims, kid }, Math.min(exp * 1000, this.#now() + REMEMBER_MS));
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
