import { describe, expect, it } from "vitest";
import { ApiError, ERROR_CODES, UserInputError } from "../../src/errors/api-error.js";
import { IdempotencyStore } from "../../src/idempotency.js";

describe("IdempotencyStore", () => {
  it("runs the write once per key and replays the first result, even concurrently", async () => {
    const store = new IdempotencyStore();
    let writes = 0;
    const write = async () => ({ id: ++writes });
    const results = await Promise.all([1, 2, 3].map(() => store.run("tool", "k1", "fp", write)));
    expect(writes).toBe(1);
    expect(results.map((r) => r.value)).toEqual([{ id: 1 }, { id: 1 }, { id: 1 }]);
    expect(results.filter((r) => r.replayed)).toHaveLength(2);
  });

  it("refuses the same key for a different request", async () => {
    const store = new IdempotencyStore();
    await store.run("tool", "k", "fp-a", async () => 1);
    await expect(store.run("tool", "k", "fp-b", async () => 2)).rejects.toThrow(UserInputError);
  });

  it("releases the key after a failure that wrote nothing, keeps it after an ambiguous one", async () => {
    const store = new IdempotencyStore();
    const refused = new ApiError({ status: 422, code: ERROR_CODES.VALIDATION, message: "bad" });
    await expect(store.run("t", "a", "fp", async () => Promise.reject(refused))).rejects.toBe(refused);
    expect((await store.run("t", "a", "fp", async () => "ok")).value).toBe("ok");

    const timeout = new ApiError({ code: ERROR_CODES.TIMEOUT, message: "timed out" });
    await expect(store.run("t", "b", "fp", async () => Promise.reject(timeout))).rejects.toBe(timeout);
    let wroteAgain = false;
    const replay = store.run("t", "b", "fp", async () => {
      wroteAgain = true;
      return "second";
    });
    await expect(replay).rejects.toThrow(/without a confirmed outcome/);
    expect(wroteAgain).toBe(false);
  });

  it("forgets keys after the TTL and caps its size", async () => {
    let now = 0;
    const store = new IdempotencyStore({ ttlMs: 1000, maxEntries: 3, now: () => now });
    await store.run("t", "k", "fp", async () => 1);
    now = 2000;
    expect((await store.run("t", "k", "fp", async () => 2)).value).toBe(2);
    for (const k of ["a", "b", "c", "d"]) await store.run("t", k, "fp", async () => k);
    expect(store.size).toBeLessThanOrEqual(3);
  });
});
