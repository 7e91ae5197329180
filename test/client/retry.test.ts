/**
 * The retry matrix over real HTTP: which failures are repeated for GET and POST, Retry-After
 * and the two rate-limit header spellings, the total budget, and prompt cancellation.
 */
import type http from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClients } from "../../src/client/index.js";
import type { Clients } from "../../src/client/types.js";
import {
  closedPort,
  envelope,
  type FakeUpstream,
  type Recorded,
  sendJson,
  sendText,
} from "./fake-upstream.js";
import { captureLogger, FAST, fakeWithTokens, makeConfig, rejection } from "./helpers.js";

const GROUPS = "/api/warehouses_groups_1";
const ENTRY = "/api/warehouse_entries_orders/W1";
const entryBody = { movement_type: "1" as const, document: "D-1", code_user: "U1" };

let clients: Clients | undefined;
let fake: FakeUpstream | undefined;
afterEach(async () => {
  await clients?.close();
  await fake?.close();
  clients = undefined;
});

async function setup(deps: Partial<typeof FAST> = {}, config: Parameters<typeof makeConfig>[1] = {}) {
  const f = await fakeWithTokens();
  fake = f;
  const log = captureLogger();
  clients = createClients(makeConfig(f.url, config), { logger: log.logger, ...FAST, ...deps });
  return { fake: f, clients, lines: log.lines };
}

type Fault = (req: Recorded, res: http.ServerResponse) => void;
const FAULTS: Record<string, Fault> = {
  "502": (_r, res) => sendText(res, 502, "<html><title>502 Bad Gateway</title></html>"),
  "503": (_r, res) => sendJson(res, 503, { success: false, message: "503", data: null }),
  "504": (_r, res) => sendText(res, 504, "gateway timeout", "text/plain"),
  reset: (_r, res) => res.socket?.destroy(),
  timeout: () => undefined,
};

/**
 * IMPORTANT (a loaded machine): only the "timeout" fault needs a short MMS_TIMEOUT_MS, and its token
 * is fetched first, so no other exchange (the token request, the answer that succeeds) races it.
 */
async function setupFor(fault: string) {
  const fixture = await setup({}, fault === "timeout" ? { timeoutMs: 1_000 } : {});
  if (fault === "timeout") await fixture.clients.accessToken?.();
  return fixture;
}

/** Resolves once `lines` holds a line containing `text` (an event, not a delay). */
const logged = (lines: string[], text: string) =>
  vi.waitFor(() => expect(lines.some((l) => l.includes(text))).toBe(true), { timeout: 15_000, interval: 5 });

describe("GET is retried", () => {
  it.each(Object.keys(FAULTS))("after %s, then succeeds", async (fault) => {
    const { fake, clients, lines } = await setupFor(fault);
    fake.on("GET", GROUPS, (_r, res) => envelope(res, 200, "200", []));
    fake.on("GET", GROUPS, FAULTS[fault]!, 2);
    await expect(clients.api.listWarehouseGroups1({})).resolves.toEqual({ data: [], total: 0 });
    expect(fake.count("GET", GROUPS)).toBe(3);
    const retries = lines.filter((l) => l.includes("retrying upstream request"));
    expect(retries).toHaveLength(2);
    expect(JSON.parse(retries[0]!)).toMatchObject({
      level: "debug",
      method: "GET",
      path: GROUPS,
      attempt: 2,
    });
  });

  it("up to MMS_MAX_RETRIES, then reports the last failure with the attempt count", async () => {
    const { fake, clients } = await setup({}, { maxRetries: 2 });
    fake.on("GET", GROUPS, FAULTS["503"]!);
    const e = await rejection(clients.api.listWarehouseGroups1({}));
    expect(e).toMatchObject({ status: 503, code: "UPSTREAM", retryable: true, details: { attempts: 3 } });
    expect(fake.count("GET", GROUPS)).toBe(3);
  });

  it("but not 500, 408 or 422", async () => {
    const { fake, clients } = await setup();
    for (const status of [500, 408, 422]) {
      fake.on(
        "GET",
        GROUPS,
        (_r, res) => sendJson(res, status, { success: false, message: String(status), data: [] }),
        1,
      );
      await rejection(clients.api.listWarehouseGroups1({}));
    }
    expect(fake.count("GET", GROUPS)).toBe(3);
  });
});

describe("POST is not retried", () => {
  it.each(Object.keys(FAULTS))("after %s", async (fault) => {
    const { fake, clients } = await setupFor(fault);
    fake.on("POST", ENTRY, FAULTS[fault]!);
    await rejection(clients.api.createWarehouseEntry("W1", entryBody));
    expect(fake.count("POST", ENTRY)).toBe(1);
  });

  it("except when the connection was refused (never reached the server)", async () => {
    const { fake } = await setup();
    const port = await closedPort();
    const log = captureLogger();
    clients = createClients(
      makeConfig(fake.url, { baseUrl: `http://127.0.0.1:${port}/api`, maxRetries: 2 }),
      { logger: log.logger, ...FAST },
    );
    const e = await rejection(clients.api.createWarehouseEntry("W1", entryBody));
    // Retried (never sent), then reported as a configuration problem: not retryable by the agent.
    expect(e).toMatchObject({
      code: "NETWORK",
      retryable: false,
      details: { cause: "ECONNREFUSED", attempts: 3 },
    });
    expect(log.lines.filter((l) => l.includes("retrying upstream request"))).toHaveLength(2);
  });

  it("a POST cancelled while waiting to retry a refused connection was never sent", async () => {
    const { fake } = await setup();
    const port = await closedPort();
    const log = captureLogger();
    clients = createClients(makeConfig(fake.url, { baseUrl: `http://127.0.0.1:${port}/api` }), {
      logger: log.logger,
      ...FAST,
      backoffBaseMs: 10_000,
      backoffMaxMs: 10_000,
      totalBudgetMs: 30_000,
    });
    const controller = new AbortController();
    const pending = rejection(
      clients.api.createWarehouseEntry("W1", entryBody, { signal: controller.signal }),
    );
    // In the 10 s wait once the first attempt was refused: the retry is logged before the wait.
    await logged(log.lines, "retrying upstream request");
    controller.abort();
    expect(await pending).toMatchObject({ code: "CANCELLED", retryable: true, details: undefined });
  });

  it("nor when rate limited, but the wait is reported", async () => {
    const { fake, clients } = await setup();
    fake.on("POST", ENTRY, (_r, res) =>
      sendJson(res, 429, { success: false, message: "429", data: null }, { "Retry-After": "7" }),
    );
    const e = await rejection(clients.api.createWarehouseEntry("W1", entryBody));
    expect(e).toMatchObject({ code: "RATE_LIMITED", details: { retryAfterSeconds: 7 } });
    expect(fake.count("POST", ENTRY)).toBe(1);
  });
});

describe("rate limits", () => {
  it.each([
    [429, { "Retry-After": "1" }],
    [406, { "RateLimit-Reset": "1" }],
    [406, { "Request-Call-Limit-Reset": "1" }],
  ])("%i with %j is waited out when it fits the budget", async (status, headers) => {
    const { fake, clients } = await setup();
    fake.on("GET", GROUPS, (_r, res) => envelope(res, 200, "200", []));
    fake.on(
      "GET",
      GROUPS,
      (_r, res) => sendJson(res, status, { success: false, message: String(status), data: null }, headers),
      1,
    );
    const started = performance.now();
    await clients.api.listWarehouseGroups1({});
    const elapsed = performance.now() - started;
    // Waited at least the second asked for; no upper bound (a loaded machine is only slower).
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(fake.count("GET", GROUPS)).toBe(2);
  });

  it("fails at once with RATE_LIMITED and the wait when it does not fit", async () => {
    const { fake, clients } = await setup({ totalBudgetMs: 2_000 });
    fake.on("GET", GROUPS, (_r, res) =>
      sendJson(
        res,
        429,
        { title: "Too Many Requests", status: 429 },
        { "retry-after": "30" },
        "application/problem+json",
      ),
    );
    // A 30 s wait would outlive the test's 20 s timeout: failing at all proves it did not wait.
    const e = await rejection(clients.api.listWarehouseGroups1({}));
    expect(e).toMatchObject({ code: "RATE_LIMITED", retryable: true, details: { retryAfterSeconds: 30 } });
    expect(fake.count("GET", GROUPS)).toBe(1);
  });
});

describe("time budget and cancellation", () => {
  it("a call never outlives its total budget, whatever the retries", async () => {
    const { fake, clients } = await setup(
      { totalBudgetMs: 400, backoffBaseMs: 50, backoffMaxMs: 100 },
      { timeoutMs: 300, maxRetries: 10 },
    );
    fake.on("GET", GROUPS, () => undefined);
    await clients.accessToken?.();
    const e = await rejection(clients.api.listWarehouseGroups1({}));
    expect(e.code).toBe("TIMEOUT");
    // 10 retries allowed, but a 400 ms budget holds one 300 ms attempt and what is left of it: at
    // most two attempts, however fast or slow the machine (no clock read here).
    expect(fake.count("GET", GROUPS)).toBeGreaterThanOrEqual(1);
    expect(fake.count("GET", GROUPS)).toBeLessThanOrEqual(2);
  });

  it("aborting during a backoff wait returns promptly as CANCELLED", async () => {
    const { fake, clients, lines } = await setup({
      backoffBaseMs: 10_000,
      backoffMaxMs: 10_000,
      totalBudgetMs: 30_000,
    });
    fake.on("GET", GROUPS, FAULTS["503"]!);
    const controller = new AbortController();
    const pending = rejection(clients.api.listWarehouseGroups1({}, { signal: controller.signal }));
    await logged(lines, "retrying upstream request");
    expect(fake.count("GET", GROUPS)).toBe(1);
    controller.abort();
    const e = await pending;
    // Against a 10 s wait and a 30 s budget, the test's own 20 s timeout is the bound: an abort that
    // did not end the wait would let the retries run on past it. No second request was made.
    expect(e).toMatchObject({ code: "CANCELLED", retryable: true });
    expect(fake.count("GET", GROUPS)).toBe(1);
  });

  it("aborting an in-flight request ends it; a POST says the outcome is unknown", async () => {
    const { fake, clients } = await setup();
    fake.on("POST", ENTRY, () => undefined);
    const controller = new AbortController();
    const pending = rejection(
      clients.api.createWarehouseEntry("W1", entryBody, { signal: controller.signal }),
    );
    // Aborted once the POST has reached the upstream (an event), never after a guessed delay.
    await vi.waitFor(() => expect(fake.count("POST", ENTRY)).toBe(1), { timeout: 15_000, interval: 5 });
    controller.abort();
    const e = await pending;
    expect(e).toMatchObject({ code: "CANCELLED", retryable: false, details: { outcome: "unknown" } });
  });

  it("an already-aborted signal sends nothing", async () => {
    const { fake, clients } = await setup();
    const e = await rejection(clients.api.listWarehouseGroups1({}, { signal: AbortSignal.abort() }));
    expect(e.code).toBe("CANCELLED");
    expect(fake.requests).toHaveLength(0);
  });

  // issue 9 item 9: Retry-After: 1000000000 used to read as an epoch (retry now, "wait 0 s").
  it("a huge Retry-After is capped at 5 minutes (interface.md §9b): one request, a fast failure that tells the wait", async () => {
    const { fake, clients } = await setup();
    fake.on("GET", GROUPS, (_r, res) =>
      sendJson(res, 429, { success: false, message: "429", data: null }, { "Retry-After": "1000000000" }),
    );
    // Waiting would outlive the test's timeout: failing at all proves it did not wait.
    const e = await rejection(clients.api.listWarehouseGroups1({}));
    expect(fake.count("GET", GROUPS)).toBe(1);
    expect(e).toMatchObject({ code: "RATE_LIMITED", details: { retryAfterSeconds: 300 } });
    expect(e.message).toContain("the server asked to wait 300 s");
  });

  it.each(["-1", "-3600", "soon"])(
    "a Retry-After of %j is absurd: the 5-minute cap stands in (interface.md §9b), never 'retry now'",
    async (value) => {
      const { fake, clients } = await setup({ backoffBaseMs: 100, backoffMaxMs: 100 });
      fake.on("GET", GROUPS, (_r, res) =>
        sendJson(res, 429, { success: false, message: "429", data: null }, { "Retry-After": value }),
      );
      const e = await rejection(clients.api.listWarehouseGroups1({}));
      expect(e).toMatchObject({ code: "RATE_LIMITED", details: { retryAfterSeconds: 300 } });
      expect(fake.count("GET", GROUPS)).toBe(1);
    },
  );
});
