/**
 * Authentication rules (api-spec §4.6, §5, §7.2, §7.3): the token endpoint, Bearer expiry on the
 * injectable clock, Hawk (skew answer with ts/tsm, 407 option, replay, payload hash,
 * Server-Authorization) and the hub's Bearer-only problem+json errors.
 */
import Hawk from "hawk";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SandboxHandle } from "../../src/sandbox/index.js";
import {
  basic,
  bearer,
  type Envelope,
  fixedClock,
  HAWK,
  hawk,
  hawkVerify,
  rawRequest,
  start,
  token,
} from "./helpers.js";

let sb: SandboxHandle;
const clock = fixedClock();

beforeAll(async () => {
  sb = await start({ clock });
});
afterAll(() => sb.close());
beforeEach(() => sb.faults.reset());

async function tokenCall(headers: Record<string, string>, body: string) {
  const res = await fetch(`${sb.authUrl}/oauth/token`, { method: "POST", headers, body });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}
const FORM = { "Content-Type": "application/x-www-form-urlencoded" };

describe("token endpoint", () => {
  it("issues a 7200 s Bearer token for Basic client credentials", async () => {
    const r = await tokenCall(
      { ...FORM, Authorization: basic("demo-client", "demo-secret") },
      "grant_type=client_credentials",
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ access_token: expect.any(String), token_type: "Bearer", expires_in: 7200 });
    expect(r.headers.get("cache-control")).toBe("no-store");
  });

  it("missing Basic auth → 401 invalid_client", async () => {
    const r = await tokenCall(FORM, "grant_type=client_credentials");
    expect(r.status).toBe(401);
    expect(r.body.error).toBe("invalid_client");
  });

  it("wrong secret → 401 invalid_client", async () => {
    const r = await tokenCall(
      { ...FORM, Authorization: basic("demo-client", "nope") },
      "grant_type=client_credentials",
    );
    expect(r.status).toBe(401);
    expect(r.body.error).toBe("invalid_client");
  });

  it("credentials in the form body instead of Basic → 401", async () => {
    const r = await tokenCall(
      FORM,
      "grant_type=client_credentials&client_id=demo-client&client_secret=demo-secret",
    );
    expect(r.status).toBe(401);
  });

  it("JSON content type → 400 invalid_request", async () => {
    const r = await tokenCall(
      { "Content-Type": "application/json", Authorization: basic("demo-client", "demo-secret") },
      JSON.stringify({ grant_type: "client_credentials" }),
    );
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("invalid_request");
  });

  it("other grant type → 400 unsupported_grant_type; missing → 400 invalid_request", async () => {
    const auth = { ...FORM, Authorization: basic("demo-client", "demo-secret") };
    const r = await tokenCall(auth, "grant_type=password");
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("unsupported_grant_type");
    expect((await tokenCall(auth, "")).body.error).toBe("invalid_request");
  });

  it("GET /oauth/token → 405", async () => {
    const res = await fetch(`${sb.authUrl}/oauth/token`);
    expect(res.status).toBe(405);
  });
});

describe("Bearer on the main API", () => {
  it("no Authorization → 401 envelope", async () => {
    const res = await fetch(`${sb.baseUrl}/wo_budget`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      success: false,
      message: "401",
      data: [{ ERROR: "Missing Authorization header" }],
      total: 0,
    });
  });

  it("unknown token → 401; misspelled scheme → 401", async () => {
    expect((await bearer(sb, "made-up", "GET", "/api/wo_budget")).status).toBe(401);
    const res = await fetch(`${sb.baseUrl}/wo_budget`, {
      headers: { Authorization: `Baerer ${await token(sb)}` },
    });
    expect(res.status).toBe(401);
  });

  it("a token expires after 7200 s of the injectable clock", async () => {
    const tok = await token(sb);
    clock.advance(7199_000);
    expect((await bearer(sb, tok, "GET", "/api/warehouses_groups_1?limit=1")).status).toBe(200);
    clock.advance(1_000);
    const r = await bearer<Envelope>(sb, tok, "GET", "/api/warehouses_groups_1?limit=1");
    expect(r.status).toBe(401);
    expect(r.body.data).toEqual([{ ERROR: "Access token expired" }]);
  });

  it("skew moves the server clock (token expiry)", async () => {
    const tok = await token(sb);
    sb.faults.skew(7200_000);
    expect((await bearer(sb, tok, "GET", "/api/warehouses_groups_1")).status).toBe(401);
    sb.faults.skew(0);
    expect((await bearer(sb, tok, "GET", "/api/warehouses_groups_1")).status).toBe(200);
  });
});

describe("Hawk on the main API", () => {
  const path = "/api/warehouses_groups_1?limit=2";

  it("accepts a valid request without payload hash, and with one", async () => {
    expect((await hawk(sb, "GET", path, undefined, { clock })).status).toBe(200);
    const body = { resources: [{ type_description: "SERVICES", id_service_type: 33 }] };
    const withHash = await hawk(sb, "POST", "/api/group_tasks/1/tasks/104/resources", body, { clock });
    expect(withHash.status).toBe(201);
    const noHash = await hawk(
      sb,
      "POST",
      "/api/group_tasks/1/tasks/104/resources",
      { resources: [{ type_description: "SERVICES", id_service_type: 31 }] },
      { clock, payloadHash: false },
    );
    expect(noHash.status).toBe(201);
  });

  it("every answer to a Hawk request carries a valid Server-Authorization (also errors)", async () => {
    const okAnswer = await hawk(sb, "GET", path, undefined, { clock });
    expect(hawkVerify(okAnswer).headers["server-authorization"]).toMatchObject({ mac: expect.any(String) });
    const bad = await hawk(sb, "GET", "/api/warehouses_groups_1?limit=500", undefined, { clock });
    expect(bad.status).toBe(422);
    expect(() => hawkVerify(bad)).not.toThrow();
    // A tampered body fails the client's check.
    expect(() => hawkVerify({ ...okAnswer, text: `${okAnswer.text} ` })).toThrow(/Bad response payload mac/);
  });

  it("stale timestamp → 401 with WWW-Authenticate ts/tsm (verifiable), then succeeds with the offset", async () => {
    const stale = await hawk<Envelope>(sb, "GET", path, undefined, { localtimeOffsetMsec: 0 });
    expect(stale.status).toBe(401);
    expect(stale.body).toEqual({
      success: false,
      message: "401",
      data: [{ ERROR: "Stale timestamp" }],
      total: 0,
    });
    const www = stale.headers.get("www-authenticate") ?? "";
    expect(www).toMatch(/^Hawk ts="(\d+)", tsm="([^"]+)", error="Stale timestamp"$/);
    const result = hawkVerify(stale, false) as unknown as { headers: Record<string, Record<string, string>> };
    const ts = Number(result.headers["www-authenticate"]!.ts);
    expect(ts).toBe(Math.floor(clock.now() / 1000));
    // The client corrects its offset from ts and retries.
    const retried = await hawk(sb, "GET", path, undefined, { localtimeOffsetMsec: ts * 1000 - Date.now() });
    expect(retried.status).toBe(200);
  });

  it("a forged tsm is detected by the client", async () => {
    const stale = await hawk(sb, "GET", path, undefined, { localtimeOffsetMsec: 0 });
    const forged = new Headers(stale.headers);
    forged.set(
      "www-authenticate",
      (stale.headers.get("www-authenticate") ?? "").replace(/tsm="[^"]+"/, 'tsm="AAAA"'),
    );
    expect(() => hawkVerify({ ...stale, headers: forged }, false)).toThrow(/Invalid server timestamp hash/);
  });

  it("staleStatus(407) changes the stale answer's status", async () => {
    sb.faults.staleStatus(407);
    const url = `${sb.url}${path}`;
    const { header, artifacts } = Hawk.client.header(url, "GET", {
      credentials: HAWK,
      localtimeOffsetMsec: 0,
    });
    const stale = await rawRequest(url, "GET", { Authorization: header });
    expect(stale.status).toBe(407);
    expect(JSON.parse(stale.text)).toMatchObject({ success: false, message: "407" });
    expect(stale.headers["www-authenticate"]).toContain('error="Stale timestamp"');
    expect(() =>
      Hawk.client.authenticate({ headers: stale.headers } as never, HAWK, artifacts),
    ).not.toThrow();
  });

  it("within 60 s of skew is accepted; skew() moves the server clock", async () => {
    const offset = clock.now() - Date.now();
    expect((await hawk(sb, "GET", path, undefined, { localtimeOffsetMsec: offset + 55_000 })).status).toBe(
      200,
    );
    sb.faults.skew(120_000);
    expect((await hawk(sb, "GET", path, undefined, { clock })).status).toBe(401);
    expect((await hawk(sb, "GET", path, undefined, { localtimeOffsetMsec: offset + 120_000 })).status).toBe(
      200,
    );
  });

  it("a replayed nonce → 401 Invalid nonce", async () => {
    const ts = Math.floor(clock.now() / 1000);
    const first = await hawk<Envelope>(sb, "GET", path, undefined, { timestamp: ts, nonce: "replay-1" });
    expect(first.status).toBe(200);
    const replay = await hawk<Envelope>(sb, "GET", path, undefined, { timestamp: ts, nonce: "replay-1" });
    expect(replay.status).toBe(401);
    expect(replay.body.data).toEqual([{ ERROR: "Invalid nonce" }]);
  });

  it("a body that does not match the signed hash → 401 Bad payload hash", async () => {
    const body = { resources: [{ type_description: "SERVICES", id_service_type: 32 }] };
    const r = await hawk<Envelope>(sb, "POST", "/api/group_tasks/1/tasks/103/resources", body, {
      clock,
      sendInstead: JSON.stringify({ resources: [{ type_description: "SERVICES", id_service_type: 33 }] }),
    });
    expect(r.status).toBe(401);
    expect(r.body.data).toEqual([{ ERROR: "Bad payload hash" }]);
    expect(sb.state.taskResources.some((x) => x.taskId === 103)).toBe(false);
  });

  it("wrong key → 401 Bad mac; unknown id → 401 Unknown credentials; bad header → 401", async () => {
    const wrong = await hawk<Envelope>(sb, "GET", path, undefined, {
      clock,
      credentials: { ...HAWK, key: "x" },
    });
    expect(wrong.body.data).toEqual([{ ERROR: "Bad mac" }]);
    const unknown = await hawk<Envelope>(sb, "GET", path, undefined, {
      clock,
      credentials: { ...HAWK, id: "who" },
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body.data).toEqual([{ ERROR: "Unknown credentials" }]);
    const res = await fetch(`${sb.url}${path}`, { headers: { Authorization: 'Hawk id="demo-company"' } });
    expect(res.status).toBe(401);
  });

  it("signs host and port from the Host header (a different port fails)", async () => {
    const url = `${sb.url}${path}`;
    const { header } = Hawk.client.header(url.replace(/:\d+\//, ":1/"), "GET", {
      credentials: HAWK,
      localtimeOffsetMsec: clock.now() - Date.now(),
    });
    const res = await fetch(url, { headers: { Authorization: header } });
    expect(res.status).toBe(401);
  });
});

describe("hub authentication", () => {
  const dags = "/hub/api/v1/dags";

  it("no Authorization → 401 MISSING_BEARER_TOKEN problem+json", async () => {
    const res = await fetch(`${sb.hubUrl}${dags}`);
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toEqual({
      error_code: "MISSING_BEARER_TOKEN",
      message: "Missing Authorization header",
      status_code: 401,
    });
  });

  it("Hawk is not accepted on the hub; an unknown token neither", async () => {
    const r = await hawk<{ error_code: string }>(sb, "GET", dags, undefined, { clock });
    expect(r.status).toBe(401);
    expect(r.body.error_code).toBe("MISSING_BEARER_TOKEN");
    expect((await bearer<{ error_code: string }>(sb, "nope", "GET", dags)).body.error_code).toBe(
      "MISSING_BEARER_TOKEN",
    );
  });

  it("expired token → 401 TOKEN_EXPIRED", async () => {
    const tok = await token(sb);
    clock.advance(7200_000);
    const r = await bearer<{ error_code: string; status_code: number }>(sb, tok, "GET", dags);
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ error_code: "TOKEN_EXPIRED", status_code: 401 });
  });

  it("client without the hub permission → 403 OAUTH2_ETL_ACCESS_DENIED", async () => {
    const r = await bearer<{ error_code: string }>(sb, await token(sb, "readonly"), "GET", dags);
    expect(r.status).toBe(403);
    expect(r.body.error_code).toBe("OAUTH2_ETL_ACCESS_DENIED");
  });
});
