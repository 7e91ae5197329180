import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { ApiError, ERROR_CODES, NotConfirmedError, UserInputError } from "../../src/errors/api-error.js";
import { type IdempotencyBackends, idempotencyBackends } from "../../src/hosting/idempotency.js";
import { MemoryIdempotencyBackend, RECORD_OVERHEAD_BYTES } from "../../src/idempotency/memory.js";
import { legacyRedisKey, parseRecord, redisKey } from "../../src/idempotency/redis-records.js";
import { canonicalJson, IdempotencyStore, provablyNotWritten } from "../../src/idempotency/store.js";
import { recordId, recordParts, StoreError } from "../../src/idempotency/types.js";
import { ConfirmationPending } from "../../src/mcp/sdk.js";
import { createLogger } from "../../src/telemetry/logger.js";

const HOUR = 3_600_000;
const req = (n: number | string) => ({ method: "POST", path: "/api/x", body: { n } });

/** The error a promise rejects with; fails the test when it resolves. */
const rejection = (p: Promise<unknown>): Promise<ApiError> =>
  p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e as ApiError,
  );

/** A write that resolves when told to, counting how often it ran. */
function gate<T>(value: T) {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  const w = {
    runs: 0,
    open,
    write: async () => {
      w.runs++;
      await opened;
      return value;
    },
  };
  return w;
}

describe("IdempotencyStore semantics", () => {
  it("replays the first result; a second call while the first runs is 'in progress' and writes nothing", async () => {
    const store = new IdempotencyStore();
    const first = gate({ id: 1 });
    const running = store.run("tool", "k1", req(1), first.write);
    const second = gate({ id: 2 });
    const during = await store.run("tool", "k1", req(1), second.write).catch((e: unknown) => e);
    expect(during).toBeInstanceOf(ApiError);
    expect(during).toMatchObject({ code: ERROR_CODES.IDEMPOTENCY, retryable: true });
    expect((during as Error).message).toMatch(/still running, so nothing was sent; retry in a few seconds/);
    first.open();
    expect(await running).toEqual({ value: { id: 1 }, replayed: false });
    expect(await store.run("tool", "k1", req(1), second.write)).toEqual({ value: { id: 1 }, replayed: true });
    expect(first.runs + second.runs).toBe(1);
  });

  it("refuses the same key for a different request, in any key order of the same request", async () => {
    const store = new IdempotencyStore();
    await store.run("tool", "k", { a: 1, b: [1, { c: 2, d: 3 }] }, async () => 1);
    const same = await store.run("tool", "k", { b: [1, { d: 3, c: 2 }], a: 1, e: undefined }, async () => 2);
    expect(same).toEqual({ value: 1, replayed: true });
    await expect(store.run("tool", "k", { a: 2 }, async () => 2)).rejects.toThrow(UserInputError);
  });

  it("keeps scopes and namespaces apart over one backend", async () => {
    const backend = new MemoryIdempotencyBackend();
    const north = new IdempotencyStore({ backend, namespace: "north" });
    const south = new IdempotencyStore({ backend, namespace: "south" });
    expect((await north.run("a", "k", req(1), async () => "n")).replayed).toBe(false);
    expect((await south.run("a", "k", req(2), async () => "s")).value).toBe("s");
    expect((await north.run("b", "k", req(3), async () => "b")).value).toBe("b");
    expect(backend.stats().keys).toBe(3);
  });

  it("releases a key only when nothing was written; an ambiguous failure is replayed as 'outcome unknown'", async () => {
    const store = new IdempotencyStore();
    const refused = new ApiError({ status: 422, code: ERROR_CODES.VALIDATION, message: "bad" });
    await expect(store.run("t", "a", req(1), async () => Promise.reject(refused))).rejects.toBe(refused);
    expect((await store.run("t", "a", req(1), async () => "ok")).value).toBe("ok");

    const reset = new ApiError({
      code: ERROR_CODES.NETWORK,
      message: "connection closed",
      details: { cause: "ECONNRESET", outcome: "unknown" },
    });
    await expect(store.run("t", "b", req(1), async () => Promise.reject(reset))).rejects.toBe(reset);
    let wroteAgain = false;
    const replay = await store
      .run("t", "b", req(1), async () => {
        wroteAgain = true;
        return "second";
      })
      .catch((e: unknown) => e as ApiError);
    expect(wroteAgain).toBe(false);
    expect(replay).toMatchObject({ code: "NETWORK", retryable: false, details: { outcome: "unknown" } });
    expect((replay as Error).message).toMatch(
      /without a confirmed outcome \(connection closed\); nothing new was sent/,
    );
  });

  // Finding 7: a call cancelled before anything was sent kept its key blocked for 24 h.
  it("classifies failures the way the client marks them", () => {
    const api = (code: keyof typeof ERROR_CODES, details?: unknown) =>
      new ApiError({ code: ERROR_CODES[code], message: "m", details });
    const released = [
      new UserInputError("bad"),
      new NotConfirmedError("declined"),
      // --confirm-writes over 2026-07-28: the confirmation round ends the call before anything is sent.
      new ConfirmationPending("approve?"),
      api("CANCELLED"), // cancelled before the POST left (http.ts: writeInFlight false)
      api("NETWORK", { cause: "ECONNREFUSED" }),
      api("TIMEOUT", { budgetMs: 10 }),
      api("UPSTREAM", { endpoint: "token" }), // token endpoint down: the write was never sent
      api("VALIDATION"),
      api("RATE_LIMITED"),
    ];
    const kept = [
      api("CANCELLED", { outcome: "unknown" }),
      api("NETWORK", { cause: "ECONNRESET", outcome: "unknown" }),
      api("UPSTREAM", { outcome: "unknown" }),
      api("UPSTREAM"),
      api("BAD_RESPONSE"),
      api("SECURITY"),
      new TypeError("bug after sending"),
    ];
    for (const e of released) expect(provablyNotWritten(e), String(e)).toBe(true);
    for (const e of kept) expect(provablyNotWritten(e), String(e)).toBe(false);
  });

  it("canonical JSON sorts keys and drops undefined members", () => {
    expect(canonicalJson({ b: 1, a: { d: undefined, c: [2, "x"] } })).toBe('{"a":{"c":[2,"x"]},"b":1}');
  });
});

describe("retention: 24 h by default, with an injected clock", () => {
  it("keeps a key for the whole TTL, to the millisecond, and forgets it after", async () => {
    let now = 1_700_000_000_000;
    const store = new IdempotencyStore({ now: () => now });
    let writes = 0;
    const write = async () => ++writes;
    await store.run("t", "k", req(1), write);
    for (const later of [24 * 60_000, HOUR, 23 * HOUR, 24 * HOUR - 1]) {
      now = 1_700_000_000_000 + later;
      expect(await store.run("t", "k", req(1), write), `at +${later} ms`).toEqual({
        value: 1,
        replayed: true,
      });
    }
    expect(writes).toBe(1);
    now = 1_700_000_000_000 + 24 * HOUR;
    expect(await store.run("t", "k", req(1), write)).toEqual({ value: 2, replayed: false });
  });

  it("takes the TTL from the options (MCP_IDEMPOTENCY_TTL_SECONDS)", async () => {
    let now = 0;
    const store = new IdempotencyStore({ ttlMs: 60_000, now: () => now });
    await store.run("t", "k", req(1), async () => 1);
    now = 59_999;
    expect((await store.run("t", "k", req(1), async () => 2)).replayed).toBe(true);
    now = 60_000;
    expect((await store.run("t", "k", req(1), async () => 2)).replayed).toBe(false);
  });
});

describe("bounds: never forget a live key, refuse instead (fail closed)", () => {
  // Finding 2: key K, 10,000 newer keys, K again wrote a second entry.
  it("key K still replays after 10,000 newer keys", async () => {
    const store = new IdempotencyStore();
    let writes = 0;
    await store.run("t", "K", req("K"), async () => ++writes);
    for (let i = 0; i < 10_000; i++) await store.run("t", `k${i}`, req(i), async () => ++writes);
    expect(await store.run("t", "K", req("K"), async () => ++writes)).toEqual({ value: 1, replayed: true });
    expect(writes).toBe(10_001);
  });

  it("at maxKeys a new key is refused with a clear error, old keys still replay, room returns when keys expire", async () => {
    let now = 0;
    const store = new IdempotencyStore({ maxKeys: 3, ttlMs: HOUR, now: () => now });
    for (const k of ["a", "b", "c"]) {
      await store.run("t", k, req(k), async () => k);
      now += 1000;
    }
    let wrote = false;
    const refused = await store
      .run("t", "d", req("d"), async () => {
        wrote = true;
        return "d";
      })
      .catch((e: unknown) => e as ApiError);
    expect(wrote).toBe(false);
    expect(refused).toMatchObject({
      code: "IDEMPOTENCY",
      retryable: false,
      details: { state: "full", keys: 3 },
    });
    expect((refused as Error).message).toMatch(
      /the idempotency store is full \(3 keys, .* MiB, each kept 1 h\), so this keyed write was refused and nothing was sent; retry after 1970-01-01T01:00:00.000Z, or send it without idempotency_key/,
    );
    for (const k of ["a", "b", "c"])
      expect((await store.run("t", k, req(k), async () => "x")).replayed).toBe(true);
    now = HOUR; // "a" expires
    expect(await store.run("t", "d", req("d"), async () => "d")).toEqual({ value: "d", replayed: false });
  });

  // Finding 1: records kept the whole request (~1 MB each) with no total bound → OOM.
  it("keeps a hash of the request, not the request: a 1 MB request costs the same as a tiny one", async () => {
    const backend = new MemoryIdempotencyBackend();
    const store = new IdempotencyStore({ backend });
    const big = {
      body: { items: Array.from({ length: 500 }, (_, i) => ({ code: `C${i}`, note: "x".repeat(2000) })) },
    };
    expect(JSON.stringify(big).length).toBeGreaterThan(1_000_000);
    const fail = new ApiError({
      status: 503,
      code: "UPSTREAM",
      message: "unavailable",
      details: { outcome: "unknown" },
    });
    await store.run("t", "big", big, async () => Promise.reject(fail)).catch(() => {});
    const afterBig = backend.stats().bytes;
    await store.run("t", "sml", { body: {} }, async () => Promise.reject(fail)).catch(() => {});
    expect(backend.stats().bytes - afterBig).toBe(afterBig);
    expect(afterBig).toBeLessThan(2_000);
    expect((await backend.lookup(recordId("default", "t", "big")))?.requestHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("holds maxBytes under a stream of keyed writes answered 503, then refuses", async () => {
    const maxBytes = 256 * 1024;
    const backend = new MemoryIdempotencyBackend({ maxBytes, maxResultBytes: 16 * 1024 });
    const store = new IdempotencyStore({ backend });
    const fail = new ApiError({
      status: 503,
      code: "UPSTREAM",
      message: "x".repeat(300),
      details: { outcome: "unknown" },
    });
    let refused = 0;
    let sent = 0;
    for (let i = 0; i < 4_209; i++) {
      const e = await rejection(
        store.run("t", `k${i}`, { n: i }, async () => {
          sent++;
          throw fail;
        }),
      );
      if (e.code === "IDEMPOTENCY") refused++;
      expect(backend.stats().bytes).toBeLessThanOrEqual(maxBytes);
    }
    expect(refused).toBeGreaterThan(0);
    expect(sent + refused).toBe(4_209);
    expect(backend.stats().keys).toBe(sent);
  });

  it("a result over maxResultBytes is kept as its summary; the replay names it and writes nothing", async () => {
    const store = new IdempotencyStore({ maxResultBytes: 1024 });
    const big = { id: 7, lines: "y".repeat(2000) };
    await store.run(
      "t",
      "k",
      req(1),
      async () => big,
      (v) => `entry id ${v.id}`,
    );
    const e = await rejection(store.run("t", "k", req(1), async () => big));
    expect(e).toMatchObject({ code: "IDEMPOTENCY", retryable: false });
    expect(e.message).toMatch(
      /succeeded \(entry id 7\); its full result was too large to keep, and nothing new was written/,
    );
  });

  it("a record costs the measured overhead plus 2 bytes per character", async () => {
    const backend = new MemoryIdempotencyBackend();
    const store = new IdempotencyStore({ backend });
    await store.run("t", "k", req(1), async () => ({ ok: 1 }));
    const id = recordId("default", "t", "k");
    expect(backend.stats().bytes).toBe(RECORD_OVERHEAD_BYTES + 2 * (id.length + 64 + '{"ok":1}'.length));
  });

  it("a store that cannot be reached refuses the keyed write and sends nothing", async () => {
    const backend = new MemoryIdempotencyBackend();
    backend.claim = async () => {
      throw new Error("ECONNREFUSED 127.0.0.1:6379");
    };
    let sent = false;
    const e = await new IdempotencyStore({ backend })
      .run("t", "k", req(1), async () => {
        sent = true;
      })
      .catch((x: unknown) => x as ApiError);
    expect(sent).toBe(false);
    expect(e).toMatchObject({ code: "IDEMPOTENCY", retryable: true, details: { state: "unavailable" } });
  });
});

describe("MCP_IDEMPOTENCY_TTL_SECONDS", () => {
  const env = { MMS_BASE_URL: "http://127.0.0.1:1/api", MMS_HAWK_ID: "id", MMS_HAWK_KEY: "key-0123456789" };
  it("defaults to 86400 s, takes 60 s to 30 days, and names itself when invalid", () => {
    expect(loadConfig(env).idempotencyTtlSeconds).toBe(86_400);
    expect(loadConfig({ ...env, MCP_IDEMPOTENCY_TTL_SECONDS: "3600" }).idempotencyTtlSeconds).toBe(3_600);
    for (const bad of ["59", "2592001", "1h", "-5"]) {
      expect(() => loadConfig({ ...env, MCP_IDEMPOTENCY_TTL_SECONDS: bad }), bad).toThrow(
        /MCP_IDEMPOTENCY_TTL_SECONDS/,
      );
    }
  });
});

describe("MCP_REDIS_TIMEOUT_MS", () => {
  const env = { MMS_BASE_URL: "http://127.0.0.1:1/api", MMS_HAWK_ID: "id", MMS_HAWK_KEY: "key-0123456789" };
  it("defaults to 1000 ms, takes 10 ms to 60 s, and names itself and the range when invalid", () => {
    expect(loadConfig(env).redisTimeoutMs).toBe(1_000);
    expect(loadConfig({ ...env, MCP_REDIS_TIMEOUT_MS: "250" }).redisTimeoutMs).toBe(250);
    for (const [bad, why] of [
      ["9", "expected at least 10"],
      ["60001", "expected at most 60000"],
      ["1s", "expected a whole number from 10 to 60000"],
    ])
      expect(() => loadConfig({ ...env, MCP_REDIS_TIMEOUT_MS: bad }), bad).toThrow(
        `Configuration problem: MCP_REDIS_TIMEOUT_MS: ${why}`,
      );
  });
});

describe("honest outcomes (interface.md §7b)", () => {
  it("a first call that never reports is 'still running' within its budget, 'outcome unknown' after", async () => {
    let now = 1_000_000;
    const store = new IdempotencyStore({ now: () => now, callBudgetMs: 60_000 });
    // The first call's server "dies": its write never settles.
    const first = gate({ id: 1 });
    const abandoned = store.run("t", "k", req(1), first.write);
    now += 60_000;
    const early = await rejection(store.run("t", "k", req(1), async () => ({ id: 2 })));
    expect(early).toMatchObject({ retryable: true, details: { state: "in_progress" } });
    now += 1;
    const late = await rejection(store.run("t", "k", req(1), async () => ({ id: 2 })));
    expect(late).toMatchObject({ code: "IDEMPOTENCY", retryable: false, details: { state: "unknown" } });
    expect(late.message).toBe(
      'outcome unknown: check the upstream before writing again. The first call with idempotency_key "k" started 60 s ago and never reported an outcome (the server running it likely stopped mid-call); nothing was sent now. If the record is missing upstream, write it with a new idempotency_key',
    );
    expect(first.runs).toBe(1);
    // Should the call report after all, its outcome is what a retry gets.
    first.open();
    await abandoned;
    expect(await store.run("t", "k", req(1), async () => ({ id: 3 }))).toEqual({
      value: { id: 1 },
      replayed: true,
    });
  });

  it("tells the server whether its records outlive the process (memory: no)", () => {
    expect(new IdempotencyStore().shared).toBe(false);
  });
});

describe("a backend that cannot answer: its own message per cause, nothing sent", () => {
  const failing = (error: unknown) => {
    const backend = new MemoryIdempotencyBackend();
    backend.claim = async () => {
      throw error;
    };
    return new IdempotencyStore({ backend });
  };
  const cases: [StoreError, boolean, RegExp][] = [
    [
      new StoreError("timeout", "did not answer within 1000 ms"),
      true,
      /^the idempotency store did not answer in time, so this keyed write was refused and nothing was sent; retry in a few seconds/,
    ],
    [
      new StoreError("unavailable", "cannot be reached (ECONNREFUSED)"),
      true,
      /^the idempotency store cannot be reached, so this keyed write was refused and nothing was sent; retry later/,
    ],
    [
      new StoreError("full", "Redis is out of memory"),
      false,
      /^the idempotency store is out of memory \(Redis reached its maxmemory\), so this keyed write was refused and nothing was sent; retrying will not help until an operator frees room/,
    ],
    [
      new StoreError("misconfigured", "maxmemory-policy is allkeys-lru"),
      false,
      /^the idempotency store could evict records \(Redis's maxmemory-policy is not noeviction\).*until an operator sets it to noeviction/,
    ],
    [
      new StoreError("corrupt", "the record is not one this server wrote"),
      false,
      /^the idempotency record of idempotency_key "k" cannot be read \(it is corrupt\), so nothing was sent and whether the first call wrote is unknown: check the upstream before writing again, and use a new idempotency_key$/,
    ],
  ];
  it.each(cases)("%s", async (error, retryable, text) => {
    let sent = false;
    const e = await rejection(
      failing(error).run("t", "k", req(1), async () => {
        sent = true;
      }),
    );
    expect(sent).toBe(false);
    expect(e).toMatchObject({ code: "IDEMPOTENCY", retryable, details: { state: error.kind } });
    expect(e.message).toMatch(text);
    if (!retryable) expect(e.message).not.toMatch(/cannot be reached|retry later/);
  });
});

describe("record ids and Redis keys: one-to-one", () => {
  const parts: [string, string, string][] = [
    ["n", "t", "c:d"],
    ["n", "t", "c\u0000d"],
    ["n", "t", "c\\u0000d"],
    ["n", "t:c", "d"],
    ["n:t", "c", "d"],
    ["n", "t", 'c","d'],
    ["n", "t", "c\uD800"],
    ["n", "t", "c\uDC00"],
  ];
  it("every (tenant, tool, key) has its own id and its own Redis key, byte for byte", () => {
    const ids = parts.map((p) => recordId(...p));
    expect(new Set(ids).size).toBe(parts.length);
    for (const [i, p] of parts.entries()) expect(recordParts(ids[i]!)).toEqual(p);
    // Redis keys are bytes: lone surrogates must not collapse into one U+FFFD.
    const bytes = ids.map((id) => Buffer.from(redisKey(id), "utf8").toString("hex"));
    expect(new Set(bytes).size).toBe(parts.length);
    expect(redisKey(recordId("plant-north", "create_warehouse_entry", "c:d"))).toBe(
      'mcp:idem2:["plant-north","create_warehouse_entry","c:d"]',
    );
  });

  it("reads a first-layout key only where it names one id, and never shares its prefix", () => {
    expect(legacyRedisKey(recordId("plant-north", "create_warehouse_entry", "order-17"))).toBe(
      "mcp:idem:plant-north:create_warehouse_entry:order-17",
    );
    // The first layout turned NUL into ':', so `c:d` and `c\0d` had one key: it names neither.
    expect(legacyRedisKey(recordId("n", "t", "c:d"))).toBeUndefined();
    expect(legacyRedisKey(recordId("n", "t", "c\u0000d"))).toBeUndefined();
    for (const p of parts) expect(redisKey(recordId(...p)).startsWith("mcp:idem:")).toBe(false);
  });

  it("refuses a record this server did not write as corrupt", () => {
    const hash = "a".repeat(64);
    expect(parseRecord(`c1 {"s":"running","h":"${hash}","t":5}`).record).toEqual({
      s: "running",
      h: hash,
      t: 5,
    });
    for (const bad of [
      "garbage",
      "c1 not-json",
      `c1 {"s":"running","h":"${hash}"}`,
      `c1 {"s":"done","h":"${hash}","o":{"ok":true,"json":"{broken"}}`,
      ` {"s":"running","h":"${hash}","t":5}`,
    ])
      expect(() => parseRecord(bad), bad).toThrow(StoreError);
  });
});

describe("the in-memory store per tenant (MCP_TENANTS_FILE)", () => {
  const quiet = createLogger({ level: "error", sink: () => {} });
  const shares = (memory: { maxKeys?: number; maxBytes?: number }) =>
    idempotencyBackends({
      redisUrl: undefined,
      ttlMs: HOUR,
      redisTimeoutMs: 1000,
      tenants: ["north", "south"],
      logger: quiet,
      memory,
    });
  const storeOf = (backends: IdempotencyBackends, tenant: string) =>
    new IdempotencyStore({ backend: backends.forTenant(tenant), namespace: tenant, tenantShare: true });

  it("one tenant fills its share of keys, the other still writes; the refusal speaks of its own use", async () => {
    const backends = await shares({ maxKeys: 10 });
    const [north, south] = [storeOf(backends, "north"), storeOf(backends, "south")];
    for (let i = 0; i < 5; i++) await north.run("t", `k${i}`, req(i), async () => i);
    const refusedBefore = await rejection(north.run("t", "k5", req(5), async () => 5));
    expect(refusedBefore).toMatchObject({ retryable: false, details: { state: "full", keys: 5 } });
    expect(refusedBefore.message).toMatch(/^the idempotency store is full \(your share is used up: 5 keys, /);
    expect(refusedBefore.details).not.toHaveProperty("maxKeys");
    expect(refusedBefore.details).not.toHaveProperty("maxBytes");
    for (let i = 0; i < 5; i++)
      expect(await south.run("t", `k${i}`, req(i), async () => -i)).toEqual({ value: -i, replayed: false });
    // South's use changes nothing in what north is told.
    const refusedAfter = await rejection(north.run("t", "k5", req(5), async () => 5));
    expect(refusedAfter.message).toBe(refusedBefore.message);
    expect(refusedAfter.details).toEqual(refusedBefore.details);
    expect(backends.forTenant("north")).not.toBe(backends.forTenant("south"));
    expect(() => backends.forTenant("west")).toThrow(/no idempotency backend/);
  });

  it("divides the bytes too, and keeps room for 16 calls in progress in each share", async () => {
    const backends = await shares({ maxBytes: 8 * 1024 * 1024 });
    const limits = backends.forTenant("north").limits;
    expect(limits).toMatchObject({ maxKeys: 25_000, maxBytes: 4 * 1024 * 1024, maxResultBytes: 256 * 1024 });
    const small = (await shares({ maxBytes: 1024 * 1024 })).forTenant("south").limits;
    expect(small).toMatchObject({ maxBytes: 512 * 1024, maxResultBytes: 32 * 1024 });
    // Without a tenants file the one store keeps the whole bound and says so.
    const single = await idempotencyBackends({
      redisUrl: undefined,
      ttlMs: HOUR,
      redisTimeoutMs: 1000,
      tenants: undefined,
      logger: quiet,
    });
    expect(single.tenantShares).toBe(false);
    expect(single.forTenant(undefined).limits).toMatchObject({ maxKeys: 50_000, maxBytes: 64 * 1024 * 1024 });
    expect(single.health()).toEqual({ store: "memory", status: "ok" });
  });
});
