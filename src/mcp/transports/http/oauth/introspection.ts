/**
 * Opaque access tokens, by introspection (RFC 7662), bounded and fair (interface.md §9b, §9c):
 * answers kept by the token's hash (an active token until its `exp`, at most 5 minutes; a refused
 * one 30 s, in a cache of its own so that made-up tokens cannot push out the users' answers), one
 * call per token at a time, and the turns of fair-turns.ts. A request that gets no turn, or whose
 * authorization server cannot answer, is told to retry (`retryAfterSeconds`: the edge answers 503
 * with Retry-After), never that its token is bad.
 * IMPORTANT: no reason quotes the token or a claim value; nothing here logs.
 */

import { tokenClaims, type Verification, type VerifierOptions } from "./claims.js";
import { FairTurns } from "./fair-turns.js";
import { digest, TimedCache } from "./timed-cache.js";

/** An active token is remembered at most this long (interface.md §9b). */
const REMEMBER_MS = 5 * 60 * 1000;
/** A refused token is remembered this long (the negative cache). */
const REFUSAL_MS = 30 * 1000;
/** A token once seen active waits in the priority lane for this long at most (a working day). */
const KNOWN_MS = 12 * 60 * 60 * 1000;
/** What a shed request is told: retry in this many seconds. */
const SHED_RETRY_S = 2;
/** What a request is told when the authorization server cannot answer. */
const UNREACHABLE_RETRY_S = 10;

/** The first characters of a token, its lane within its address (made-up tokens share them). */
const PREFIX_LENGTH = 4;

/** Where a token came from: the client's address, for the fair turns. */
export interface TokenSource {
  source: string;
}

/** One RFC 7662 call: the token's claims, or a reason (`retryAfterSeconds`: not the token's fault, not cached). */
export async function introspectOnce(
  token: string,
  options: VerifierOptions,
  tolerance: number,
  now: () => number,
): Promise<Verification> {
  const client = options.introspection;
  if (client === undefined)
    return { ok: false, reason: "the access token is not a JWT, and token introspection is not configured" };
  const unreachable: Verification = {
    ok: false,
    reason: "the authorization server could not be reached to check the access token",
    retryAfterSeconds: UNREACHABLE_RETRY_S,
  };
  let endpoint: string | undefined;
  try {
    endpoint = (await options.issuerCache.get()).introspection_endpoint;
  } catch {
    return unreachable;
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
    if (!res.ok) {
      await res.body?.cancel();
      return {
        ...unreachable,
        reason: "the authorization server refused to introspect the token",
      };
    }
    claims = (await res.json()) as Record<string, unknown>;
  } catch {
    return unreachable;
  }
  return checkIntrospected(claims, options, now() / 1000, tolerance);
}

/**
 * Introspection as the verifier calls it: remembered answers first (active ones, then refused
 * ones), one flight per token, then a fair turn (fair-turns.ts) of at most `maxIntrospections` (8)
 * at once, waited for at most `introspectionWaitMs` (5 s).
 */
export function fairIntrospection(options: VerifierOptions, tolerance: number) {
  const now = options.now ?? Date.now;
  const active = new TimedCache<Verification>(10_000, now);
  const refused = new TimedCache<Verification>(10_000, now);
  const known = new TimedCache<true>(10_000, now);
  const pending = new Map<string, Promise<Verification>>();
  const turns = new FairTurns({ limit: options.maxIntrospections ?? 8 });
  const call = async (token: string, key: string, from: TokenSource): Promise<Verification> => {
    const request = {
      source: from.source,
      prefix: token.slice(0, PREFIX_LENGTH),
      known: known.get(key) === true,
    };
    if ((await turns.take(request, options.introspectionWaitMs ?? 5_000)) === "shed")
      return {
        ok: false,
        reason: "too many access tokens are being checked at once; your token was not refused",
        retryAfterSeconds: SHED_RETRY_S,
      };
    try {
      const result = await introspectOnce(token, options, tolerance, now);
      if (result.ok) {
        active.set(key, result, keepFor(result, now()));
        known.set(key, true, Math.min(expOf(result) ?? now(), now() + KNOWN_MS));
      } else if (result.retryAfterSeconds === undefined) refused.set(key, result, now() + REFUSAL_MS);
      return result;
    } finally {
      turns.give(request);
    }
  };
  const introspect = (token: string, from: TokenSource = { source: "" }): Promise<Verification> => {
    const key = digest(token);
    const cached = active.get(key) ?? refused.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    let flight = pending.get(key);
    if (flight === undefined) {
      flight = call(token, key, from).finally(() => pending.delete(key));
      pending.set(key, flight);
    }
    return flight;
  };
  return introspect;
}

const expOf = (result: Verification & { ok: true }) => {
  const exp = result.token.claims.exp;
  return typeof exp === "number" ? exp * 1000 : undefined;
};

/** How long an active answer is kept: until the token's exp, at most 5 minutes. */
function keepFor(result: Verification & { ok: true }, nowMs: number): number {
  return Math.min(expOf(result) ?? nowMs, nowMs + REMEMBER_MS);
}

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
