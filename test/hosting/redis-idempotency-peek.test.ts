/** IdempotencyStore.peek over the Redis backend against a real redis-server: the record another replica wrote, read only. */
import { afterAll, expect, it } from "vitest";
import { RedisIdempotencyBackend } from "../../src/idempotency/redis.js";
import { IdempotencyStore } from "../../src/idempotency/store.js";
import { describeRedis, useRedis } from "../helpers/redis.js";

const req = (n: number) => ({ method: "POST", path: "/api/x", body: { n } });

describeRedis("IdempotencyStore.peek over Redis", () => {
  const redis = useRedis();
  const backends: RedisIdempotencyBackend[] = [];
  const store = (url = redis.server.url) => {
    const backend = new RedisIdempotencyBackend({ url });
    backends.push(backend);
    return new IdempotencyStore({ backend, namespace: "plant-north" });
  };
  afterAll(async () => {
    await Promise.all(backends.map((b) => b.close()));
  });

  it("reads the shared record another replica wrote, and leaves the key free when unused", async () => {
    const [a, b] = [store(), store()];
    expect(await b.peek("t", "k", req(1))).toEqual({ state: "unused", room: "checked" });
    expect((await a.run("t", "k", req(1), async () => ({ id: 41 }))).replayed).toBe(false);
    expect(await b.peek("t", "k", req(1))).toMatchObject({ state: "done", value: { id: 41 } });
    expect(await b.peek("t", "k", req(2))).toEqual({ state: "mismatch" });

    let open!: (n: number) => void;
    const gate = new Promise<number>((r) => {
      open = r;
    });
    const running = a.run("t", "slow", req(1), () => gate);
    // The claim is in Redis once run() has awaited it; poll the shared record until it shows.
    let seen = await b.peek("t", "slow", req(1));
    for (let i = 0; i < 50 && seen.state === "unused"; i++) seen = await b.peek("t", "slow", req(1));
    expect(seen).toEqual({ state: "in_progress" });
    open(1);
    expect((await running).replayed).toBe(false);
  });

  it("answers 'unavailable' when Redis cannot be reached", async () => {
    expect(await store("redis://127.0.0.1:1").peek("t", "k", req(1))).toMatchObject({
      state: "unavailable",
      reason: expect.stringMatching(
        /^the idempotency store cannot be reached, so this keyed write was refused/,
      ),
    });
  });
});
