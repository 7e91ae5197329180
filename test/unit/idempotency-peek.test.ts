/** IdempotencyStore.peek: what a keyed write would meet, read without claiming, completing or releasing the key. */
import { describe, expect, it } from "vitest";
import { ApiError, ERROR_CODES } from "../../src/errors/api-error.js";
import { MemoryIdempotencyBackend } from "../../src/idempotency/memory.js";
import { IdempotencyStore } from "../../src/idempotency/store.js";

const req = (n: number) => ({ method: "POST", path: "/api/x", body: { n } });

describe("IdempotencyStore.peek", () => {
  it("reports each state a keyed write can meet, and never takes the key", async () => {
    const backend = new MemoryIdempotencyBackend({ now: () => 1_000, maxResultBytes: 1024 });
    const store = new IdempotencyStore({ backend });
    expect(await store.peek("t", "k", req(1))).toEqual({ state: "unused", room: "checked" });
    // Peeking held nothing: the key is still free for the first real call.
    expect(backend.stats().keys).toBe(0);
    expect(await store.run("t", "k", req(1), async () => ({ id: 7 }))).toEqual({
      value: { id: 7 },
      replayed: false,
    });

    expect(await store.peek("t", "k", req(1))).toEqual({
      state: "done",
      value: { id: 7 },
      summary: undefined,
      expiresAt: 1_000 + 24 * 3_600_000,
    });
    expect(await store.peek("t", "k", req(2))).toEqual({ state: "mismatch" });
    expect(await store.peek("other-tool", "k", req(1))).toEqual({ state: "unused", room: "checked" });

    let open!: (n: number) => void;
    const gate = new Promise<number>((r) => {
      open = r;
    });
    const running = store.run("t", "slow", req(1), () => gate);
    expect(await store.peek("t", "slow", req(1))).toEqual({ state: "in_progress" });
    open(1);
    await running;

    await store.run(
      "t",
      "big",
      req(1),
      async () => "y".repeat(2000),
      () => "entry 9",
    );
    expect(await store.peek("t", "big", req(1))).toMatchObject({
      state: "done",
      value: undefined,
      summary: "entry 9",
    });
  });

  it("reports a kept ambiguous failure with its message", async () => {
    const store = new IdempotencyStore();
    const reset = new ApiError({
      code: ERROR_CODES.NETWORK,
      message: "connection closed mid-answer",
      details: { outcome: "unknown" },
    });
    await expect(store.run("t", "k", req(1), async () => Promise.reject(reset))).rejects.toBe(reset);
    expect(await store.peek("t", "k", req(1))).toMatchObject({
      state: "failed",
      message: "connection closed mid-answer",
    });
  });

  it("a store that does not answer is a state, not a failure of the dry run", async () => {
    const backend = new MemoryIdempotencyBackend();
    backend.lookup = async () => {
      throw new Error("ECONNREFUSED 127.0.0.1:6379");
    };
    expect(await new IdempotencyStore({ backend }).peek("t", "k", req(1))).toEqual({
      state: "unavailable",
      reason:
        "the idempotency store cannot be reached, so this keyed write was refused and nothing was sent; retry later, or send it without idempotency_key (no duplicate protection)",
    });
  });
});
