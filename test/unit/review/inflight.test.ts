/** The process's cap on bytes in flight (src/domain/review/inflight.ts). */
import { describe, expect, it } from "vitest";
import { InflightBytes } from "../../../src/domain/review/inflight.js";

describe("InflightBytes", () => {
  it("admits while the pages fit, one page always, and wakes a waiter when room is released", async () => {
    const bytes = new InflightBytes(100);
    const signal = new AbortController().signal;
    const a = await bytes.acquire(60, signal);
    let admitted = false;
    const waiting = bytes.acquire(60, signal).then((g) => {
      admitted = true;
      return g;
    });
    await Promise.resolve();
    expect(admitted).toBe(false);
    a.resize(30);
    a.release();
    const b = await waiting;
    expect(bytes.used).toBe(60);
    b.resize(500);
    expect(bytes.peak).toBe(500);
    b.release();
    expect(bytes.used).toBe(0);
    const big = await bytes.acquire(1000, signal);
    expect(bytes.used).toBe(1000);
    big.release();
  });

  it("a waiter stops when its signal aborts", async () => {
    const bytes = new InflightBytes(10);
    const held = await bytes.acquire(10, new AbortController().signal);
    const controller = new AbortController();
    const waiting = bytes.acquire(5, controller.signal);
    controller.abort(new Error("deadline"));
    await expect(waiting).rejects.toThrow("deadline");
    held.release();
    expect(bytes.used).toBe(0);
  });
});
