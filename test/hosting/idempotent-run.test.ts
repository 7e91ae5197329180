/** runIdempotent over the Redis store: one upstream write per key across replicas, whatever happens. */
import { afterAll, expect, it } from "vitest";
import { ApiError, ERROR_CODES, UserInputError } from "../../src/errors/api-error.js";
import { runIdempotent } from "../../src/hosting/idempotent-run.js";
import {
  RedisIdempotencyStore,
  requestHash,
  STORE_UNREACHABLE,
} from "../../src/hosting/redis-idempotency.js";
import { describeRedis, startRedis, useRedis } from "../helpers/redis.js";
import { captureLogger } from "../helpers/sandbox.js";

const H = requestHash({ tool: "create_warehouse_entry", body: { qty: 1 } });
const OTHER = requestHash({ tool: "create_warehouse_entry", body: { qty: 2 } });
// As in src/idempotency.ts: an answer from the API that refuses the request proves nothing was written.
const wroteNothing = (e: unknown) => e instanceof ApiError && e.code === ERROR_CODES.VALIDATION;

describeRedis("runIdempotent on Redis", () => {
  const redis = useRedis();
  const stores: RedisIdempotencyStore[] = [];
  const replica = (url = redis.server.url) => {
    const s = new RedisIdempotencyStore({ url });
    stores.push(s);
    return s;
  };
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
  });
  let n = 0;
  const freshKey = () => `run-${++n}-${Date.now()}`;

  /** A fake upstream write that counts how often it really runs. */
  function counter(result: () => unknown, delayMs = 0) {
    const c = {
      writes: 0,
      write: async () => {
        c.writes += 1;
        await new Promise((r) => setTimeout(r, delayMs));
        return result();
      },
    };
    return c;
  }

  it("concurrent calls with one key split across two replicas write once; later calls replay", async () => {
    const replicas = [replica(), replica()];
    const key = freshKey();
    const entry = { id: 7, folio_target: "EN-7" };
    const up = counter(() => entry, 200);
    const settled = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        runIdempotent(replicas[i % 2]!, "plant-north", key, H, up.write, { wroteNothing }),
      ),
    );
    expect(up.writes).toBe(1);
    const ok = settled.filter((s) => s.status === "fulfilled").map((s) => s.value);
    expect(ok).toEqual([{ value: entry, replayed: false }]);
    for (const s of settled.filter((s) => s.status === "rejected")) {
      const e = s.reason as ApiError;
      expect(e.retryable).toBe(true);
      expect(e.message).toMatch(
        /^the first call with idempotency_key "run-\d+-\d+" is still in progress \(started \d+ s ago\); retry later with the same key: nothing new was written$/,
      );
    }
    for (const r of replicas)
      expect(await runIdempotent(r, "plant-north", key, H, up.write, { wroteNothing })).toEqual({
        value: entry,
        replayed: true,
      });
    expect(up.writes).toBe(1);
  });

  it("refuses the same key for another request without writing", async () => {
    const store = replica();
    const key = freshKey();
    const up = counter(() => ({ id: 1 }));
    await runIdempotent(store, "t", key, H, up.write, { wroteNothing });
    await expect(runIdempotent(store, "t", key, OTHER, up.write, { wroteNothing })).rejects.toThrow(
      UserInputError,
    );
    expect(up.writes).toBe(1);
  });

  it("releases the key after a failure that provably wrote nothing, so a corrected retry writes", async () => {
    const store = replica();
    const key = freshKey();
    const refused = counter(() => {
      throw new ApiError({ status: 422, code: ERROR_CODES.VALIDATION, message: "item 9 unknown" });
    });
    await expect(runIdempotent(store, "t", key, H, refused.write, { wroteNothing })).rejects.toThrow(
      "item 9 unknown",
    );
    const up = counter(() => ({ id: 2 }));
    expect(await runIdempotent(store, "t", key, H, up.write, { wroteNothing })).toEqual({
      value: { id: 2 },
      replayed: false,
    });
  });

  it("keeps an ambiguous failure: a retry on any replica is told so and never writes", async () => {
    const key = freshKey();
    const timedOut = counter(() => {
      throw new ApiError({
        code: ERROR_CODES.TIMEOUT,
        message: "no answer within 30000 ms",
        retryable: true,
      });
    });
    await expect(runIdempotent(replica(), "t", key, H, timedOut.write, { wroteNothing })).rejects.toThrow(
      "no answer",
    );
    const up = counter(() => ({ id: 3 }));
    const error = await runIdempotent(replica(), "t", key, H, up.write, { wroteNothing }).catch(
      (e: unknown) => e,
    );
    expect(up.writes).toBe(0);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("TIMEOUT");
    expect((error as ApiError).retryable).toBe(false);
    expect((error as ApiError).message).toBe(
      `the first call with idempotency_key "${key}" ended without a confirmed outcome (no answer within 30000 ms); check whether the entry exists before retrying with a new key`,
    );
  });

  it("sends nothing when Redis is unreachable; a write whose record is lost still returns", async () => {
    const own = await startRedis();
    const { logger, lines } = captureLogger();
    const store = new RedisIdempotencyStore({ url: own.url, logger });
    stores.push(store);
    // Redis goes away while the write runs: the write's value still comes back, with a warning.
    const slow = counter(() => ({ id: 4 }), 10);
    const result = runIdempotent(
      store,
      "t",
      freshKey(),
      H,
      async () => {
        await own.stop();
        return slow.write();
      },
      { wroteNothing, logger },
    );
    expect(await result).toEqual({ value: { id: 4 }, replayed: false });
    expect(lines.join("\n")).toContain("idempotency outcome not recorded");
    // Now every claim fails closed before the write is called.
    const up = counter(() => ({ id: 5 }));
    await expect(runIdempotent(store, "t", freshKey(), H, up.write, { wroteNothing })).rejects.toThrow(
      STORE_UNREACHABLE,
    );
    expect(up.writes).toBe(0);
  });
});
