/**
 * Fault injection, in-process and over HTTP (`/__faults`, only when enabled): latency, canned raw
 * answers (HTML, malformed JSON, 502 problem+json, 429/406 with reset headers), mid-body
 * resets, token expiry, a down token endpoint, request counts and reset.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { SandboxHandle } from "../../src/sandbox/index.js";
import { basic, bearer, type Envelope, start, token } from "./helpers.js";

let sb: SandboxHandle;
let tok: string;

beforeAll(async () => {
  sb = await start({ faults: true });
  tok = await token(sb);
});
afterAll(() => sb.close());
beforeEach(() => sb.faults.reset());

const groups = "/api/warehouses_groups_1?limit=1";

describe("in-process faults", () => {
  it("latency delays matching routes only, for at least its ms", async () => {
    sb.faults.latency(300, "/api/wo_budget");
    const t = Date.now();
    await bearer(sb, tok, "GET", "/api/wo_budget?limit=1");
    expect(Date.now() - t).toBeGreaterThanOrEqual(290);
    // The others are answered while a held one waits (events, no wall-clock bound).
    sb.faults.latency(600_000, "/api/wo_budget");
    let answered = false;
    const held = bearer(sb, tok, "GET", "/api/wo_budget?limit=1").then((r) => {
      answered = true;
      return r;
    });
    await vi.waitFor(() => expect(sb.faults.requestCount["GET /api/wo_budget"]).toBe(2));
    expect((await bearer(sb, tok, "GET", groups)).status).toBe(200);
    expect(answered).toBe(false);
    // A new setting for the route releases what it holds; 0 removes it.
    sb.faults.latency(0, "/api/wo_budget");
    expect((await held).status).toBe(200);
    expect((await bearer(sb, tok, "GET", "/api/wo_budget?limit=1")).status).toBe(200);
  });

  it("reset releases every held request", async () => {
    sb.faults.latency(600_000);
    const held = bearer(sb, tok, "GET", groups);
    await vi.waitFor(() => expect(sb.faults.requestCount["GET /api/warehouses_groups_1"]).toBe(1));
    sb.faults.reset();
    expect((await held).status).toBe(200);
  });

  it("failNext answers N requests with a raw HTML page, then normally", async () => {
    sb.faults.failNext("/api/warehouses_groups_1", 2, {
      status: 200,
      body: "<html><body>Maintenance</body></html>",
      contentType: "text/html",
    });
    for (let i = 0; i < 2; i++) {
      const r = await bearer(sb, tok, "GET", groups);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toBe("text/html");
      expect(r.text).toContain("<html>");
    }
    expect((await bearer<Envelope>(sb, tok, "GET", groups)).body.success).toBe(true);
  });

  it("failNext: malformed JSON, 429 Retry-After, 406 ratelimit-reset", async () => {
    sb.faults.failNext("/api", 1, { status: 200, body: '{"success": tr', contentType: "application/json" });
    const bad = await bearer(sb, tok, "GET", groups);
    expect(bad.text).toBe('{"success": tr');
    sb.faults.failNext("/api", 1, {
      status: 429,
      body: { title: "Too Many Requests" },
      headers: { "Retry-After": "2" },
    });
    const limited = await bearer(sb, tok, "GET", groups);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("2");
    expect(limited.body).toEqual({ title: "Too Many Requests" });
    sb.faults.failNext("/api", 1, {
      status: 406,
      body: { success: false, message: "406", data: [], total: 0 },
      headers: { "ratelimit-reset": "30", "ratelimit-remaining": "0" },
    });
    const rpm = await bearer(sb, tok, "GET", groups);
    expect(rpm.status).toBe(406);
    expect(rpm.headers.get("ratelimit-reset")).toBe("30");
  });

  it("failNext on the hub: 502 BACKEND_RPC_ERROR problem+json", async () => {
    sb.faults.failNext("/hub", 1, {
      status: 502,
      body: { error_code: "BACKEND_RPC_ERROR", message: "workflow engine unavailable", status_code: 502 },
      contentType: "application/problem+json",
    });
    const r = await bearer<{ error_code: string }>(sb, tok, "GET", "/hub/api/v1/dags");
    expect(r.status).toBe(502);
    expect(r.headers.get("content-type")).toBe("application/problem+json");
    expect(r.body.error_code).toBe("BACKEND_RPC_ERROR");
    expect((await bearer(sb, tok, "GET", "/hub/api/v1/dags")).status).toBe(200);
  });

  it("a route may name the method: 'POST /api/...' leaves GETs alone", async () => {
    sb.faults.failNext("POST /api/warehouse_entries_orders", 1, { status: 503 });
    expect((await bearer(sb, tok, "GET", groups)).status).toBe(200);
    const r = await bearer(sb, tok, "POST", "/api/warehouse_entries_orders/WH-MAIN", {});
    expect(r.status).toBe(503);
  });

  it("resetNext destroys the connection mid-body", async () => {
    sb.faults.resetNext("/api/wo_budget", 1);
    await expect(
      (async () => {
        const res = await fetch(`${sb.baseUrl}/wo_budget`, { headers: { Authorization: `Bearer ${tok}` } });
        return res.text();
      })(),
    ).rejects.toThrow();
    expect((await bearer(sb, tok, "GET", "/api/wo_budget?limit=1")).status).toBe(200);
  });

  it("expireTokens: every issued token now gets 401; a new one works", async () => {
    const t = await token(sb);
    sb.faults.expireTokens();
    const r = await bearer<Envelope>(sb, t, "GET", groups);
    expect(r.status).toBe(401);
    expect(r.body.data).toEqual([{ ERROR: "Access token expired" }]);
    tok = await token(sb);
    expect((await bearer(sb, tok, "GET", groups)).status).toBe(200);
  });

  it("tokenEndpointDown: 503 while down", async () => {
    sb.faults.tokenEndpointDown(true);
    const res = await fetch(`${sb.authUrl}/oauth/token`, {
      method: "POST",
      headers: {
        Authorization: basic("demo-client", "demo-secret"),
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: "grant_type=client_credentials",
    });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: string }).error).toBe("temporarily_unavailable");
    sb.faults.tokenEndpointDown(false);
    await expect(token(sb)).resolves.toEqual(expect.any(String));
  });

  it("requestCount counts METHOD /path without query; reset clears it", async () => {
    await bearer(sb, tok, "GET", "/api/wo_budget?limit=1");
    await bearer(sb, tok, "GET", "/api/wo_budget?limit=2");
    expect(sb.faults.requestCount["GET /api/wo_budget"]).toBe(2);
    expect(sb.faults.requestCount["POST /api/warehouse_entries_orders/WH-MAIN"]).toBeUndefined();
    sb.faults.reset();
    expect(sb.faults.requestCount).toEqual({});
  });

  it("rejects invalid arguments", () => {
    expect(() => sb.faults.failNext("/api", 0, { status: 500 })).toThrow(RangeError);
    expect(() => sb.faults.failNext("/api", 1, { status: 42 })).toThrow(RangeError);
    expect(() => sb.faults.latency(-1)).toThrow(RangeError);
    expect(() => sb.faults.staleStatus(403 as 401)).toThrow(RangeError);
  });
});

describe("HTTP control route", () => {
  const control = (method: string, body?: unknown) =>
    fetch(`${sb.url}/__faults`, { method, body: body === undefined ? undefined : JSON.stringify(body) });

  it("POST {action, ...args} arms a fault; DELETE resets; GET describes", async () => {
    const armed = await control("POST", {
      action: "failNext",
      route: "/api/wo_budget",
      count: 1,
      response: { status: 502, body: "<html>Bad gateway</html>", contentType: "text/html" },
    });
    expect(armed.status).toBe(200);
    expect((await bearer(sb, tok, "GET", "/api/wo_budget")).status).toBe(502);
    await control("POST", { action: "skew", ms: 1000 });
    const described = (await (await control("GET")).json()) as { skewMs: number; requestCount: object };
    expect(described.skewMs).toBe(1000);
    expect(described.requestCount).toEqual({ "GET /api/wo_budget": 1 });
    expect((await control("DELETE")).status).toBe(200);
    expect((await (await control("GET")).json()) as object).toMatchObject({ skewMs: 0, requestCount: {} });
  });

  it("bad commands → 400 with a reason", async () => {
    const r = await control("POST", { action: "explode" });
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ error: 'unknown action "explode"' });
    expect((await control("POST", { action: "failNext", route: "/api", count: 1 })).status).toBe(400);
  });

  it("is absent unless faults: true", async () => {
    const plain = await start();
    try {
      const res = await fetch(`${plain.url}/__faults`, { method: "DELETE" });
      expect(res.status).toBe(404);
      // The in-process controller always exists.
      plain.faults.tokenEndpointDown(true);
      const t = await fetch(`${plain.authUrl}/oauth/token`, { method: "POST" });
      expect(t.status).toBe(503);
    } finally {
      await plain.close();
    }
  });
});
