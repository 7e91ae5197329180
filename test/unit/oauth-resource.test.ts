import { describe, expect, it } from "vitest";
import { firstOf } from "../../src/mcp/transports/http/auth.js";
import { oauthAuthentication } from "../../src/mcp/transports/http/oauth/index.js";
import { discoveryUrls } from "../../src/mcp/transports/http/oauth/issuer.js";
import { bearerChallenge, metadataPaths, metadataUrl } from "../../src/mcp/transports/http/oauth/metadata.js";
import {
  checkIntrospected,
  tokenClaims,
  VerifiedTokens,
} from "../../src/mcp/transports/http/oauth/verify.js";
import { tenantTokenAuthentication } from "../../src/mcp/transports/http/static-auth.js";

const identity = { issuer: "https://auth.example.com", publicUrl: "https://mcp.example.com/mcp" };

describe("OAuth resource server, pure parts", () => {
  it("the metadata URL is the path form of MCP_PUBLIC_URL; both forms are served", () => {
    expect(metadataUrl("https://mcp.example.com/mcp")).toBe(
      "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
    );
    expect(metadataUrl("https://mcp.example.com/")).toBe(
      "https://mcp.example.com/.well-known/oauth-protected-resource",
    );
    expect([...metadataPaths("https://mcp.example.com/team/mcp")]).toEqual([
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource/team/mcp",
    ]);
  });

  it("challenges: sign-in, invalid token, insufficient scope", () => {
    const md = 'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"';
    expect(bearerChallenge(identity, "mms:read")).toBe(`Bearer ${md}, scope="mms:read"`);
    expect(
      bearerChallenge(identity, "mms:read", { code: "invalid_token", description: 'a "quoted" reason' }),
    ).toBe(`Bearer error="invalid_token", scope="mms:read", ${md}, error_description="a 'quoted' reason"`);
    expect(
      bearerChallenge(identity, "mms:read mms:write", { code: "insufficient_scope", description: "d" }),
    ).toMatch(/^Bearer error="insufficient_scope", scope="mms:read mms:write", resource_metadata=/);
  });

  it("issuer discovery URLs: RFC 8414 path-inserted, then OpenID Connect", () => {
    expect(discoveryUrls("https://auth.example.com/realms/x")).toEqual([
      "https://auth.example.com/.well-known/oauth-authorization-server/realms/x",
      "https://auth.example.com/.well-known/openid-configuration/realms/x",
      "https://auth.example.com/realms/x/.well-known/openid-configuration",
    ]);
  });

  it("reads scope (RFC 9068), scp as a string (Entra) or an array (Okta), and client_id, azp or appid", () => {
    expect(tokenClaims({ scope: "mms:read  mms:write", client_id: "c", sub: "s" })).toMatchObject({
      scopes: ["mms:read", "mms:write"],
      clientId: "c",
      subject: "s",
    });
    expect(tokenClaims({ scp: "mms:read", azp: "a" })).toMatchObject({ scopes: ["mms:read"], clientId: "a" });
    expect(tokenClaims({ scp: ["mms:write"], appid: "e" })).toMatchObject({
      scopes: ["mms:write"],
      clientId: "e",
    });
  });

  it.each([
    [{ active: false }, "the access token is not active (revoked or expired)"],
    [{ active: true, aud: "https://mcp.example.com/mcp", exp: 50 }, "the access token has expired"],
    [
      { active: true, aud: "https://mcp.example.com/mcp", nbf: 2000 },
      "the access token is not valid yet (nbf)",
    ],
    [
      { active: true, aud: "https://mcp.example.com/mcp", iss: "https://evil" },
      "the access token was issued by another authorization server",
    ],
    [
      { active: true, aud: "https://mcp.example.com/mcp/" },
      "the access token is for another resource (its audience is not this server's URL)",
    ],
    [{ active: true }, "the access token is for another resource (its audience is not this server's URL)"],
  ])("introspection %j → %s", (claims, reason) => {
    expect(
      checkIntrospected(claims, { issuer: identity.issuer, audience: identity.publicUrl }, 1000, 5),
    ).toEqual({ ok: false, reason });
  });

  it("an active introspected token for this resource passes", () => {
    const out = checkIntrospected(
      { active: true, aud: [identity.publicUrl], scope: "mms:read", sub: "u" },
      { issuer: identity.issuer, audience: identity.publicUrl },
      1000,
      5,
    );
    expect(out).toMatchObject({ ok: true, token: { subject: "u", scopes: ["mms:read"] } });
  });

  it("verified JWTs are kept until their exp, bounded, by hash", () => {
    let now = 1_000_000;
    const cache = new VerifiedTokens(2, () => now);
    const claims = (exp: number) => tokenClaims({ exp, sub: "s" });
    cache.set("a", claims(1_001));
    expect(cache.get("a")?.subject).toBe("s");
    now = 1_001_000;
    expect(cache.get("a")).toBeUndefined();
    now = 0;
    cache.set("b", claims(5));
    cache.set("c", claims(5));
    cache.set("d", claims(5));
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("d")?.subject).toBe("s");
    cache.set("no-exp", tokenClaims({ sub: "x" }));
    expect(cache.get("no-exp")).toBeUndefined();
  });
});

describe("oauthAuthentication: tenants by claim, beside the tenants' static tokens", () => {
  const config = {
    issuer: identity.issuer,
    publicUrl: identity.publicUrl,
    tenantClaim: "org_id",
    introspection: undefined,
  };
  const verify = async (token: string) =>
    token === "bad"
      ? ({ ok: false, reason: "the access token has expired" } as const)
      : ({ ok: true, token: tokenClaims(JSON.parse(token) as Record<string, unknown>) } as const);
  const oauth = oauthAuthentication({
    config,
    tenantByClaim: (value) => (value === "org-1" ? "north" : undefined),
    verify,
  });
  const both = firstOf(
    tenantTokenAuthentication((t) => (t === "south-static-token" ? "south" : undefined)),
    oauth,
  );

  it("the claim picks the tenant; no claim or an unknown value gets 403 naming the claim, not the tenants", async () => {
    expect(
      await both.authenticate({
        bearer: JSON.stringify({ org_id: "org-1", sub: "ann", client_id: "c", scope: "mms:read" }),
      }),
    ).toEqual({
      kind: "accepted",
      caller: { tenant: "north", scopes: ["mms:read"], subject: "ann", clientId: "c" },
    });
    for (const claims of [{ sub: "ann" }, { org_id: "org-9", sub: "ann" }]) {
      const out = await both.authenticate({ bearer: JSON.stringify(claims) });
      expect(out.kind).toBe("refused");
      if (out.kind !== "refused") continue;
      expect(out.refusal.status).toBe(403);
      expect(out.refusal.message).toContain('"org_id" claim (MCP_OAUTH_TENANT_CLAIM)');
      expect(out.refusal.message).not.toMatch(/north|south|org-9/);
    }
  });

  it("a tenant's static token still works beside OAuth; anything else is OAuth's to refuse", async () => {
    expect(await both.authenticate({ bearer: "south-static-token" })).toEqual({
      kind: "accepted",
      caller: { tenant: "south" },
    });
    const bad = await both.authenticate({ bearer: "bad" });
    expect(bad).toMatchObject({ kind: "refused", refusal: { status: 401 } });
    expect(both.unauthorized(false).challenge).toBe(
      'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mms:read"',
    );
  });
});
