/**
 * What Redis holds and how it is set up (interface.md §7b "Eviction", "Honest outcomes"), against real
 * redis-servers: an evicting maxmemory-policy refuses the built binary's start (exit 2, the fix named),
 * a refused CONFIG GET gives a warning, a policy changed later refuses keyed writes until it is back; a
 * full Redis (OOM) and a corrupt record get their own non-retryable answers; keys encode the
 * idempotency key one-to-one and records of the first layout are read where, and only where, they name
 * one key; a record left "running" by a dead replica is "outcome unknown" once its budget has passed.
 */
import { createClient } from "@redis/client";
import { afterAll, expect, it } from "vitest";
import type { ApiError } from "../../src/errors/api-error.js";
import { idempotencyBackends } from "../../src/hosting/idempotency.js";
import { RedisIdempotencyBackend } from "../../src/idempotency/redis.js";
import { IdempotencyStore, requestHash } from "../../src/idempotency/store.js";
import { recordId } from "../../src/idempotency/types.js";
import { describeRedis, startRedis, useRedis } from "../helpers/redis.js";
import { captureLogger, useSandbox } from "../helpers/sandbox.js";
import { OUTCOME, quiet, REQUEST, rejection, sleep } from "../helpers/store.js";
import { spawnBin, within } from "../quality/helpers.js";

async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(25);
  }
}

/** A raw client for what the server must not be trusted to do itself. */
async function rawClient(url: string) {
  const raw = createClient({ url });
  await raw.connect();
  return raw;
}

describeRedis("Redis records", () => {
  const redis = useRedis();
  const opened: RedisIdempotencyBackend[] = [];
  const open = (options: { heartbeatMs?: number; url?: string } = {}) => {
    const backend = new RedisIdempotencyBackend({ url: redis.server.url, logger: quiet, ...options });
    opened.push(backend);
    return backend;
  };
  afterAll(async () => {
    await Promise.all(opened.map((b) => b.close()));
  });
  let n = 0;
  const fresh = (name: string) => `${name}-${++n}-${Date.now()}`;

  it("c:d and c\\0d are two keys; tenant and tool parts cannot run into each other", async () => {
    const store = new IdempotencyStore({ backend: open(), namespace: "enc" });
    const a = await store.run("t", "c:d", REQUEST, async () => ({ id: 1 }));
    const b = await store.run("t", "c\u0000d", REQUEST, async () => ({ id: 2 }));
    const c = await new IdempotencyStore({ backend: open(), namespace: "enc:t" }).run(
      "c",
      "d",
      REQUEST,
      async () => ({ id: 3 }),
    );
    expect([a, b, c]).toEqual([
      { value: { id: 1 }, replayed: false },
      { value: { id: 2 }, replayed: false },
      { value: { id: 3 }, replayed: false },
    ]);
    const raw = await rawClient(redis.server.url);
    try {
      expect((await raw.keys('mcp:idem2:\\["enc*')).sort()).toEqual([
        'mcp:idem2:["enc","t","c:d"]',
        'mcp:idem2:["enc","t","c\\u0000d"]',
        'mcp:idem2:["enc:t","c","d"]',
      ]);
    } finally {
      raw.destroy();
    }
    expect(await store.run("t", "c\u0000d", REQUEST, async () => ({ id: 9 }))).toEqual({
      value: { id: 2 },
      replayed: true,
    });
  });

  it("reads a record of the first layout where its key names one idempotency key, never elsewhere", async () => {
    const store = new IdempotencyStore({ backend: open(), namespace: "plant-north" });
    const done = (json: string) =>
      `old-claim ${JSON.stringify({ s: "done", h: requestHash("t", REQUEST), o: { ok: true, json } })}`;
    const raw = await rawClient(redis.server.url);
    try {
      // Written before the upgrade by a replica of the first layout.
      await raw.set("mcp:idem:plant-north:t:order-17", done(JSON.stringify(OUTCOME)), { PX: 60_000 });
      await raw.set("mcp:idem:plant-north:t:c:d", done('{"id":99}'), { PX: 60_000 });
    } finally {
      raw.destroy();
    }
    let writes = 0;
    const write = async () => {
      writes++;
      return { id: 100 + writes };
    };
    // Its protection holds across the upgrade ...
    expect(await store.run("t", "order-17", REQUEST, write)).toEqual({ value: OUTCOME, replayed: true });
    // ... but `mcp:idem:plant-north:t:c:d` may have been written for `c:d` or `c\0d`: it is never read.
    expect(await store.run("t", "c:d", REQUEST, write)).toEqual({ value: { id: 101 }, replayed: false });
    expect(await store.run("t", "c\u0000d", REQUEST, write)).toEqual({ value: { id: 102 }, replayed: false });
    expect(writes).toBe(2);
  });

  it("a corrupt record and a key of another type: their own non-retryable answer, nothing sent", async () => {
    const store = new IdempotencyStore({ backend: open(), namespace: "corrupt" });
    const raw = await rawClient(redis.server.url);
    try {
      await raw.set('mcp:idem2:["corrupt","t","garbled"]', "not a record");
      await raw.hSet('mcp:idem2:["corrupt","t","hash"]', "f", "v");
    } finally {
      raw.destroy();
    }
    let sent = 0;
    for (const key of ["garbled", "hash"]) {
      const e = await rejection(
        store.run("t", key, REQUEST, async () => {
          sent++;
          return OUTCOME;
        }),
      );
      expect(e).toMatchObject({ code: "IDEMPOTENCY", retryable: false, details: { state: "corrupt" } });
      expect(e.message).toBe(
        `the idempotency record of idempotency_key "${key}" cannot be read (it is corrupt), so nothing was sent and whether the first call wrote is unknown: check the upstream before writing again, and use a new idempotency_key`,
      );
    }
    expect(sent).toBe(0);
  });

  it("a record left running by a dead replica: 'still running' within the budget, 'outcome unknown' after", async () => {
    const key = fresh("dead");
    // Replica A claims the key, then dies before completing it.
    const a = open();
    expect(await a.claim(recordId("plant-north", "t", key), requestHash("t", REQUEST))).toEqual({
      status: "claimed",
    });
    await a.close();
    const b = new IdempotencyStore({ backend: open(), namespace: "plant-north", callBudgetMs: 60_000 });
    const still = await rejection(b.run("t", key, REQUEST, async () => OUTCOME));
    expect(still).toMatchObject({ retryable: true, details: { state: "in_progress" } });
    // The same record, started 10 minutes ago by Redis's clock: far past A's budget.
    const raw = await rawClient(redis.server.url);
    const redisKey = `mcp:idem2:${recordId("plant-north", "t", key)}`;
    try {
      const [seconds] = (await raw.sendCommand(["TIME"])) as [string, string];
      const value = (await raw.get(redisKey))!;
      const record = JSON.parse(value.slice(value.indexOf(" ") + 1)) as { t: number };
      record.t = Number(seconds) * 1000 - 600_000;
      await raw.set(redisKey, `${value.slice(0, value.indexOf(" "))} ${JSON.stringify(record)}`, {
        KEEPTTL: true,
      });
    } finally {
      raw.destroy();
    }
    let sent = false;
    const unknown = await rejection(
      b.run("t", key, REQUEST, async () => {
        sent = true;
        return OUTCOME;
      }),
    );
    expect(sent).toBe(false);
    expect(unknown).toMatchObject({ code: "IDEMPOTENCY", retryable: false, details: { state: "unknown" } });
    expect(unknown.message).toMatch(
      /^outcome unknown: check the upstream before writing again\. The first call with idempotency_key "dead-[^"]+" started 60[01] s ago and never reported an outcome/,
    );
  });

  it("a policy changed to evicting after start refuses keyed writes until it is noeviction again", async () => {
    const backend = open({ heartbeatMs: 50 });
    const store = new IdempotencyStore({ backend, namespace: "policy" });
    expect((await store.run("t", fresh("p"), REQUEST, async () => OUTCOME)).replayed).toBe(false);
    const raw = await rawClient(redis.server.url);
    try {
      await raw.configSet("maxmemory-policy", "allkeys-lru");
      await until("degraded", () => backend.health().status === "degraded");
      expect(backend.health().reason).toBe(
        "Redis's maxmemory-policy is allkeys-lru, not noeviction; keyed writes are refused",
      );
      const e = await rejection(store.run("t", fresh("p"), REQUEST, async () => OUTCOME));
      expect(e).toMatchObject({ retryable: false, details: { state: "misconfigured" } });
    } finally {
      await raw.configSet("maxmemory-policy", "noeviction");
      raw.destroy();
    }
    await until("ok again", () => backend.health().status === "ok");
    expect((await store.run("t", fresh("p"), REQUEST, async () => OUTCOME)).replayed).toBe(false);
  });
});

describeRedis("Redis set up to evict, to refuse CONFIG, or full", () => {
  const fx = useSandbox();

  it("maxmemory-policy volatile-lru: the built binary refuses to start (exit 2) and names the fix", async () => {
    const evicting = await startRedis(["--maxmemory-policy", "volatile-lru"]);
    try {
      const server = spawnBin(["--http", "--port", "0"], {
        ...fx.sb.env(),
        REDIS_URL: evicting.url,
        LOG_LEVEL: "warn",
      });
      const code = await within(15_000, server.exited, "refused start");
      expect(code).toBe(2);
      expect(server.stderr()).toContain(
        "maintenance-mcp: Configuration problem: REDIS_URL: Redis's maxmemory-policy is volatile-lru, so Redis may evict idempotency records and a retried write would then be sent twice; set it to noeviction: run CONFIG SET maxmemory-policy noeviction",
      );
      expect(server.stderr()).not.toContain("listening on");
      expect(server.stdout()).toBe("");
    } finally {
      await evicting.stop();
    }
  });

  it("CONFIG renamed away: a warning says what must hold, and keyed writes work", async () => {
    const noConfig = await startRedis(["--rename-command", "CONFIG", ""]);
    const { logger, lines } = captureLogger("info");
    const backends = await idempotencyBackends({
      redisUrl: noConfig.url,
      ttlMs: 60_000,
      redisTimeoutMs: 1_000,
      tenants: undefined,
      logger,
      redis: { heartbeatMs: 50 },
    });
    try {
      const warning = lines
        .map((l) => JSON.parse(l) as { level: string; msg: string })
        .find((l) => l.level === "warn");
      expect(warning?.msg).toMatch(
        /^Redis refused CONFIG GET maxmemory-policy \(ERR unknown command 'CONFIG'.*\), so the server cannot check it: idempotency records must never be evicted, so make sure the policy is noeviction/,
      );
      const store = new IdempotencyStore({ backend: backends.forTenant(undefined) });
      expect((await store.run("t", "k", REQUEST, async () => OUTCOME)).replayed).toBe(false);
      // The checks between commands use PING then, and stay healthy.
      await sleep(200);
      expect(backends.health()).toMatchObject({ store: "redis", status: "ok" });
    } finally {
      await backends.close();
      await noConfig.stop();
    }
  });

  it("a full Redis (noeviction, maxmemory reached): its own non-retryable answer, never 'cannot be reached'", async () => {
    const small = await startRedis(["--maxmemory", "2mb", "--maxmemory-policy", "noeviction"]);
    const backend = new RedisIdempotencyBackend({ url: small.url, logger: quiet });
    const raw = await rawClient(small.url);
    try {
      const store = new IdempotencyStore({ backend, namespace: "full" });
      expect((await store.run("t", "before", REQUEST, async () => OUTCOME)).replayed).toBe(false);
      let filled = false;
      for (let i = 0; i < 10_000 && !filled; i++)
        filled = await raw.set(`fill:${i}`, "x".repeat(1000)).then(
          () => false,
          () => true,
        );
      expect(filled).toBe(true);
      let sent = 0;
      const write = async () => {
        sent++;
        return OUTCOME;
      };
      // Redis's memory wavers around the bound: the first claims may still fit.
      let refused: ApiError | undefined;
      for (let i = 0; i < 20 && refused === undefined; i++)
        refused = await store.run("t", `k${i}`, REQUEST, write).then(
          () => undefined,
          (e: unknown) => e as ApiError,
        );
      expect(refused).toMatchObject({ code: "IDEMPOTENCY", retryable: false, details: { state: "full" } });
      expect(refused?.message).toMatch(
        /^the idempotency store is out of memory \(Redis reached its maxmemory\), so this keyed write was refused and nothing was sent; retrying will not help until an operator frees room/,
      );
      expect(refused?.message).not.toMatch(/cannot be reached|retry later/);
      expect(backend.health()).toMatchObject({
        status: "degraded",
        reason: "Redis is out of memory (maxmemory reached); keyed writes are refused",
      });
      const sentBefore = sent;
      await raw.flushAll();
      expect((await store.run("t", "after", REQUEST, write)).replayed).toBe(false);
      expect(sent).toBe(sentBefore + 1);
      expect(backend.health().status).toBe("ok");
    } finally {
      raw.destroy();
      await backend.close();
      await small.stop();
    }
  });
});
