/** The Redis idempotency backend against a real redis-server, through IdempotencyStore.run (the one place of the rules). */
import { createClient } from "@redis/client";
import { afterAll, expect, it } from "vitest";
import { ApiError, UserInputError } from "../../src/errors/api-error.js";
import { RedisIdempotencyBackend } from "../../src/idempotency/redis.js";
import { IdempotencyStore } from "../../src/idempotency/store.js";
import { describeRedis, startRedis, useRedis } from "../helpers/redis.js";

const REQUEST = { path: "warehouse_entries_orders/W1", body: { qty: 1 } };
const OTHER = { path: "warehouse_entries_orders/W1", body: { qty: 2 } };
const OUTCOME = { id: 41, folio_target: "EN-000041" };

const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describeRedis("RedisIdempotencyBackend", () => {
  const redis = useRedis();
  const backends: RedisIdempotencyBackend[] = [];
  const open = (options: { ttlMs?: number; maxResultBytes?: number; url?: string } = {}) => {
    const backend = new RedisIdempotencyBackend({ url: redis.server.url, ...options });
    backends.push(backend);
    return backend;
  };
  const store = (backend: RedisIdempotencyBackend, namespace = "plant-north") =>
    new IdempotencyStore({ backend, namespace });
  afterAll(async () => {
    await Promise.all(backends.map((b) => b.close()));
  });
  let n = 0;
  const freshKey = () => `key-${++n}-${Date.now()}`;

  it("writes once, replays on another replica, refuses the key for another request", async () => {
    const key = freshKey();
    let writes = 0;
    const write = async () => {
      writes++;
      return OUTCOME;
    };
    const a = store(open());
    const b = store(open());
    expect(await a.run("create_warehouse_entry", key, REQUEST, write)).toEqual({
      value: OUTCOME,
      replayed: false,
    });
    expect(await b.run("create_warehouse_entry", key, REQUEST, write)).toEqual({
      value: OUTCOME,
      replayed: true,
    });
    expect(await errorOf(b.run("create_warehouse_entry", key, OTHER, write))).toBeInstanceOf(UserInputError);
    expect(writes).toBe(1);
  });

  it("two replicas racing on one key: exactly one write, the others 'in progress'", async () => {
    const [a, b] = [store(open()), store(open())];
    for (let round = 0; round < 3; round++) {
      const key = freshKey();
      let writes = 0;
      const write = async () => {
        writes++;
        await new Promise((r) => setTimeout(r, 100));
        return OUTCOME;
      };
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).run("t", key, REQUEST, write)),
      );
      expect(writes).toBe(1);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      for (const r of results)
        if (r.status === "rejected")
          expect((r.reason as ApiError).details).toMatchObject({ state: "in_progress" });
    }
  });

  it("releases a key whose call provably wrote nothing; keeps an ambiguous failure", async () => {
    const s = store(open());
    const key = freshKey();
    await errorOf(
      s.run("t", key, REQUEST, async () => {
        throw new UserInputError("refused before sending");
      }),
    );
    expect(await s.run("t", key, OTHER, async () => OUTCOME)).toEqual({ value: OUTCOME, replayed: false });
    const key2 = freshKey();
    const timeout = new ApiError({ code: "TIMEOUT", message: "no answer", details: { outcome: "unknown" } });
    await errorOf(
      s.run("t", key2, REQUEST, async () => {
        throw timeout;
      }),
    );
    const replay = (await errorOf(s.run("t", key2, REQUEST, async () => OUTCOME))) as ApiError;
    expect(replay.message).toContain("ended without a confirmed outcome");
  });

  it("keeps tenants apart under mcp:idem2:[tenant,tool,key], with the TTL", async () => {
    const backend = open({ ttlMs: 5_000 });
    const key = freshKey();
    await store(backend, "plant-north").run("t", key, REQUEST, async () => OUTCOME);
    // The same key in another tenant is a new key: no replay of north's outcome, no conflict.
    expect(await store(backend, "plant-south").run("t", key, OTHER, async () => ({ id: 7 }))).toEqual({
      value: { id: 7 },
      replayed: false,
    });
    const raw = createClient({ url: redis.server.url });
    await raw.connect();
    try {
      expect((await raw.keys(`mcp:idem2:*${key}*`)).sort()).toEqual([
        `mcp:idem2:["plant-north","t","${key}"]`,
        `mcp:idem2:["plant-south","t","${key}"]`,
      ]);
      const ttl = await raw.pTTL(`mcp:idem2:["plant-north","t","${key}"]`);
      expect(ttl).toBeGreaterThan(3_000);
      expect(ttl).toBeLessThanOrEqual(5_000);
    } finally {
      raw.destroy();
    }
  });

  it("forgets a key after its TTL", async () => {
    const s = store(open({ ttlMs: 300 }));
    const key = freshKey();
    await s.run("t", key, REQUEST, async () => OUTCOME);
    expect((await s.run("t", key, REQUEST, async () => OUTCOME)).replayed).toBe(true);
    await new Promise((r) => setTimeout(r, 700));
    expect((await s.run("t", key, OTHER, async () => OUTCOME)).replayed).toBe(false);
  });

  it("keeps a summary in place of an oversized result and says so on replay", async () => {
    const s = store(open({ maxResultBytes: 100 }));
    const key = freshKey();
    const big = { text: "x".repeat(200) };
    await s.run(
      "t",
      key,
      REQUEST,
      async () => big,
      () => "entry EN-1 created",
    );
    const error = (await errorOf(s.run("t", key, REQUEST, async () => big))) as ApiError;
    expect(error.message).toContain("entry EN-1 created");
  });

  it("fails closed, fast and clearly, when Redis goes down: the write is not called", async () => {
    const own = await startRedis();
    const s = store(open({ url: own.url }));
    await s.run("t", freshKey(), REQUEST, async () => OUTCOME);
    await own.stop();
    let called = false;
    const error = (await errorOf(
      s.run("t", freshKey(), REQUEST, async () => {
        called = true;
        return OUTCOME;
      }),
    )) as ApiError;
    expect(called).toBe(false);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe("IDEMPOTENCY");
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("nothing was sent");
  });

  it("fails closed when Redis was never reachable", async () => {
    const s = store(open({ url: "redis://127.0.0.1:1" }));
    for (let i = 0; i < 2; i++)
      expect(((await errorOf(s.run("t", freshKey(), REQUEST, async () => OUTCOME))) as ApiError).code).toBe(
        "IDEMPOTENCY",
      );
  });
});
