/**
 * Redis that stops answering (interface.md §7b "Redis deadlines"), with a real redis-server frozen by
 * SIGSTOP: keyed writes fail within MCP_REDIS_TIMEOUT_MS and send nothing, later ones fail at once,
 * the connection is rebuilt, /healthz says "degraded" (HTTP 200), reads and unkeyed writes go on, 100
 * keyed writes never fill the request limit, and when Redis resumes nothing held goes upstream late.
 * Also: a completion Redis missed is recorded once it answers; the shutdown answer with a shared store.
 */
import { createClient } from "@redis/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { type IdempotencyBackends, idempotencyBackends } from "../../src/hosting/idempotency.js";
import { createServerSet } from "../../src/hosting/servers.js";
import { RedisIdempotencyBackend } from "../../src/idempotency/redis.js";
import { CLAIM } from "../../src/idempotency/redis-records.js";
import { IdempotencyStore } from "../../src/idempotency/store.js";
import { createStateSigner } from "../../src/mcp/sdk.js";
import { createServer, selectTools } from "../../src/mcp/server.js";
import { type HttpHandle, startHttp } from "../../src/mcp/transports/http.js";
import { textOf } from "../helpers/mcp.js";
import { raw2026 } from "../helpers/raw-2026.js";
import { describeRedis, type RedisServer, startRedis } from "../helpers/redis.js";
import { useSandbox } from "../helpers/sandbox.js";
import { OUTCOME, quiet, REQUEST, rejection, sleep } from "../helpers/store.js";
import { countOf, purchaseArgs } from "../quality/helpers.js";

/** Poll `check` every 50 ms until it holds or `ms` passes (then fail with `what`). */
async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(50);
  }
}

describeRedis("Redis that stops answering (SIGSTOP)", () => {
  let redis: RedisServer;
  const backends: RedisIdempotencyBackend[] = [];
  const open = (timeoutMs: number) => {
    const backend = new RedisIdempotencyBackend({ url: redis.url, timeoutMs, logger: quiet });
    backends.push(backend);
    return backend;
  };
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(backends.map((b) => b.close()));
    await redis?.stop();
  });
  async function rawKeys(pattern: string): Promise<string[]> {
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      return await raw.keys(pattern);
    } finally {
      raw.destroy();
    }
  }

  it("keyed writes fail within the deadline and send nothing; the next fail at once; after the resume the same key writes once", async () => {
    const backend = open(1_000);
    const store = new IdempotencyStore({ backend, namespace: "paused" });
    expect((await store.run("t", "warm", REQUEST, async () => OUTCOME)).replayed).toBe(false);
    let writes = 0;
    const write = async () => {
      writes++;
      return OUTCOME;
    };
    redis.pause();
    try {
      const errors = await Promise.all(
        [1, 2, 3, 4, 5].map((i) => rejection(store.run("t", `held-${i}`, REQUEST, write))),
      );
      for (const e of errors) {
        expect(e).toMatchObject({ code: "IDEMPOTENCY", retryable: true, details: { state: "timeout" } });
        expect(e.message).toMatch(/^the idempotency store did not answer in time, .*nothing was sent/);
      }
      // Ended by the 1 s deadline (state "timeout"), not by the pause: no wall-clock bound here.
      expect(backend.health()).toMatchObject({
        store: "redis",
        status: "degraded",
        reason: "Redis: did not answer within 1000 ms (MCP_REDIS_TIMEOUT_MS); keyed writes are refused",
      });
      // The connection is gone and a new one does not answer yet: the next keyed write never waits.
      const next = Date.now();
      expect(await rejection(store.run("t", "held-6", REQUEST, write))).toMatchObject({
        details: { state: "timeout" },
      });
      expect(Date.now() - next).toBeLessThan(500);
      expect(writes).toBe(0);
    } finally {
      redis.resume();
    }
    await until("the store answers again", () => backend.health().status === "ok");
    // The claims held in the frozen Redis reached it after their deadline: they changed nothing.
    await sleep(300);
    // (KEYS takes a glob: "[" is escaped.) Only the record written before the pause is there.
    expect(await rawKeys('mcp:idem2:\\["paused",*')).toEqual(['mcp:idem2:["paused","t","warm"]']);
    expect(await store.run("t", "held-1", REQUEST, write)).toEqual({ value: OUTCOME, replayed: false });
    expect(writes).toBe(1);
  });

  it("a claim that reaches Redis after its deadline changes nothing", async () => {
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      const [seconds] = (await raw.sendCommand(["TIME"])) as [string, string];
      const past = String(Number(seconds) * 1000 - 1);
      const key = 'mcp:idem2:["late","t","k"]';
      expect(await raw.eval(CLAIM, { keys: [key], arguments: ["c1 {}", "60000", past] })).toEqual([
        "late",
        expect.any(Number),
      ]);
      expect(await raw.exists(key)).toBe(0);
      const future = String(Number(seconds) * 1000 + 60_000);
      expect(await raw.eval(CLAIM, { keys: [key], arguments: ["c1 {}", "60000", future] })).toEqual([
        "claimed",
        expect.any(Number),
      ]);
    } finally {
      raw.destroy();
    }
  });

  it("a write that finished while Redis was frozen has its outcome recorded once Redis answers", async () => {
    const backend = open(500);
    const store = new IdempotencyStore({ backend, namespace: "settle" });
    let writes = 0;
    const result = await store.run("t", "k", REQUEST, async () => {
      writes++;
      redis.pause();
      return OUTCOME;
    });
    try {
      expect(result).toEqual({ value: OUTCOME, replayed: false });
      expect(backend.health().status).toBe("degraded");
    } finally {
      redis.resume();
    }
    await until("the store answers again", () => backend.health().status === "ok");
    await until(
      "the outcome is recorded",
      async () => (await backend.lookup('["settle","t","k"]'))?.outcome !== undefined,
    );
    expect(await store.run("t", "k", REQUEST, async () => OUTCOME)).toEqual({
      value: OUTCOME,
      replayed: true,
    });
    expect(writes).toBe(1);
  });
});

describeRedis("100 keyed writes against a frozen Redis, over HTTP", () => {
  const fx = useSandbox();
  let redis: RedisServer;
  let backends: IdempotencyBackends;
  let http: HttpHandle;
  const stopping = new AbortController();
  beforeAll(async () => {
    redis = await startRedis();
    backends = await idempotencyBackends({
      redisUrl: redis.url,
      ttlMs: 3_600_000,
      redisTimeoutMs: 1_000,
      tenants: undefined,
      logger: quiet,
    });
    const config = loadConfig({ ...fx.sb.env(), MMS_MAX_RETRIES: "1" });
    const serverSet = createServerSet({
      config,
      tenants: undefined,
      tools: selectTools({ readOnly: false, hubAvailable: true }).tools,
      sandbox: true,
      confirmWrites: false,
      logger: quiet,
      backends,
      signer: createStateSigner(),
      stopping: stopping.signal,
    });
    http = await startHttp(serverSet.makeServer, {
      host: "127.0.0.1",
      port: 0,
      token: undefined,
      logger: quiet,
      version: "test",
      storeHealth: () => backends.health(),
    });
  });
  afterAll(async () => {
    await http?.close();
    await backends?.close();
    await redis?.stop();
  });

  const call = (name: string, args: Record<string, unknown>) =>
    raw2026<{ result?: { isError?: boolean; content: { text: string }[] } }>(http.url, "tools/call", {
      name,
      arguments: args,
    });
  const health = async () => {
    const res = await fetch(http.url.replace(/\/mcp$/, "/healthz"));
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const keyedPosts = () =>
    fx.sb.state.movements.filter((m) => m.movement.document.startsWith("HELD-")).length;

  it("never fill the request limit; reads and unkeyed writes go on; nothing held goes upstream late", async () => {
    expect(await health()).toMatchObject({
      status: 200,
      body: { status: "ok", idempotency: { status: "ok" } },
    });
    const postsBefore = countOf(fx.sb, "POST /api/warehouse_entries_orders/WH-MAIN");
    redis.pause();
    const keyed: Promise<Awaited<ReturnType<typeof call>>>[] = [];
    const others: Promise<Awaited<ReturnType<typeof call>>>[] = [];
    try {
      // A busy client: one keyed write every 10 ms (100 in all), a read or an unkeyed write every 100 ms.
      for (let i = 0; i < 100; i++) {
        keyed.push(
          call("create_warehouse_entry", purchaseArgs(`HELD-${i}`, { idempotency_key: `held-${i}` })),
        );
        if (i % 10 === 0)
          others.push(
            i % 20 === 0
              ? call("list_warehouse_groups_1", { limit: 1 })
              : call("create_warehouse_entry", purchaseArgs(`UNKEYED-${i}`)),
          );
        await sleep(10);
      }
      const during = await health();
      expect(during.status).toBe(200);
      expect(during.body).toMatchObject({
        status: "degraded",
        idempotency: { store: "redis", status: "degraded" },
      });
      const answers = await Promise.all(keyed);
      for (const a of answers) {
        expect(a.status).toBe(200);
        expect(a.body?.result?.isError).toBe(true);
        expect(textOf(a.body?.result)).toMatch(
          /the idempotency store did not answer in time.*nothing was sent/,
        );
      }
      for (const a of await Promise.all(others)) {
        expect(a.status).toBe(200);
        expect(a.body?.result?.isError, textOf(a.body?.result)).toBeFalsy();
      }
      expect(http.stats().refused).toBe(0);
      // Only the first few waited for the deadline; the rest were refused at once (at most 32 claims
      // ever wait): far from the limit of 64, which holding each for the deadline would near.
      expect(http.stats().peakInFlight).toBeLessThanOrEqual(32);
      console.info(
        `frozen Redis: peak in flight ${http.stats().peakInFlight} of 64 (100 keyed writes at 100/s)`,
      );
      expect(keyedPosts()).toBe(0);
    } finally {
      redis.resume();
    }
    await until("healthz ok", async () => (await health()).body.status === "ok");
    // Whatever the frozen Redis held is answered by now: still nothing of it upstream.
    await sleep(1_000);
    expect(keyedPosts()).toBe(0);
    // The unkeyed writes went through (5), and nothing else.
    expect(countOf(fx.sb, "POST /api/warehouse_entries_orders/WH-MAIN") - postsBefore).toBe(5);
    const retried = await call(
      "create_warehouse_entry",
      purchaseArgs("HELD-0", { idempotency_key: "held-0" }),
    );
    expect(retried.body?.result?.isError, textOf(retried.body?.result)).toBeFalsy();
    expect(keyedPosts()).toBe(1);
  }, 30_000);
});

describeRedis("the shutdown answer says whether a retry with the same key is safe", () => {
  const fx = useSandbox();
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  async function shutdownAnswer(idempotency: IdempotencyStore): Promise<string> {
    const stopping = new AbortController();
    const deps = {
      clients: fx.clients(),
      logger: quiet,
      idempotency,
      sandbox: true,
      version: "test",
      stopping: stopping.signal,
    };
    const { tools } = selectTools({ readOnly: false, hubAvailable: true });
    const http = await startHttp(() => createServer(deps, { tools, confirmWrites: false }), {
      host: "127.0.0.1",
      port: 0,
      token: undefined,
      logger: quiet,
      version: "test",
      drainMs: 300,
      abandon: () => stopping.abort(),
    });
    fx.sb.faults.latency(3_000, "POST /api/warehouse_entries_orders");
    try {
      const answer = call(http.url);
      await sleep(300);
      await http.close();
      return await answer;
    } finally {
      fx.sb.faults.latency(0, "POST /api/warehouse_entries_orders");
    }
  }
  const call = async (url: string) => {
    const { body } = await raw2026<{ result: unknown }>(url, "tools/call", {
      name: "create_warehouse_entry",
      arguments: purchaseArgs(`SHUTDOWN-${Date.now()}`, { idempotency_key: `shutdown-${Date.now()}` }),
    });
    return textOf(body?.result);
  };

  it("Redis (shared): a retry with the same idempotency_key is safe", async () => {
    const backend = new RedisIdempotencyBackend({ url: redis.url, logger: quiet });
    try {
      expect(await shutdownAnswer(new IdempotencyStore({ backend }))).toMatch(
        /the outcome is unknown .*Check whether it exists before retrying; with the same idempotency_key a retry is safe \(the shared store will not let it write twice\)\./,
      );
    } finally {
      await backend.close();
    }
  });

  it("memory: check first, even with the same idempotency_key", async () => {
    const text = await shutdownAnswer(new IdempotencyStore());
    expect(text).toMatch(
      /the outcome is unknown .*Check whether it exists upstream before retrying, even with the same idempotency_key: this server keeps its keys in memory, and they end with it\./,
    );
    expect(text).not.toMatch(/a retry is safe/);
  });
});
