/**
 * Hawk end to end against a fake upstream that verifies with the real `hawk` server API:
 * GET and POST accepted (payload hash checked), stale timestamps recovered in the 401 and 407
 * forms, a bad tsm and a forged Server-Authorization rejected as SECURITY.
 */
import type http from "node:http";
import Hawk from "hawk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClients } from "../../src/client/index.js";
import type { Clients } from "../../src/client/types.js";
import { envelope, type FakeUpstream, type Recorded, sendJson, startFake } from "./fake-upstream.js";
import { captureLogger, FAST, HAWK_ID, HAWK_KEY, makeConfig, rejection } from "./helpers.js";

// @types/hawk's server Credentials wants `user`; hawk itself only reads key and algorithm.
const credentials = { id: HAWK_ID, user: HAWK_ID, key: HAWK_KEY, algorithm: "sha256" as const };
const GROUPS = "/api/warehouses_groups_1";
const RESOURCES = "/api/group_tasks/10/tasks/20/resources";

let clients: Clients | undefined;
let fake: FakeUpstream | undefined;
/** Artifacts of every request the fake's strict Hawk check accepted, in order. */
const verified: Hawk.crypto.Artifacts[] = [];
beforeEach(() => {
  verified.length = 0;
});
afterEach(async () => {
  await clients?.close();
  await fake?.close();
  clients = undefined;
  // A check that failed inside a fake's handler surfaces here as itself (not as an HTTP 599).
  const failed = fake;
  fake = undefined;
  failed?.assertHandlersOk();
});

type Verified = { artifacts: Hawk.crypto.Artifacts };

/**
 * Authenticate like a strict server; on failure answer as hawk does (optionally as 407).
 * Only hawk's own verdicts are caught here: checks of what was sent are made by the tests, on
 * `verified`, after the call (an `expect` in this `try` would turn into a 401, not a failure).
 */
async function hawkVerify(
  req: Recorded,
  raw: http.IncomingMessage,
  res: http.ServerResponse,
  port: number,
  staleStatus = 401,
): Promise<Verified | undefined> {
  try {
    const { artifacts } = await Hawk.server.authenticate(raw, () => credentials, { host: "127.0.0.1", port });
    if (req.body !== "")
      Hawk.server.authenticatePayload(req.body, credentials, artifacts, req.headers["content-type"]!);
    verified.push(artifacts);
    return { artifacts };
  } catch (e) {
    const boom = e as { output: { statusCode: number; headers: Record<string, string>; payload: unknown } };
    const stale = /Stale timestamp/.test(boom.output.headers["WWW-Authenticate"] ?? "");
    sendJson(
      res,
      stale ? staleStatus : boom.output.statusCode,
      { success: false, message: "401", data: [] },
      boom.output.headers,
    );
    return undefined;
  }
}

async function setup(now?: () => number) {
  const f = await startFake();
  fake = f;
  const log = captureLogger();
  clients = createClients(makeConfig(f.url, { auth: "hawk" }), {
    logger: log.logger,
    ...FAST,
    ...(now ? { now } : {}),
  });
  return { fake: f, clients, lines: log.lines };
}

describe("Hawk requests", () => {
  it("GET with query is accepted by Hawk.server.authenticate", async () => {
    const { fake, clients } = await setup();
    fake.on("GET", "/api/wo_budget", async (req, res, raw) => {
      if (await hawkVerify(req, raw, res, fake.port)) envelope(res, 200, "200", []);
    });
    await expect(clients.api.queryBudgets({ since: "2024-01-01T00:00:00+05", limit: 5 })).resolves.toEqual({
      data: [],
      total: 0,
    });
    expect(fake.requests[0]!.url).toBe("/api/wo_budget?since=2024-01-01T00:00:00%2B05&limit=5");
    expect(fake.requests[0]!.headers.authorization).toMatch(
      /^Hawk id="dh37fgj492je", ts="\d+", nonce="[^"]+", mac="/,
    );
  });

  it("POST carries a payload hash over the exact JSON bytes sent", async () => {
    const { fake, clients, lines } = await setup();
    fake.on("POST", RESOURCES, async (req, res, raw) => {
      if (await hawkVerify(req, raw, res, fake.port))
        envelope(res, 201, "201", [
          { id: 1, type_description: "INVENTORY", quantity: 1, unit_cost: "3.5", id_item: 7 },
        ]);
    });
    const created = await clients.api.addTaskResources(10, 20, [
      { type_description: "INVENTORY", id_item: 7 },
    ]);
    expect(created).toEqual([
      { id: 1, type_description: "INVENTORY", quantity: 1, unit_cost: 3.5, id_item: 7 },
    ]);
    const sent = fake.requests[0]!;
    expect(sent.headers["content-type"]).toBe("application/json");
    expect(sent.headers.authorization).toContain('hash="');
    // The server verified the payload hash (not merely accepted a request without one).
    expect(verified).toHaveLength(1);
    expect(verified[0]!.hash).toBeDefined();
    for (const text of [JSON.stringify(fake.requests), ...lines]) expect(text).not.toContain(HAWK_KEY);
  });

  it("MMS_HAWK_PAYLOAD_HASH=false leaves the hash out", async () => {
    const f = await startFake();
    fake = f;
    const cfg = makeConfig(f.url, { auth: "hawk" });
    clients = createClients(
      { ...cfg, hawk: { ...cfg.hawk!, payloadHash: false } },
      { logger: captureLogger().logger, ...FAST },
    );
    f.on("POST", RESOURCES, async (_req, res, raw) => {
      await Hawk.server.authenticate(raw, () => credentials, { host: "127.0.0.1", port: f.port });
      envelope(res, 201, "201", []);
    });
    await clients.api.addTaskResources(10, 20, [{ type_description: "SERVICES", id_service_type: 2 }]);
    expect(f.requests[0]!.headers.authorization).not.toContain("hash=");
  });
});

describe("Hawk stale timestamp", () => {
  it.each([401, 407])(
    "recovers from a %i stale-timestamp challenge by correcting the clock offset, once",
    async (status) => {
      const skewed = () => Date.now() - 10 * 60_000;
      const { fake, clients, lines } = await setup(skewed);
      fake.on("GET", GROUPS, async (req, res, raw) => {
        if (await hawkVerify(req, raw, res, fake.port, status)) envelope(res, 200, "200", []);
      });
      await expect(clients.api.listWarehouseGroups1({})).resolves.toEqual({ data: [], total: 0 });
      expect(fake.count("GET", GROUPS)).toBe(2);
      // The offset is kept: the next call is accepted at once.
      await clients.api.listWarehouseGroups1({});
      expect(fake.count("GET", GROUPS)).toBe(3);
      expect(lines.some((l) => l.includes("re-authenticating"))).toBe(true);
    },
  );

  it("reads a 13-digit (millisecond) challenge ts as milliseconds, not seconds", async () => {
    const { fake, clients } = await setup();
    const serverMs = Date.now() + 3_600_000; // the server is an hour ahead
    fake.on("GET", GROUPS, (_req, res) => envelope(res, 200, "200", []));
    fake.on(
      "GET",
      GROUPS,
      (_req, res) => {
        const ts = String(serverMs);
        const tsm = Hawk.crypto.calculateTsMac(ts, credentials);
        sendJson(
          res,
          401,
          { success: false, message: "401", data: [] },
          { "WWW-Authenticate": `Hawk ts="${ts}", tsm="${tsm}", error="Stale timestamp"` },
        );
      },
      1,
    );
    await expect(clients.api.listWarehouseGroups1({})).resolves.toEqual({ data: [], total: 0 });
    expect(fake.count("GET", GROUPS)).toBe(2);
    const repeatTs = Number(/\bts="(\d+)"/.exec(fake.requests[1]!.headers.authorization!)?.[1]);
    // Signed with the server's clock in seconds (read as seconds it would be ~1000x too large).
    expect(Math.abs(repeatTs - serverMs / 1000)).toBeLessThan(60);
  });

  it("rejects a challenge whose tsm does not verify as SECURITY, without repeating", async () => {
    const { fake, clients } = await setup();
    fake.on("GET", GROUPS, (_req, res) =>
      sendJson(
        res,
        401,
        { success: false, message: "401", data: [] },
        {
          "WWW-Authenticate":
            'Hawk ts="1362346425875", tsm="hwayS28vtnn3qbv0mqRBYSXebN/zggEtucfeZ620Zo=", error="Stale timestamp"',
        },
      ),
    );
    const e = await rejection(clients.api.listWarehouseGroups1({}));
    expect(e).toMatchObject({ code: "SECURITY", request: { method: "GET", path: GROUPS } });
    expect(e.message).toContain("Invalid server timestamp hash");
    expect(fake.count("GET", GROUPS)).toBe(1);
  });

  it("does not loop when the server keeps answering stale", async () => {
    const { fake, clients } = await setup();
    fake.on("GET", GROUPS, (_req, res) => {
      const ts = String(Math.floor(Date.now() / 1000) + 3600);
      const tsm = Hawk.crypto.calculateTsMac(ts, credentials);
      sendJson(
        res,
        407,
        { success: false, message: "407", data: [] },
        {
          "WWW-Authenticate": `Hawk ts="${ts}", tsm="${tsm}", error="Stale timestamp"`,
        },
      );
    });
    const e = await rejection(clients.api.listWarehouseGroups1({}));
    expect(e).toMatchObject({ code: "AUTH", status: 407 });
    expect(e.message).toContain("still rejected after correcting the clock offset");
    expect(fake.count("GET", GROUPS)).toBe(2);
  });
});

describe("Hawk Server-Authorization", () => {
  const movement = { id: 1, id_company: 1, description: "North", enabled: true };

  it("accepts a valid Server-Authorization (with response payload hash)", async () => {
    const { fake, clients } = await setup();
    fake.on("GET", GROUPS, async (req, res, raw) => {
      const ok = await hawkVerify(req, raw, res, fake.port);
      if (!ok) return;
      const body = JSON.stringify({ success: true, message: "200", data: [movement], total: 1 });
      const header = Hawk.server.header(credentials, ok.artifacts, {
        payload: body,
        contentType: "application/json",
      });
      res.writeHead(200, { "content-type": "application/json", "server-authorization": header });
      res.end(body);
    });
    await expect(clients.api.listWarehouseGroups1({})).resolves.toMatchObject({ total: 1 });
  });

  it.each([
    ["a forged MAC", () => 'Hawk mac="c29tZXRoaW5nIGZvcmdlZA=="'],
    [
      "a tampered payload",
      (a: Hawk.crypto.Artifacts) =>
        Hawk.server.header(credentials, a, {
          payload: '{"success":true,"data":[]}',
          contentType: "application/json",
        }),
    ],
  ])("rejects %s as SECURITY and never returns the data", async (_name, makeHeader) => {
    const { fake, clients } = await setup();
    fake.on("GET", GROUPS, async (req, res, raw) => {
      const ok = await hawkVerify(req, raw, res, fake.port);
      if (!ok) return;
      const body = JSON.stringify({ success: true, message: "200", data: [movement], total: 1 });
      res.writeHead(200, {
        "content-type": "application/json",
        "server-authorization": makeHeader(ok.artifacts),
      });
      res.end(body);
    });
    const e = await rejection(clients.api.listWarehouseGroups1({}));
    expect(e).toMatchObject({ code: "SECURITY", retryable: false });
    expect(JSON.stringify(e)).not.toContain("North");
  });
});
