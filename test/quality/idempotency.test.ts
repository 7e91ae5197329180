/**
 * Idempotency end to end (SDK client → createServer → undici → sandbox with faults), one test
 * per finding of the adversarial review (issue 9): the store's memory is bounded and it fails
 * closed when full (1), a call cancelled before anything was sent frees its key (7), and the
 * "in progress" answer for a key whose first call still runs (interface.md §7).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { MemoryIdempotencyBackend } from "../../src/idempotency/memory.js";
import { IdempotencyStore } from "../../src/idempotency/store.js";
import { connect } from "../helpers/mcp.js";
import { useSandbox } from "../helpers/sandbox.js";
import {
  allText,
  countOf,
  detailsOf,
  fastClients,
  firstLine,
  movementsWithDocument,
  purchaseArgs,
  within,
} from "./helpers.js";

const fx = useSandbox({ faults: true });
const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(opened.map((o) => o.close()));
});
beforeEach(() => fx.sb.faults.reset());

const ENTRY = "POST /api/warehouse_entries_orders/WH-MAIN";

async function session(idempotency = new IdempotencyStore()) {
  const fast = fastClients(fx.sb, { env: { MMS_TIMEOUT_MS: "5000" } });
  const conn = await connect({ clients: fast.clients, idempotency });
  opened.push(conn, { close: () => fast.clients.close() });
  const call = (args: Record<string, unknown>, signal?: AbortSignal) =>
    within(
      10_000,
      conn.client.callTool({ name: "create_warehouse_entry", arguments: args }, undefined, { signal }),
    ) as Promise<CallToolResult>;
  return { call, idempotency };
}

/** Resolves once `condition` holds: polled, with no bound but the test's own timeout. */
const until = (condition: () => boolean) =>
  vi.waitFor(() => expect(condition()).toBe(true), { timeout: 15_000, interval: 5 });

describe("finding 7: a keyed call cancelled before anything was sent frees its key", () => {
  it("cancelled while waiting for the token: 0 entry requests, the same key then writes once", async () => {
    const { call } = await session();
    const args = purchaseArgs("IDEM-CANCEL-EARLY", { idempotency_key: "idem-cancel-early" });
    fx.sb.faults.latency(10_000, "/oauth/token");
    const tokens = countOf(fx.sb, "POST /oauth/token");
    const controller = new AbortController();
    const pending = call(args, controller.signal);
    // Cancelled once the token request is held upstream (an event), never after a guessed delay.
    await until(() => countOf(fx.sb, "POST /oauth/token") === tokens + 1);
    controller.abort("user pressed stop");
    await expect(pending).rejects.toThrow();
    expect(countOf(fx.sb, ENTRY)).toBe(0);
    fx.sb.faults.latency(0, "/oauth/token");
    // The server handles the cancellation asynchronously: until then the key reads "in progress".
    let again: CallToolResult | undefined;
    await expect
      .poll(
        async () => {
          again = await call(args);
          return again.isError ? firstLine(again) : "written";
        },
        { timeout: 15_000, interval: 100 },
      )
      .toBe("written");
    expect(allText(again)).toMatch(/Created: entry/);
    expect(countOf(fx.sb, ENTRY)).toBe(1);
    expect(movementsWithDocument(fx.sb, "IDEM-CANCEL-EARLY")).toBe(1);
  });

  it("cancelled while the POST is in flight: the key stays blocked, never a second write", async () => {
    const { call } = await session();
    await call(purchaseArgs("IDEM-WARM")); // token cached: the cancel lands on the POST
    fx.sb.faults.reset();
    const args = purchaseArgs("IDEM-CANCEL-LATE", { idempotency_key: "idem-cancel-late" });
    // Held until the test lets it go (a new latency setting releases it): no wall-clock wait.
    fx.sb.faults.latency(600_000, "POST /api/warehouse_entries_orders");
    const controller = new AbortController();
    const pending = call(args, controller.signal);
    // Cancelled once the POST is held upstream (an event): the write is in flight.
    await until(() => countOf(fx.sb, ENTRY) === 1);
    controller.abort("user pressed stop");
    await expect(pending).rejects.toThrow();
    fx.sb.faults.latency(0, "POST /api/warehouse_entries_orders");
    await until(() => movementsWithDocument(fx.sb, "IDEM-CANCEL-LATE") === 1); // the sandbox finishes the write
    fx.sb.faults.reset();
    const again = await call(args);
    expect(again.isError).toBe(true);
    expect(firstLine(again)).toMatch(/without a confirmed outcome/);
    expect(detailsOf(again)).toMatchObject({ retryable: false, details: { outcome: "unknown" } });
    expect(countOf(fx.sb, ENTRY)).toBe(0);
    expect(movementsWithDocument(fx.sb, "IDEM-CANCEL-LATE")).toBe(1);
  });
});

describe("in progress: a second call with the key of a running one writes nothing", () => {
  it("answers 'still running, retry', then replays the first result", async () => {
    const { call } = await session();
    const args = purchaseArgs("IDEM-PARALLEL", { idempotency_key: "idem-parallel" });
    fx.sb.faults.latency(600_000, "POST /api/warehouse_entries_orders");
    const first = call(args);
    // The first call holds its key once its POST is upstream (an event), never after a guessed delay.
    await until(() => countOf(fx.sb, ENTRY) === 1);
    const second = await call(args);
    expect(second.isError).toBe(true);
    expect(firstLine(second)).toMatch(
      /IDEMPOTENCY.*still running, so nothing was sent; retry in a few seconds/,
    );
    expect(detailsOf(second)).toMatchObject({ retryable: true, details: { state: "in_progress" } });
    fx.sb.faults.latency(0, "POST /api/warehouse_entries_orders"); // the held POST is answered now
    expect((await first).isError).toBeFalsy();
    const third = await call(args);
    expect((third.structuredContent as { replayed?: boolean }).replayed).toBe(true);
    expect(countOf(fx.sb, ENTRY)).toBe(1);
    expect(movementsWithDocument(fx.sb, "IDEM-PARALLEL")).toBe(1);
  });
});

describe("finding 1: keyed writes answered 503 cannot exhaust memory", () => {
  it("large keyed entries answered 503: bytes stay under the bound, then keyed writes are refused before sending", async () => {
    const maxBytes = 96 * 1024;
    const backend = new MemoryIdempotencyBackend({ maxBytes, maxResultBytes: 16 * 1024 });
    const { call } = await session(new IdempotencyStore({ backend }));
    // ~150 KB per request: kept whole, 4,209 of them took the process to 4 GB.
    const items = Array.from({ length: 500 }, (_, i) => ({
      code: "SP-1003",
      qty: 1,
      unit_cost: 10,
      tax_name: `T${i}-${"x".repeat(90)}`,
    }));
    fx.sb.faults.failNext("POST /api/warehouse_entries_orders", 1_000, {
      status: 503,
      body: { success: false, message: "503", data: [{ ERROR: "maintenance window" }], total: 0 },
    });
    let refusedAt = -1;
    for (let i = 0; i < 200 && refusedAt < 0; i++) {
      const r = await call(purchaseArgs(`IDEM-503-${i}`, { items, idempotency_key: `idem-503-${i}` }));
      expect(r.isError).toBe(true);
      expect(backend.stats().bytes).toBeLessThanOrEqual(maxBytes);
      if (/IDEMPOTENCY/.test(firstLine(r))) {
        refusedAt = i;
        expect(firstLine(r)).toMatch(/idempotency store is full .* nothing was sent/);
        expect(detailsOf(r)).toMatchObject({ retryable: false, details: { state: "full" } });
      } else {
        expect(detailsOf(r)).toMatchObject({ retryable: false, details: { outcome: "unknown" } });
      }
    }
    expect(refusedAt).toBeGreaterThan(10);
    expect(countOf(fx.sb, ENTRY)).toBe(refusedAt); // the refused call sent nothing
    // Every key already used still answers as before: none was evicted to make room.
    const first = await call(purchaseArgs("IDEM-503-0", { items, idempotency_key: "idem-503-0" }));
    expect(firstLine(first)).toMatch(/without a confirmed outcome/);
    // A write without a key still goes through (no duplicate protection, as the error says).
    fx.sb.faults.reset();
    const unkeyed = await call(purchaseArgs("IDEM-503-UNKEYED"));
    expect(unkeyed.isError, allText(unkeyed)).toBeFalsy();
  });
});
