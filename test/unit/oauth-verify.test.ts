/**
 * Token verification bounds (interface.md §9b): introspection answers cached by hash (refusals 30 s),
 * one call per token at a time and at most 8 at once, against the REAL authorization server
 * (oidc-provider, opaque tokens) and a purpose-built one that holds its answers; a remembered JWT is
 * dropped when its key leaves the key set, and remembered at most 5 minutes. Clocks are injected;
 * every wait is on an answer or on the fake server's event.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { Secret } from "../../src/errors/secret.js";
import { IssuerCache } from "../../src/mcp/transports/http/oauth/issuer.js";
import {
  createVerifier,
  keyMaterial,
  tokenClaims,
  VerifiedTokens,
} from "../../src/mcp/transports/http/oauth/verify.js";
import { startDemoAuthorizationServer } from "../../src/sandbox/oauth-demo.js";

const AUDIENCE = "http://127.0.0.1:1/mcp";
const INTROSPECTOR = { clientId: "mcp-introspector", clientSecret: "introspector-secret-0123456789" };
const introspection = {
  clientId: INTROSPECTOR.clientId,
  clientSecret: new Secret(INTROSPECTOR.clientSecret),
};

const servers: { close(): Promise<void> | void }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A loopback authorization server of our own: metadata, a key set we change, an introspection endpoint. */
async function fakeIssuer(
  onIntrospect?: (answer: (claims: Record<string, unknown>) => void, token: string) => void,
) {
  let keys: JWK[] = [];
  let jwksFetches = 0;
  const server: Server = createServer((req, res) => {
    const json = (body: unknown) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.url === "/.well-known/oauth-authorization-server")
      return json({ issuer, jwks_uri: `${issuer}/jwks`, introspection_endpoint: `${issuer}/introspect` });
    if (req.url === "/jwks") {
      jwksFetches++;
      return json({ keys });
    }
    if (req.url === "/introspect") {
      let body = "";
      req.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on("end", () => onIntrospect?.(json, new URLSearchParams(body).get("token") ?? ""));
      return;
    }
    res.writeHead(404).end();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  servers.push({ close: () => new Promise<void>((r) => server.close(() => r())) });
  return {
    issuer,
    setKeys: (next: JWK[]) => {
      keys = next;
    },
    jwksFetches: () => jwksFetches,
    closeAll: () => server.closeAllConnections(),
  };
}

async function signingKey(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" } };
}

describe("a removed key revokes (interface.md §9b)", () => {
  it("a remembered token is dropped once the key set no longer holds its key", async () => {
    const as = await fakeIssuer();
    const [a, b] = [await signingKey("key-a"), await signingKey("key-b")];
    as.setKeys([a.jwk]);
    const verify = createVerifier({
      issuer: as.issuer,
      audience: AUDIENCE,
      issuerCache: new IssuerCache(as.issuer),
      introspection: undefined,
      jwksCooldownMs: 0,
    });
    const sign = (key: typeof a, kid: string) =>
      new SignJWT({ sub: "u", scope: "mms:read" })
        .setProtectedHeader({ alg: "ES256", kid })
        .setIssuer(as.issuer)
        .setAudience(AUDIENCE)
        .setExpirationTime("10y") // the red team's: remembered until exp, 10 years
        .sign(key.privateKey);
    const tokenA = await sign(a, "key-a");
    expect((await verify(tokenA)).ok).toBe(true);
    expect((await verify(tokenA)).ok).toBe(true);
    expect(as.jwksFetches()).toBe(1); // the second was remembered

    // The authorization server rotates: key-a is removed. A token of key-b makes the set refetch.
    as.setKeys([b.jwk]);
    expect((await verify(await sign(b, "key-b"))).ok).toBe(true);
    expect(as.jwksFetches()).toBe(2);
    expect(await verify(tokenA)).toEqual({
      ok: false,
      reason: "the access token is signed with a key the authorization server does not publish",
    });
  });

  it("a remembered token without a kid is dropped too, once the set it was checked against changes (interface.md §9c)", async () => {
    const as = await fakeIssuer();
    const [a, b] = [await signingKey("key-a"), await signingKey("key-b")];
    const { kid: _unnamed, ...aWithoutKid } = a.jwk;
    as.setKeys([aWithoutKid]);
    const verify = createVerifier({
      issuer: as.issuer,
      audience: AUDIENCE,
      issuerCache: new IssuerCache(as.issuer),
      introspection: undefined,
      jwksCooldownMs: 0,
    });
    const tokenA = await new SignJWT({ sub: "u", scope: "mms:read" })
      .setProtectedHeader({ alg: "ES256" }) // no kid: the set is searched by algorithm
      .setIssuer(as.issuer)
      .setAudience(AUDIENCE)
      .setExpirationTime("10y")
      .sign(a.privateKey);
    expect((await verify(tokenA)).ok).toBe(true);
    expect((await verify(tokenA)).ok).toBe(true);
    expect(as.jwksFetches()).toBe(1);
    // The key that verified it leaves; the set is fetched again (a new key's kid is unknown).
    as.setKeys([b.jwk]);
    const tokenB = await new SignJWT({ sub: "v", scope: "mms:read" })
      .setProtectedHeader({ alg: "ES256", kid: "key-b" })
      .setIssuer(as.issuer)
      .setAudience(AUDIENCE)
      .setExpirationTime("5m")
      .sign(b.privateKey);
    expect((await verify(tokenB)).ok).toBe(true);
    expect(as.jwksFetches()).toBe(2);
    expect((await verify(tokenA)).ok).toBe(false);
  });

  it("a key is known by its material: a kid reused for another key does not keep the old key's tokens", () => {
    const cache = new VerifiedTokens(10, () => 1_000_000);
    const claims = tokenClaims({ sub: "s", exp: 1_000_000 / 1000 + 60 });
    cache.set("t", claims, keyMaterial({ kty: "EC", crv: "P-256", x: "old-x", y: "old-y", kid: "k" }));
    const published = new Set([keyMaterial({ kty: "EC", crv: "P-256", x: "new-x", y: "new-y", kid: "k" })]);
    expect(cache.get("t", (m) => published.has(m))).toBeUndefined();
  });

  it("a verified token is remembered at most 5 minutes, however far its exp", () => {
    let now = 1_000_000;
    const cache = new VerifiedTokens(10, () => now);
    cache.set("t", tokenClaims({ sub: "s", exp: now / 1000 + 10 * 365 * 86_400 }), "k");
    now += 5 * 60_000 - 1;
    expect(cache.get("t")?.subject).toBe("s");
    expect(cache.get("t", (material) => material !== "k")).toBeUndefined(); // its key left the set: dropped
    cache.set("t", tokenClaims({ sub: "s", exp: now / 1000 + 10 * 365 * 86_400 }), "k");
    now += 5 * 60_000;
    expect(cache.get("t")).toBeUndefined();
  });
});

describe("introspection is bounded (interface.md §9b)", () => {
  it("a made-up token sent 300 times costs one call to the real authorization server; its refusal is kept 30 s", async () => {
    const as = await startDemoAuthorizationServer({
      resource: () => AUDIENCE,
      accessTokenFormat: "opaque",
      introspectionClient: INTROSPECTOR,
    });
    servers.push(as);
    let calls = 0;
    let now = Date.now();
    const verify = createVerifier({
      issuer: as.issuer,
      audience: AUDIENCE,
      issuerCache: new IssuerCache(as.issuer),
      introspection,
      now: () => now,
      fetch: (input, init) => {
        calls++;
        return fetch(input, init);
      },
    });
    const madeUp = "made-up-opaque-token-0123456789";
    const answers = await Promise.all(Array.from({ length: 300 }, () => verify(madeUp)));
    expect(new Set(answers.map((a) => JSON.stringify(a)))).toEqual(
      new Set([JSON.stringify({ ok: false, reason: "the access token is not active (revoked or expired)" })]),
    );
    expect(calls).toBe(1);
    for (let i = 0; i < 300; i++) await verify(madeUp);
    expect(calls).toBe(1);
    now += 30_000;
    await verify(madeUp);
    expect(calls).toBe(2);
  });

  it("64 made-up tokens from one address at once: 6 calls reach the authorization server, a user signing in from another address is served at once, the flood's waiters are told to retry", async () => {
    const held: ((claims: Record<string, unknown>) => void)[] = [];
    let sixHeld!: () => void;
    const six = new Promise<void>((resolve) => {
      sixHeld = resolve;
    });
    const as = await fakeIssuer((answer, token) => {
      if (token === "user-token-0123456789") return answer({ active: true, sub: "ann", aud: AUDIENCE });
      held.push(answer);
      if (held.length === 6) sixHeld();
    });
    const verify = createVerifier({
      issuer: as.issuer,
      audience: AUDIENCE,
      issuerCache: new IssuerCache(as.issuer),
      introspection,
      introspectionWaitMs: 50,
    });
    const flood = Array.from({ length: 64 }, (_, i) =>
      verify(`made-up-${i}-0123456789`, { source: "10.0.0.66" }),
    );
    // Six of the eight turns went to the flood; the last two are kept for other addresses.
    const user = await verify("user-token-0123456789", { source: "10.0.0.7" });
    expect(user).toMatchObject({ ok: true, token: { subject: "ann" } });
    const waited = await Promise.all(flood.slice(6));
    await six;
    expect(held).toHaveLength(6); // and never a seventh, though 58 more wanted one
    expect(new Set(waited.map((a) => JSON.stringify(a)))).toEqual(
      new Set([
        JSON.stringify({
          ok: false,
          reason: "too many access tokens are being checked at once; your token was not refused",
          retryAfterSeconds: 2,
        }),
      ]),
    );
    for (const release of held.splice(0)) release({ active: false });
    const first = await Promise.all(flood.slice(0, 6));
    expect(
      first.every((a) => !a.ok && a.reason.includes("not active") && a.retryAfterSeconds === undefined),
    ).toBe(true);
  });

  it("a user whose remembered answer ran out waits in the known lane: the next free turn is theirs, not the flood's", async () => {
    const held = new Map<string, (claims: Record<string, unknown>) => void>();
    let onHeld = () => {};
    const as = await fakeIssuer((answer, token) => {
      if (token.startsWith("Zq9x")) return answer({ active: true, sub: "ann", aud: AUDIENCE, exp: 4e9 });
      held.set(token, answer);
      onHeld();
    });
    const heldAtLeast = (n: number) =>
      new Promise<void>((resolve) => {
        onHeld = () => held.size >= n && resolve();
        onHeld();
      });
    let now = 1_800_000_000_000;
    const verify = createVerifier({
      issuer: as.issuer,
      audience: AUDIENCE,
      issuerCache: new IssuerCache(as.issuer),
      introspection,
      maxIntrospections: 4,
      introspectionWaitMs: 60_000,
      now: () => now,
    });
    const user = "Zq9x-user-token-0123456789";
    expect((await verify(user, { source: "10.0.0.7" })).ok).toBe(true);
    now += 5 * 60_000 + 1; // its remembered answer runs out
    // Two addresses' made-up tokens take all 4 turns (3 and 1) and more of them wait.
    const flood = [
      ...Array.from({ length: 6 }, (_, i) => verify(`made-a-${i}-0123456789`, { source: "10.0.0.66" })),
      ...Array.from({ length: 3 }, (_, i) => verify(`made-b-${i}-0123456789`, { source: "10.0.0.99" })),
    ];
    await heldAtLeast(4);
    const again = verify(user, { source: "10.0.0.7" });
    // One turn frees. Without the known lane it would go to 10.0.0.99's next made-up token (held
    // for good), and the user would wait out its 60 s.
    held.get("made-b-0-0123456789")?.({ active: false });
    held.delete("made-b-0-0123456789");
    expect(await again).toMatchObject({ ok: true, token: { subject: "ann" } });
    const release = () => {
      for (const [token, answer] of held) {
        held.delete(token);
        answer({ active: false });
      }
    };
    onHeld = release;
    release();
    expect((await Promise.all(flood)).every((a) => !a.ok && a.retryAfterSeconds === undefined)).toBe(true);
  });
});
