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
import { createVerifier, tokenClaims, VerifiedTokens } from "../../src/mcp/transports/http/oauth/verify.js";
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
async function fakeIssuer(onIntrospect?: (answer: (claims: Record<string, unknown>) => void) => void) {
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
    if (req.url === "/introspect") return onIntrospect?.(json);
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

  it("a verified token is remembered at most 5 minutes, however far its exp", () => {
    let now = 1_000_000;
    const cache = new VerifiedTokens(10, () => now);
    cache.set("t", tokenClaims({ sub: "s", exp: now / 1000 + 10 * 365 * 86_400 }), "k");
    now += 5 * 60_000 - 1;
    expect(cache.get("t")?.subject).toBe("s");
    expect(cache.get("t", (kid) => kid !== "k")).toBeUndefined(); // its key left the set: dropped
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

  it("64 different made-up tokens at once: 8 calls reach the authorization server, the rest wait their turn and are refused past it", async () => {
    const held: ((claims: Record<string, unknown>) => void)[] = [];
    let eightArrived!: () => void;
    const arrived = new Promise<void>((resolve) => {
      eightArrived = resolve;
    });
    const as = await fakeIssuer((answer) => {
      held.push(answer);
      if (held.length === 8) eightArrived();
    });
    const verify = createVerifier({
      issuer: as.issuer,
      audience: AUDIENCE,
      issuerCache: new IssuerCache(as.issuer),
      introspection,
      introspectionWaitMs: 50,
    });
    const all = Array.from({ length: 64 }, (_, i) => verify(`made-up-${i}-0123456789`));
    // The first 8 took the turns; the other 56 wait, and are refused once their wait is over.
    const waited = await Promise.all(all.slice(8));
    await arrived;
    expect(held).toHaveLength(8); // and never a ninth, though 56 more wanted one
    expect(new Set(waited.map((a) => (a.ok ? "ok" : a.reason)))).toEqual(
      new Set(["too many access tokens are being checked at once; try again shortly"]),
    );
    for (const release of held.splice(0)) release({ active: false });
    const first = await Promise.all(all.slice(0, 8));
    expect(first.every((a) => !a.ok && a.reason.includes("not active"))).toBe(true);
  });
});
