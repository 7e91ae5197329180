/**
 * The request budget shared through a real redis-server by two "replicas" (two connections, two
 * budgets): together they never spend more than the share in any window. Once on a shared injected
 * clock (exact counts), once end to end against the rate-limited sandbox (its per-client counts are
 * the oracle), and with Redis gone (each falls back to its own count, health says degraded).
 */
import { createClient } from "@redis/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClients } from "../../src/client/index.js";
import { RateBudget } from "../../src/client/rate-budget.js";
import { RedisBudgetStores } from "../../src/client/rate-budget-redis.js";
import { MAX_UPSTREAM_WAIT_MS } from "../../src/client/retry.js";
import type { Clients } from "../../src/client/types.js";
import { loadConfig } from "../../src/config/config.js";
import { TokenSeal } from "../../src/domain/review/snapshots.js";
import { startSandbox } from "../../src/sandbox/index.js";
import { silentLogger } from "../../src/telemetry/logger.js";
import { describeRedis, type RedisServer, startRedis } from "../helpers/redis.js";

let redis: RedisServer;
const stores: RedisBudgetStores[] = [];
let seq = 0;

function replica(prefix: string, now?: () => number): RedisBudgetStores {
  const s = new RedisBudgetStores({ url: redis.url, prefix, ...(now ? { now } : {}) });
  stores.push(s);
  return s;
}

describeRedis("a request budget shared by two replicas through Redis", () => {
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await redis?.stop();
  });

  it("on one clock: exactly the share between them, then the next window", async () => {
    let now = Date.UTC(2026, 0, 1);
    const clock = () => now;
    const prefix = `t${++seq}:`;
    const [a, b] = [replica(prefix, clock), replica(prefix, clock)].map((s) => s.forCompany("acme"));
    const take = (store: typeof a, kind: "read" | "write") =>
      store!.take({ id: `${kind}-${++seq}`, kind, limit: 20, share: 0.5, windowMs: 1_000 });
    const results = [];
    for (let i = 0; i < 12; i++) results.push(await take(i % 2 === 0 ? a : b, "read"));
    expect(results.filter((r) => r.granted)).toHaveLength(9);
    const refused = results.find((r) => !r.granted);
    expect(refused).toMatchObject({ used: 9, retryInMs: 1_000 });
    // The tenth slot is the writes' reserve, from either replica.
    expect(await take(b, "write")).toMatchObject({ granted: true, used: 10 });
    expect(await take(a, "write")).toMatchObject({ granted: false });
    now += 1_000;
    expect(await take(a, "read")).toMatchObject({ granted: true, used: 1 });
  });

  it("a limit or a 406 learnt by one replica holds the other", async () => {
    let now = Date.UTC(2026, 0, 1);
    const prefix = `t${++seq}:`;
    const budgets = [replica(prefix, () => now), replica(prefix, () => now)].map(
      (s) => new RateBudget({ store: s.forCompany("acme"), windowMs: 1_000, now: () => now }),
    );
    const [a, b] = budgets as [RateBudget, RateBudget];
    (await a.acquire("read")).settle();
    await a.observe(406, { "ratelimit-reset": "30" });
    const error = await b.acquire("write").catch((e) => e);
    expect(error).toMatchObject({ code: "RATE_LIMITED", retryAt: now + 30_000 });
    now += 30_000;
    await b.acquire("read");
    expect(b.use()).toMatchObject({ limit: 200, store: "redis" });
  });

  it("a decades-long gate is kept no longer than 5 minutes, even one written before the cap (interface.md §9b)", async () => {
    let now = Date.UTC(2026, 10, 28);
    const prefix = `t${++seq}:`;
    const stores = replica(prefix, () => now);
    const budget = new RateBudget({ store: stores.forCompany("acme"), windowMs: 60_000, now: () => now });
    await budget.observe(406, { "retry-after": "999999999" });
    const other = new RateBudget({ store: replica(prefix, () => now).forCompany("acme"), now: () => now });
    const held = await other.acquire("write").catch((e) => e);
    expect(held).toMatchObject({ code: "RATE_LIMITED", retryAt: now + MAX_UPSTREAM_WAIT_MS });
    // A gate an older version kept in Redis until 2058 is cut to the cap at the next take.
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      const facts = `${prefix}acme:facts`;
      await raw.hSet(facts, { gate_left: "0", gate_until: String(Date.UTC(2058, 2, 1)) });
      const taken = await stores
        .forCompany("acme")
        .take({ id: "x", kind: "read", limit: undefined, share: 0.5, windowMs: 60_000 });
      expect(taken).toMatchObject({ granted: false, retryInMs: MAX_UPSTREAM_WAIT_MS });
      expect(Number(await raw.hGet(facts, "gate_until"))).toBe(now + MAX_UPSTREAM_WAIT_MS);
      now += MAX_UPSTREAM_WAIT_MS;
      expect((await other.acquire("read")).waitedMs).toBe(0);
    } finally {
      await raw.close();
    }
  });

  it("replicas share one resume key through Redis: a token one seals, the other opens (interface.md §9b)", async () => {
    const prefix = `t${++seq}:`;
    const [a, b] = [replica(prefix), replica(prefix)];
    const keyA = await a.sharedKey("resume-key");
    const keyB = await b.sharedKey("resume-key");
    expect(keyA).toBeDefined();
    expect(keyA!.length).toBeGreaterThanOrEqual(32);
    expect(keyB).toBe(keyA);
    const body = { v: 1 as const, t: "t", k: "k", w: "since all", s: "walk", x: 1 };
    expect(new TokenSeal(keyB).open(new TokenSeal(keyA).seal(body))).toEqual(body);
  });

  it("end to end: two replicas walking pages against the limited upstream never exceed the share together", async () => {
    const window = 1_000;
    const sb = await startSandbox({ rateLimit: { perMinute: 20, windowMs: window } });
    const prefix = `t${++seq}:`;
    const config = loadConfig({ ...sb.env(), MMS_RATE_WINDOW_MS: String(window) });
    const replicas: Clients[] = [replica(prefix), replica(prefix)].map((s) =>
      createClients(config, { logger: silentLogger, rateStore: s.forCompany("acme") }),
    );
    try {
      const pages = Array.from({ length: 30 }, (_, i) => i);
      await Promise.all(
        replicas.flatMap((clients) =>
          Array.from({ length: 4 }, async () => {
            while (pages.length > 0) await clients.api.queryBudgets({ start: pages.shift()!, limit: 1 });
          }),
        ),
      );
      const stats = sb.rateLimitStats()!.clients["demo-client"]!;
      expect(stats).toMatchObject({ accepted: 30, refused: 0 });
      expect(stats.maxInWindow).toBeLessThanOrEqual(10);
    } finally {
      await Promise.all(replicas.map((c) => c.close()));
      await sb.close();
    }
  });

  it("while Redis does not answer, each replica counts its own and says degraded", async () => {
    const s = replica(`t${++seq}:`);
    const store = s.forCompany("acme");
    await store.take({ id: "x1", kind: "read", limit: 4, share: 0.5, windowMs: 60_000 });
    expect(s.health()).toEqual({ status: "ok" });
    redis.pause();
    try {
      const taken = await store.take({ id: "x2", kind: "read", limit: 4, share: 0.5, windowMs: 60_000 });
      expect(taken).toMatchObject({ granted: true, used: 1 });
      expect(s.health()).toMatchObject({ status: "degraded" });
    } finally {
      redis.resume();
    }
  });
});
