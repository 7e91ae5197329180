/**
 * The request budget against a loopback upstream that enforces the platform's limit (the sandbox's
 * `rateLimit`, with a short window): the limit learnt from each header spelling, an upstream that
 * announces none meeting a 406 (one request refused, no burst, the documented 200 from then on), a
 * review-like walk of many pages never refused while a second client of the same company at a quarter
 * of the limit is never refused either, and the signal ending a wait for the budget with nothing sent.
 * No assertion on elapsed time: the sandbox's own per-client counts are the oracle.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createClients } from "../../src/client/index.js";
import type { Clients } from "../../src/client/types.js";
import { loadConfig } from "../../src/config/config.js";
import { type RateLimitOptions, type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { silentLogger } from "../../src/telemetry/logger.js";
import { rejection } from "./helpers.js";

let sb: SandboxHandle | undefined;
const open: Clients[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  await sb?.close();
  sb = undefined;
});

async function upstream(rateLimit: RateLimitOptions): Promise<SandboxHandle> {
  sb = await startSandbox({ rateLimit });
  return sb;
}

function clientsOf(
  handle: SandboxHandle,
  env: Record<string, string> = {},
  client: "demo" | "readonly" = "demo",
) {
  const clients = createClients(loadConfig({ ...handle.env({ client }), MMS_MAX_RETRIES: "1", ...env }), {
    logger: silentLogger,
  });
  open.push(clients);
  return clients;
}

describe("the limit learnt from the upstream", () => {
  it.each(["request-call-limit", "ratelimit"] as const)("from %s headers alone", async (headers) => {
    const handle = await upstream({ perMinute: 40, headers });
    const clients = clientsOf(handle);
    await clients.api.listWarehouseGroups1({});
    expect(clients.budgetUse?.()).toMatchObject({
      limit: 40,
      limit_source: "upstream",
      allowed: 20,
      used: 1,
    });
  });

  it("an upstream that announces none: no budget until its 406, then the documented 200, and no burst of retries", async () => {
    const handle = await upstream({ perMinute: 3, headers: "none" });
    const clients = clientsOf(handle);
    for (let i = 0; i < 3; i++) await clients.api.listWarehouseGroups1({});
    expect(clients.budgetUse?.()).toMatchObject({ limit: null, limit_source: "unknown" });
    const before = Date.now();
    const error = await rejection(clients.api.listWarehouseGroups1({}));
    // A 406 without a reset: a whole window (the documented minute), which does not fit the call's time.
    expect(error).toMatchObject({ code: "RATE_LIMITED", status: 406, retryable: true });
    expect(error.retryAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(clients.budgetUse?.()).toMatchObject({ limit: 200, limit_source: "upstream", allowed: 100 });
    expect(clients.budgetUse?.()?.blocked_until).toBeDefined();
    expect(handle.rateLimitStats()?.clients["demo-client"]).toMatchObject({ accepted: 3, refused: 1 });
    // The next call is refused locally, before anything is sent.
    const local = await rejection(clients.api.listWarehouseGroups1({}, { deadline: Date.now() + 1_000 }));
    expect(local).toMatchObject({ code: "RATE_LIMITED", status: undefined });
    expect(local.message).toContain("nothing was sent");
    expect(handle.rateLimitStats()?.clients["demo-client"]?.refused).toBe(1);
  });

  it("a 406 whose reset fits the call's time is waited out and repeated once", async () => {
    const handle = await upstream({ perMinute: 2, windowMs: 400, headers: "none" });
    const clients = clientsOf(handle);
    handle.faults.failNext("/api/warehouses_groups_1", 1, {
      status: 406,
      body: { success: false, message: "406", data: [{ ERROR: "too many" }] },
      headers: { "RateLimit-Reset": "1" },
    });
    await expect(clients.api.listWarehouseGroups1({})).resolves.toMatchObject({ data: expect.any(Array) });
    expect(handle.faults.requestCount["GET /api/warehouses_groups_1"]).toBe(2);
  });
});

describe("a walk of many pages beside another integration of the same company", () => {
  it("ours stays within its share in every window, neither is ever refused", async () => {
    const window = 1_000;
    const handle = await upstream({ perMinute: 20, windowMs: window });
    const ours = clientsOf(handle, { MMS_RATE_WINDOW_MS: String(window) });
    const other = clientsOf(handle, { MMS_RATE_LIMIT: "0" }, "readonly");
    let walking = true;
    // The other integration: 50 a minute of the platform's 200, so a quarter of the limit per window.
    const otherRuns = (async () => {
      let sent = 0;
      while (walking) {
        await other.api.listWarehouseGroups1({});
        sent += 1;
        await new Promise((r) => setTimeout(r, window / 5));
      }
      return sent;
    })();
    const pages = Array.from({ length: 36 }, (_, i) => i);
    const workers = Array.from({ length: 6 }, async () => {
      while (pages.length > 0) {
        const start = pages.shift()!;
        await ours.api.queryBudgets({ start, limit: 1 });
      }
    });
    await Promise.all(workers);
    walking = false;
    const otherSent = await otherRuns;
    const stats = handle.rateLimitStats()!;
    expect(stats.clients["demo-client"]).toMatchObject({ accepted: 36, refused: 0 });
    expect(stats.clients["demo-client"]!.maxInWindow).toBeLessThanOrEqual(10);
    expect(stats.clients["readonly-client"]).toMatchObject({ accepted: otherSent, refused: 0 });
  });
});

describe("cancellation", () => {
  it("the signal ends a wait for the budget at once: CANCELLED, nothing sent", async () => {
    const handle = await upstream({ perMinute: 2, windowMs: 60_000 });
    const clients = clientsOf(handle);
    await clients.api.listWarehouseGroups1({});
    const controller = new AbortController();
    const waiting = rejection(clients.api.listWarehouseGroups1({}, { signal: controller.signal }));
    while ((clients.budgetUse?.()?.waiting.reads ?? 0) === 0) await new Promise((r) => setImmediate(r));
    controller.abort();
    expect(await waiting).toMatchObject({ code: "CANCELLED" });
    expect(handle.rateLimitStats()?.clients["demo-client"]).toMatchObject({ accepted: 1, refused: 0 });
  });
});
