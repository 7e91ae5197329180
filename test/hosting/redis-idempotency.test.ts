/** The Redis idempotency store against a real redis-server: Stripe's semantics, replicas, outages. */
import { createClient } from "@redis/client";
import { afterAll, describe, expect, it } from "vitest";
import { ApiError, ConfigError } from "../../src/errors/api-error.js";
import {
  idempotencyTtlMs,
  RedisIdempotencyStore,
  requestHash,
  STORE_UNREACHABLE,
} from "../../src/hosting/redis-idempotency.js";
import { describeRedis, startRedis, useRedis } from "../helpers/redis.js";

const H1 = requestHash({ tool: "create_warehouse_entry", body: { qty: 1 } });
const H2 = requestHash({ tool: "create_warehouse_entry", body: { qty: 2 } });
const OUTCOME = { id: 41, folio_target: "EN-000041" };

describe("requestHash and idempotencyTtlMs", () => {
  it("hashes the canonical request: key order does not matter, values do", () => {
    expect(requestHash({ a: 1, b: { c: [1, 2], d: "x" } })).toBe(
      requestHash({ b: { d: "x", c: [1, 2] }, a: 1 }),
    );
    expect(requestHash({ a: 1, b: [1, 2] })).not.toBe(requestHash({ a: 1, b: [2, 1] }));
    expect(H1).toMatch(/^[0-9a-f]{64}$/);
  });

  it("reads MCP_IDEMPOTENCY_TTL_SECONDS (default 24 h) and refuses bad values", () => {
    expect(idempotencyTtlMs({})).toBe(86_400_000);
    expect(idempotencyTtlMs({ MCP_IDEMPOTENCY_TTL_SECONDS: "60" })).toBe(60_000);
    for (const bad of ["0", "-5", "1.5", "ten", String(31 * 86_400)])
      expect(() => idempotencyTtlMs({ MCP_IDEMPOTENCY_TTL_SECONDS: bad })).toThrow(ConfigError);
  });
});

describeRedis("RedisIdempotencyStore", () => {
  const redis = useRedis();
  const stores: RedisIdempotencyStore[] = [];
  const open = (options: { ttlMs?: number; maxOutcomeBytes?: number; url?: string } = {}) => {
    const store = new RedisIdempotencyStore({ url: redis.server.url, ...options });
    stores.push(store);
    return store;
  };
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
  });
  let n = 0;
  const freshKey = () => `key-${++n}-${Date.now()}`;

  it("claims a new key, replays its outcome, refuses it for another request", async () => {
    const store = open();
    const key = freshKey();
    const first = await store.claim("plant-north", key, H1);
    expect(first.kind).toBe("new");
    if (first.kind !== "new") return;
    expect(await store.complete("plant-north", key, first.claim, OUTCOME)).toBe(true);
    expect(await store.claim("plant-north", key, H1)).toEqual({ kind: "replay", outcome: OUTCOME });
    expect(await store.claim("plant-north", key, H2)).toEqual({ kind: "conflict" });
    // A replica that never saw the first call replays it too.
    expect(await open().claim("plant-north", key, H1)).toEqual({ kind: "replay", outcome: OUTCOME });
  });

  it("answers 'in progress' while the first call runs, and 'conflict' for another request", async () => {
    const store = open();
    const key = freshKey();
    const before = Date.now();
    const first = await store.claim("plant-north", key, H1);
    expect(first.kind).toBe("new");
    const again = await store.claim("plant-north", key, H1);
    expect(again.kind).toBe("in_progress");
    if (again.kind === "in_progress") expect(again.startedAt).toBeGreaterThanOrEqual(before);
    expect(await store.claim("plant-north", key, H2)).toEqual({ kind: "conflict" });
  });

  it("release frees only a running key held by the same claim", async () => {
    const store = open();
    const key = freshKey();
    const first = await store.claim("t", key, H1);
    if (first.kind !== "new") throw new Error("expected new");
    expect(await store.release("t", key, "someone-else")).toBe(false);
    expect((await store.claim("t", key, H1)).kind).toBe("in_progress");
    expect(await store.release("t", key, first.claim)).toBe(true);
    const second = await store.claim("t", key, H2);
    expect(second.kind).toBe("new");
    if (second.kind !== "new") return;
    // The old claim can neither complete nor release the new holder's record.
    expect(await store.complete("t", key, first.claim, OUTCOME)).toBe(false);
    expect(await store.release("t", key, first.claim)).toBe(false);
    expect(await store.complete("t", key, second.claim, OUTCOME)).toBe(true);
    // A completed record is never released: the write happened.
    expect(await store.release("t", key, second.claim)).toBe(false);
    expect(await store.claim("t", key, H2)).toEqual({ kind: "replay", outcome: OUTCOME });
  });

  it("forgets a key after its TTL", async () => {
    const store = open({ ttlMs: 300 });
    const key = freshKey();
    const first = await store.claim("t", key, H1);
    if (first.kind !== "new") throw new Error("expected new");
    await store.complete("t", key, first.claim, OUTCOME);
    expect((await store.claim("t", key, H1)).kind).toBe("replay");
    await new Promise((r) => setTimeout(r, 700));
    expect((await store.claim("t", key, H2)).kind).toBe("new");
  });

  it("two replicas racing on one key: exactly one 'new'", async () => {
    const [a, b] = [open(), open()];
    for (let round = 0; round < 5; round++) {
      const key = freshKey();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).claim("plant-north", key, H1)),
      );
      expect(results.filter((r) => r.kind === "new")).toHaveLength(1);
      expect(results.filter((r) => r.kind === "in_progress")).toHaveLength(19);
    }
  });

  it("keeps tenants' namespaces apart under mcp:idem:<tenant>:<key>", async () => {
    const store = open();
    const key = freshKey();
    const north = await store.claim("plant-north", key, H1);
    const south = await store.claim("plant-south", key, H2);
    expect([north.kind, south.kind]).toEqual(["new", "new"]);
    if (north.kind !== "new") return;
    await store.complete("plant-north", key, north.claim, OUTCOME);
    expect((await store.claim("plant-south", key, H2)).kind).toBe("in_progress");
    expect((await store.claim("plant-south", key, H1)).kind).toBe("conflict");
    const raw = createClient({ url: redis.server.url });
    await raw.connect();
    try {
      expect((await raw.keys(`mcp:idem:*:${key}`)).sort()).toEqual([
        `mcp:idem:plant-north:${key}`,
        `mcp:idem:plant-south:${key}`,
      ]);
      const ttl = await raw.pTTL(`mcp:idem:plant-north:${key}`);
      expect(ttl).toBeGreaterThan(86_000_000);
    } finally {
      raw.destroy();
    }
    await expect(store.claim("plant:north", key, H1)).rejects.toThrow(TypeError);
  });

  it("keeps an oversized outcome out of Redis and says so on replay", async () => {
    const store = open({ maxOutcomeBytes: 100 });
    const key = freshKey();
    const first = await store.claim("t", key, H1);
    if (first.kind !== "new") throw new Error("expected new");
    expect(await store.complete("t", key, first.claim, { text: "x".repeat(200) })).toBe(true);
    expect(await store.claim("t", key, H1)).toEqual({
      kind: "replay",
      outcome: undefined,
      omitted:
        "the first outcome (211 bytes) was larger than the 100-byte cap and was not kept; the write happened once",
    });
  });

  it("fails closed, fast and clearly, when Redis is down", async () => {
    const own = await startRedis();
    const store = open({ url: own.url });
    const key = freshKey();
    const first = await store.claim("t", key, H1);
    expect(first.kind).toBe("new");
    await own.stop();
    const started = Date.now();
    const error = await store.claim("t", freshKey(), H1).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe(STORE_UNREACHABLE);
    expect((error as ApiError).code).toBe("NETWORK");
    expect((error as ApiError).retryable).toBe(true);
    // Bounded, not hanging on a reconnect queue (wide margin: the timeout is 1 s).
    expect(Date.now() - started).toBeLessThan(10_000);
    if (first.kind === "new") expect(await store.complete("t", key, first.claim, OUTCOME)).toBe(false);
  });

  it("fails closed when Redis was never reachable", async () => {
    const store = open({ url: "redis://127.0.0.1:1" });
    await expect(store.claim("t", freshKey(), H1)).rejects.toThrow(STORE_UNREACHABLE);
    await expect(store.claim("t", freshKey(), H1)).rejects.toThrow(STORE_UNREACHABLE);
  });
});
