/**
 * OAuth client credentials against a fake token endpoint: caching, single-flight, early
 * refresh, one refresh-and-repeat on 401, no loops, rejected credentials, permission 401s,
 * token endpoint outages, and no secret anywhere in errors or logs.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createClients } from "../../src/client/index.js";
import type { Clients } from "../../src/client/types.js";
import { formatError } from "../../src/errors/format.js";
import { envelope, type FakeUpstream, sendJson, sendText } from "./fake-upstream.js";
import {
  CLIENT_SECRET,
  captureLogger,
  FAST,
  fakeWithTokens,
  makeConfig,
  rejection,
  TOKEN_PREFIX,
} from "./helpers.js";

const GROUPS = "/api/warehouses_groups_1";
const group = { id: 1, id_company: 1, description: "North", enabled: true };

let clients: Clients | undefined;
let fake: FakeUpstream | undefined;
afterEach(async () => {
  await clients?.close();
  await fake?.close();
  clients = undefined;
});

async function setup(opts: { expiresIn?: number; now?: () => number } = {}) {
  const f = await fakeWithTokens(opts.expiresIn);
  fake = f;
  const log = captureLogger();
  clients = createClients(makeConfig(f.url), {
    logger: log.logger,
    ...FAST,
    ...(opts.now ? { now: opts.now } : {}),
  });
  return { fake: f, clients, lines: log.lines };
}

function expectNoSecrets(texts: string[]) {
  for (const t of texts) {
    expect(t).not.toContain(CLIENT_SECRET);
    expect(t).not.toContain(TOKEN_PREFIX);
    expect(t).not.toContain(Buffer.from(`client-abc:${CLIENT_SECRET}`).toString("base64"));
  }
}

describe("OAuth token handling", () => {
  it("sends Basic base64(id:secret), form content type and grant_type, then caches the token", async () => {
    const { fake, clients } = await setup();
    fake.on("GET", GROUPS, (_r, res) => envelope(res, 200, "200", [group]));
    await clients.api.listWarehouseGroups1({});
    await clients.api.listWarehouseGroups1({});
    await clients.hub?.listDags().catch(() => undefined);
    const tokenReq = fake.requests.find((r) => r.pathname === "/oauth/token")!;
    expect(tokenReq.headers.authorization).toBe(
      `Basic ${Buffer.from(`client-abc:${CLIENT_SECRET}`).toString("base64")}`,
    );
    expect(tokenReq.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(tokenReq.body).toBe("grant_type=client_credentials");
    expect(fake.tokensIssued()).toBe(1);
  });

  it("fetches exactly one token for 50 concurrent calls (single-flight)", async () => {
    const { fake, clients } = await setup();
    fake.on("POST", "/oauth/token", async (_r, res) => {
      await new Promise((r) => setTimeout(r, 30));
      sendJson(res, 200, { access_token: `${TOKEN_PREFIX}only`, token_type: "Bearer", expires_in: 7200 });
    });
    fake.on("GET", GROUPS, (r, res) => {
      expect(r.headers.authorization).toBe(`Bearer ${TOKEN_PREFIX}only`);
      envelope(res, 200, "200", [group]);
    });
    await Promise.all(Array.from({ length: 50 }, () => clients.api.listWarehouseGroups1({})));
    expect(fake.count("POST", "/oauth/token")).toBe(1);
    expect(fake.count("GET", GROUPS)).toBe(50);
  });

  it("refreshes before expiry: margin max(60 s, 10%)", async () => {
    let now = 1_000_000;
    const { fake, clients } = await setup({ expiresIn: 7200, now: () => now });
    fake.on("GET", GROUPS, (_r, res) => envelope(res, 200, "200", [group]));
    await clients.api.listWarehouseGroups1({});
    now += (7200 - 720 - 1) * 1000;
    await clients.api.listWarehouseGroups1({});
    expect(fake.tokensIssued()).toBe(1);
    now += 2000;
    await clients.api.listWarehouseGroups1({});
    expect(fake.tokensIssued()).toBe(2);
    expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${TOKEN_PREFIX}2`);
  });

  it("on a 401 drops the token, fetches one new token and repeats the call once", async () => {
    const { fake, clients, lines } = await setup();
    fake.on("GET", GROUPS, (r, res) =>
      r.headers.authorization === `Bearer ${TOKEN_PREFIX}1`
        ? envelope(res, 401, "401", [])
        : envelope(res, 200, "200", [group]),
    );
    const page = await clients.api.listWarehouseGroups1({});
    expect(page.data).toHaveLength(1);
    expect(fake.tokensIssued()).toBe(2);
    expect(fake.count("GET", GROUPS)).toBe(2);
    expectNoSecrets(lines);
  });

  it("also refreshes on the hub's problem+json TOKEN_EXPIRED", async () => {
    const { fake, clients } = await setup();
    fake.on("GET", "/hub/api/v1/dags", (r, res) =>
      r.headers.authorization === `Bearer ${TOKEN_PREFIX}1`
        ? sendJson(
            res,
            401,
            { error_code: "TOKEN_EXPIRED", message: "expired", status_code: 401 },
            {},
            "application/problem+json",
          )
        : sendJson(res, 200, {
            id_company: "c1",
            total: 1,
            dags: [{ dag_id: "d", description: "x", last_run: null }],
          }),
    );
    const dags = await clients.hub!.listDags();
    expect(dags.total).toBe(1);
    expect(fake.requests.at(-1)?.headers.accept).toBe("application/json");
    expect(fake.tokensIssued()).toBe(2);
  });

  it("does not loop: a second 401 is AUTH with a hint, after exactly one refresh", async () => {
    const { fake, clients, lines } = await setup();
    fake.on("GET", GROUPS, (_r, res) => envelope(res, 401, "401", []));
    const e = await rejection(clients.api.listWarehouseGroups1({}));
    expect(e).toMatchObject({ status: 401, code: "AUTH", retryable: false });
    expect(e.message).toContain("still rejected after fetching a new access token");
    expect(formatError(e).text).toContain("MMS_CLIENT_ID/MMS_CLIENT_SECRET");
    expect(fake.tokensIssued()).toBe(2);
    expect(fake.count("GET", GROUPS)).toBe(2);
    expectNoSecrets([...lines, JSON.stringify(formatError(e))]);
  });

  it("treats UNAUTHORIZED_ENDPOINT as FORBIDDEN, without refresh", async () => {
    const { fake, clients } = await setup();
    fake.on("GET", GROUPS, (_r, res) =>
      sendJson(res, 401, { success: false, message: "UNAUTHORIZED_ENDPOINT", data: null }),
    );
    const e = await rejection(clients.api.listWarehouseGroups1({}));
    expect(e).toMatchObject({ code: "FORBIDDEN", status: 401 });
    expect(fake.tokensIssued()).toBe(1);
    expect(fake.count("GET", GROUPS)).toBe(1);
  });

  it("reports rejected client credentials once, naming the variables, shared by concurrent callers", async () => {
    const { fake, clients, lines } = await setup();
    fake.on("POST", "/oauth/token", async (_r, res) => {
      await new Promise((r) => setTimeout(r, 20));
      sendJson(res, 401, { error: "invalid_client", error_description: `bad secret ${CLIENT_SECRET}` });
    });
    const errors = await Promise.all(
      Array.from({ length: 10 }, () => rejection(clients.api.listWarehouseGroups1({}))),
    );
    expect(fake.count("POST", "/oauth/token")).toBe(1);
    expect(fake.count("GET", GROUPS)).toBe(0);
    for (const e of errors) {
      expect(e).toMatchObject({ code: "AUTH", retryable: false });
      expect(e.message).toContain("MMS_CLIENT_ID");
      expect(e.message).toContain("MMS_CLIENT_SECRET");
      expect(e.message).toContain("invalid_client");
    }
    expectNoSecrets([...lines, ...errors.map((e) => JSON.stringify(formatError(e)))]);
  });

  it("reports a token endpoint outage as retryable and recovers on the next call", async () => {
    const { fake, clients } = await setup();
    fake.on("GET", GROUPS, (_r, res) => envelope(res, 200, "200", [group]));
    fake.on(
      "POST",
      "/oauth/token",
      (_r, res) => sendText(res, 503, "<html><title>503 Service Unavailable</title></html>"),
      1,
    );
    const e = await rejection(clients.api.listWarehouseGroups1({}));
    expect(e).toMatchObject({ status: 503, retryable: true });
    expect(e.message).toContain("token endpoint");
    await expect(clients.api.listWarehouseGroups1({})).resolves.toMatchObject({ total: 1 });
  });

  it("reports an unreachable token endpoint as NETWORK", async () => {
    const { fake } = await setup();
    const { closedPort } = await import("./fake-upstream.js");
    const port = await closedPort();
    const cfg = makeConfig(fake.url);
    clients = createClients(
      { ...cfg, oauth: { ...cfg.oauth!, authUrl: `http://127.0.0.1:${port}` } },
      { logger: captureLogger().logger, ...FAST },
    );
    const e = await rejection(clients.api.listWarehouseGroups1({}));
    // Refused: a configuration problem once the client's own retries are spent (issue 22), naming MMS_AUTH_URL.
    expect(e).toMatchObject({ code: "NETWORK", retryable: false, details: { cause: "ECONNREFUSED" } });
    expect(e.message).toContain("token endpoint could not be reached");
    expect(formatError(e).text).toContain("(hint: check MMS_AUTH_URL (host and port)");
  });
});

describe("token answers are validated before caching (issue 9 item 12)", () => {
  async function withTokenAnswer(answer: Record<string, unknown>) {
    const { fake, clients, lines } = await setup();
    fake.on("POST", "/oauth/token", (_r, res) => sendJson(res, 200, answer));
    fake.on("GET", GROUPS, (_r, res) => envelope(res, 200, "200", [group]));
    return { fake, clients, lines };
  }

  it.each([
    ["CR/LF", `${TOKEN_PREFIX}a\r\nX-Injected: 1`],
    ["a space", `${TOKEN_PREFIX}a b`],
    ["a NUL", `${TOKEN_PREFIX}a\u0000`],
    ["a tab", `${TOKEN_PREFIX}a\t`],
  ])("a token with %s is refused, never sent and never cached", async (_what, token) => {
    const { fake, clients, lines } = await withTokenAnswer({
      access_token: token,
      token_type: "Bearer",
      expires_in: 7200,
    });
    const first = await rejection(clients.api.listWarehouseGroups1({}));
    expect(first).toMatchObject({ code: "BAD_RESPONSE", retryable: false });
    expect(first.message).toContain("whitespace or control characters");
    await rejection(clients.api.listWarehouseGroups1({}));
    // Not cached: each call asks the token endpoint again; the API itself is never called.
    expect(fake.count("POST", "/oauth/token")).toBe(2);
    expect(fake.count("GET", GROUPS)).toBe(0);
    expectNoSecrets([JSON.stringify(first), first.message, ...lines]);
  });

  it.each(["mac", "MAC", "", "N_A"])(
    "token_type %j is refused as AUTH, nothing sent with it",
    async (type) => {
      const { fake, clients } = await withTokenAnswer({
        access_token: `${TOKEN_PREFIX}1`,
        token_type: type,
        expires_in: 7200,
      });
      const e = await rejection(clients.api.listWarehouseGroups1({}));
      expect(e).toMatchObject({ code: "AUTH", retryable: false, details: { tokenType: type } });
      expect(e.message).toContain("only Bearer tokens are supported");
      expect(fake.count("GET", GROUPS)).toBe(0);
      expectNoSecrets([JSON.stringify(e)]);
    },
  );

  it.each([["bearer"], ["BEARER"], [undefined]])("token_type %j is Bearer", async (type) => {
    const { fake, clients } = await withTokenAnswer({ access_token: `${TOKEN_PREFIX}ok`, token_type: type });
    await expect(clients.api.listWarehouseGroups1({})).resolves.toMatchObject({ total: 1 });
    expect(fake.requests.find((r) => r.pathname === GROUPS)?.headers.authorization).toBe(
      `Bearer ${TOKEN_PREFIX}ok`,
    );
  });
});
