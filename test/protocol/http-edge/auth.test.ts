import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Authenticator,
  authenticate,
  credentialsOf,
  firstOf,
  tokenInQuery,
} from "../../../src/mcp/transports/http/auth.js";
import {
  isOAuthProbe,
  noAuthentication,
  staticTokenAuthentication,
  tenantTokenAuthentication,
} from "../../../src/mcp/transports/http/static-auth.js";
import { serveStep } from "./serve-step.js";

const TOKEN = "static-token-0123456789abcdef";
const tenants = tenantTokenAuthentication((t) => (t === "north-token" ? "north" : undefined));
const single = staticTokenAuthentication({ reveal: () => TOKEN });

describe("HTTP edge step 3: authentication", () => {
  it("reads the bearer token, any case of the scheme, and a token in the query string", () => {
    const creds = (authorization?: string) =>
      credentialsOf({ headers: authorization === undefined ? {} : { authorization } } as never);
    expect(creds(`Bearer ${TOKEN}`).bearer).toBe(TOKEN);
    expect(creds(`bearer  ${TOKEN} `).bearer).toBe(TOKEN);
    expect(creds(`Basic ${TOKEN}`).bearer).toBeUndefined();
    expect(creds().bearer).toBeUndefined();
    expect(tokenInQuery("/mcp?access_token=x")).toBe(true);
    expect(tokenInQuery("/mcp?other=1")).toBe(false);
    expect(tokenInQuery("/mcp")).toBe(false);
  });

  it("each static scheme accepts its own tokens and knows nothing of others", async () => {
    expect(await single.authenticate({ bearer: TOKEN })).toEqual({
      kind: "accepted",
      caller: { tenant: undefined },
    });
    expect(await single.authenticate({ bearer: "nope" })).toEqual({ kind: "unknown" });
    expect(await tenants.authenticate({ bearer: "north-token" })).toEqual({
      kind: "accepted",
      caller: { tenant: "north" },
    });
    expect(await tenants.authenticate({ bearer: undefined })).toEqual({ kind: "unknown" });
    expect(await noAuthentication().authenticate({ bearer: undefined })).toMatchObject({ kind: "accepted" });
  });

  it("firstOf: the first to accept or refuse wins; none → the last one's 401 and discovery", async () => {
    const refusing: Authenticator = {
      scheme: "refusing",
      authenticate: ({ bearer }) =>
        bearer === undefined
          ? { kind: "unknown" }
          : {
              kind: "refused",
              refusal: { status: 401, challenge: 'Bearer error="invalid_token"', message: "no" },
            },
      unauthorized: () => ({ status: 401, challenge: "Bearer", message: "sign in" }),
      discovery: () => ({ status: 200, body: { metadata: true } }),
    };
    const both = firstOf(tenants, refusing);
    expect(both.scheme).toBe("tenants+refusing");
    expect(await both.authenticate({ bearer: "north-token" })).toMatchObject({
      kind: "accepted",
      caller: { tenant: "north" },
    });
    expect(await both.authenticate({ bearer: "other" })).toMatchObject({ kind: "refused" });
    expect(await both.authenticate({ bearer: undefined })).toEqual({ kind: "unknown" });
    expect(both.unauthorized(false).message).toBe("sign in");
    expect(both.discovery("/.well-known/oauth-protected-resource")).toEqual({
      status: 200,
      body: { metadata: true },
    });
  });

  it("static schemes answer OAuth probes with a 404 that says how to send the token", () => {
    expect(isOAuthProbe("/.well-known/oauth-protected-resource/mcp")).toBe(true);
    expect(isOAuthProbe("/register")).toBe(true);
    expect(isOAuthProbe("/.well-known/security.txt")).toBe(false);
    expect(single.discovery("/token")).toMatchObject({ status: 404, body: { error: "oauth_not_supported" } });
    expect(single.discovery("/elsewhere")).toBeUndefined();
  });

  let server: Awaited<ReturnType<typeof serveStep>>;
  beforeAll(async () => {
    server = await serveStep(async (req, res) => (await authenticate(req, res, single)) ?? "refused");
  });
  afterAll(() => server.close());

  it("the step answers 401 with the scheme's challenge, never echoing the token, and refuses a token in the URL", async () => {
    const ok = await fetch(server.url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(await ok.json()).toEqual({ passed: { tenant: undefined } });
    const wrong = await fetch(server.url, { headers: { authorization: "Bearer wrong-token-value" } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toMatch(
      /^Bearer realm="maintenance-mcp", error="invalid_token"/,
    );
    expect(await wrong.text()).not.toContain("wrong-token-value");
    const query = await fetch(`${server.url}?access_token=${TOKEN}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(query.status).toBe(401);
    expect(await query.text()).not.toContain(TOKEN);
  });
});
