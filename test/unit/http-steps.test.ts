/**
 * The named steps of issue 33's splits, each on its own: who reads /healthz (healthViewer, of
 * startHttp's pipeline) and the tenant an OAuth token names (tenantOfClaims, of oauthAuthentication).
 */
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { Secret } from "../../src/errors/secret.js";
import { tenantOfClaims } from "../../src/mcp/transports/http/oauth/index.js";
import {
  firstOf,
  healthViewer,
  noAuthentication,
  staticTokenAuthentication,
  tenantTokenAuthentication,
} from "../../src/mcp/transports/http.js";

const OPERATOR = new Secret("operator-token-0123456789abcdef");
const request = (authorization?: string, url = "/healthz") =>
  ({ url, headers: authorization === undefined ? {} : { authorization } }) as IncomingMessage;

describe("healthViewer (interface.md §9b)", () => {
  const tenants = tenantTokenAuthentication((t) => (t === "north-token-0123456789" ? "north" : undefined));

  it("a stranger: no token, a wrong one, or one in the URL", async () => {
    for (const req of [request(), request("Bearer wrong"), request(undefined, "/healthz?access_token=x")])
      expect(await healthViewer(req, tenants, OPERATOR)).toEqual({ kind: "stranger" });
  });

  it("a tenant's token reads its tenant; the operator's token, and a server without tenants, read all", async () => {
    expect(await healthViewer(request("Bearer north-token-0123456789"), tenants, OPERATOR)).toEqual({
      kind: "tenant",
      tenant: "north",
    });
    expect(await healthViewer(request(`Bearer ${OPERATOR.reveal()}`), tenants, OPERATOR)).toEqual({
      kind: "all",
    });
    const single = firstOf(staticTokenAuthentication(OPERATOR));
    expect(await healthViewer(request(`Bearer ${OPERATOR.reveal()}`), single, undefined)).toEqual({
      kind: "all",
    });
    expect(await healthViewer(request(), noAuthentication(), undefined)).toEqual({ kind: "all" });
  });
});

describe("tenantOfClaims", () => {
  const byClaim = (v: string) => (v === "org_1" ? "north" : undefined);
  it("without tenants no tenant; with them the claim's tenant, or a refusal naming the claim only", () => {
    expect(tenantOfClaims({ org: "org_1" }, undefined, undefined)).toEqual({ tenant: undefined });
    expect(tenantOfClaims({ org: "org_1" }, "org", byClaim)).toEqual({ tenant: "north" });
    const missing = tenantOfClaims({}, "org", byClaim);
    expect(missing).toEqual({ refused: expect.stringContaining('carries no "org" claim') });
    const unknown = tenantOfClaims({ org: "org_2" }, "org", byClaim);
    expect(JSON.stringify(unknown)).not.toContain("org_2");
    expect(JSON.stringify(unknown)).not.toContain("north");
  });
});
