/**
 * Issue 34, finding 1 (interface.md §9b): one upstream answer must not close a company's gate for
 * decades. A 406 with `Retry-After: 999999999`, or a rate-limit reset in epoch milliseconds, is
 * capped at MAX_UPSTREAM_WAIT_MS (logged once, not once per answer); no timer is set past 2^31-1 ms;
 * a read with a deadline answers RATE_LIMITED with retryAt at once; a read without one (a task) waits
 * at most the cap per step and ends when its signal aborts. Against a loopback fake upstream; no
 * wall-clock waits: the timers the client asks for are recorded, and the wait is ended by its signal.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClients } from "../../src/client/index.js";
import { MemoryBudgetStore } from "../../src/client/rate-budget-store.js";
import { MAX_UPSTREAM_WAIT_MS, parseRetryAfter, upstreamWait } from "../../src/client/retry.js";
import type { Clients } from "../../src/client/types.js";
import { MAX_TIMER_MS, sleep } from "../../src/client/wait.js";
import type { FakeUpstream } from "./fake-upstream.js";
import { envelope, sendJson } from "./fake-upstream.js";
import { captureLogger, FAST, fakeWithTokens, makeConfig, rejection } from "./helpers.js";

const CAP = MAX_UPSTREAM_WAIT_MS;
const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe("a wait an upstream names is read, then capped", () => {
  const now = Date.parse("2026-11-28T15:00:00Z");
  it.each([
    ["Retry-After 999999999 (31 years)", { "retry-after": "999999999" }, CAP, true],
    ["a reset in epoch milliseconds", { "ratelimit-reset": String(now + 30_000) }, 30_000, false],
    ["a reset in epoch seconds", { "request-call-limit-reset": String(now / 1000 + 12) }, 12_000, false],
    ["a reset in epoch milliseconds a century away", { "ratelimit-reset": String(now * 2) }, CAP, true],
    ["a negative Retry-After", { "retry-after": "-5" }, CAP, true],
    ["a Retry-After that is no number", { "retry-after": "soon" }, CAP, true],
    ["an epoch long past (no clock's)", { "ratelimit-reset": "1000000000" }, CAP, true],
    ["an HTTP-date in 2058", { "retry-after": "Fri, 01 Mar 2058 15:20:17 GMT" }, CAP, true],
    ["a sane one beside an absurd one", { "retry-after": "-5", "ratelimit-reset": "3" }, 3_000, false],
    ["seconds", { "retry-after": "7" }, 7_000, false],
  ])("%s", (_name, headers, ms, absurd) => {
    expect(parseRetryAfter(headers, now)).toBe(ms);
    expect(upstreamWait(headers, now)?.absurd !== undefined).toBe(absurd);
  });

  it("no timer past 2^31-1 ms: a sleep of a century is one timer of the longest delay", async () => {
    const timers = vi.spyOn(globalThis, "setTimeout");
    const stop = new AbortController();
    const slept = sleep(100 * 365 * 86_400_000, stop.signal);
    stop.abort(new Error("done"));
    await expect(slept).rejects.toThrow("done");
    expect(timers.mock.calls.map((c) => c[1])).toEqual([MAX_TIMER_MS]);
  });

  it("a gate learnt from a decades-long reset is kept no longer than the cap", async () => {
    let now = Date.UTC(2026, 10, 28);
    const store = new MemoryBudgetStore(() => now);
    await store.learn({ gate: { remaining: 0, resetMs: 999_999_999_000 } });
    const refused = await store.take({
      id: "a",
      kind: "read",
      limit: undefined,
      share: 0.5,
      windowMs: 60_000,
    });
    expect(refused).toMatchObject({ granted: false, retryInMs: CAP });
    now += CAP;
    expect(
      await store.take({ id: "b", kind: "read", limit: undefined, share: 0.5, windowMs: 60_000 }),
    ).toMatchObject({ granted: true });
  });
});

/** A fake whose warehouse list answers 406 with `headers` on every request. */
async function refusing(headers: Record<string, string>): Promise<FakeUpstream> {
  const fake = await fakeWithTokens();
  open.push(fake);
  fake.on("GET", "/api/warehouses_groups_1", (_req, res) =>
    sendJson(res, 406, { success: false, message: "406", data: [{ ERROR: "too many" }] }, headers),
  );
  return fake;
}

/** Clients of `fake` (one retry, wide time budget) and the lines they log. */
function clientsFor(fake: FakeUpstream): Clients & { lines: string[] } {
  const { logger, lines } = captureLogger();
  const clients = createClients(makeConfig(fake.url, { maxRetries: 1 }), {
    logger,
    ...FAST,
    totalBudgetMs: 50_000,
  });
  open.push(clients);
  return Object.assign(clients, { lines });
}
const warnings = (clients: { lines: string[] }) => clients.lines.filter((l) => l.includes("named a wait of"));

describe("a 406 naming an absurd wait, through the client", () => {
  it.each([
    ["Retry-After: 999999999", { "retry-after": "999999999" }],
    ["a reset in epoch milliseconds, a century away", { "ratelimit-reset": String(Date.now() * 2) }],
  ])("%s: the gate closes for at most 5 minutes, said once in the log", async (_name, headers) => {
    const fake = await refusing(headers);
    const clients = clientsFor(fake);
    const before = Date.now();
    const first = await rejection(clients.api.listWarehouseGroups1({}));
    expect(first).toMatchObject({ code: "RATE_LIMITED", status: 406 });
    expect(first.retryAt).toBeLessThanOrEqual(Date.now() + CAP);
    const blocked = Date.parse(clients.budgetUse?.()?.blocked_until ?? "");
    expect(blocked).toBeGreaterThan(before);
    expect(blocked).toBeLessThanOrEqual(Date.now() + CAP);
    // A read with a deadline (a plain list call): RATE_LIMITED with retryAt at once, nothing sent.
    const sent = fake.count("GET", "/api/warehouses_groups_1");
    for (let i = 0; i < 3; i++) {
      const local = await rejection(clients.api.listWarehouseGroups1({}, { deadline: Date.now() + 45_000 }));
      expect(local).toMatchObject({ code: "RATE_LIMITED", status: undefined });
      expect(local.retryAt).toBeLessThanOrEqual(Date.now() + CAP);
      expect(local.message).toMatch(/nothing was sent/);
    }
    expect(fake.count("GET", "/api/warehouses_groups_1")).toBe(sent);
    expect(warnings(clients)).toHaveLength(1);
  });

  it("a read without a deadline (a task) waits one capped timer, ends when its signal aborts, sends nothing", async () => {
    const fake = await refusing({ "retry-after": "999999999" });
    const clients = clientsFor(fake);
    await rejection(clients.api.listWarehouseGroups1({}));
    const sent = fake.count("GET", "/api/warehouses_groups_1");
    const overflow = vi.fn();
    process.on("warning", overflow);
    const timers = vi.spyOn(globalThis, "setTimeout");
    const cancel = new AbortController();
    const waiting = clients.api.listWarehouseGroups1({}, { signal: cancel.signal });
    // The wait's own timer is the event to act on: then the client goes.
    await vi.waitFor(() => expect(timers.mock.calls.some((c) => (c[1] ?? 0) > 60_000)).toBe(true));
    cancel.abort(new Error("client gone"));
    const error = await rejection(waiting);
    process.off("warning", overflow);
    expect(error.code).toBe("CANCELLED");
    const delays = timers.mock.calls.map((c) => c[1] ?? 0);
    expect(Math.max(...delays)).toBeLessThanOrEqual(CAP);
    expect(delays.filter((d) => d > 60_000)).toHaveLength(1);
    expect(overflow).not.toHaveBeenCalled();
    expect(fake.count("GET", "/api/warehouses_groups_1")).toBe(sent);
  });

  it("an epoch-milliseconds reset a minute away is read as a minute, not the year 58000", async () => {
    const fake = await fakeWithTokens();
    open.push(fake);
    fake.on("GET", "/api/warehouses_groups_1", (_req, res) => envelope(res, 200, "ok", []));
    fake.on(
      "GET",
      "/api/warehouses_groups_1",
      (_req, res) =>
        sendJson(
          res,
          406,
          { success: false, message: "406", data: [{ ERROR: "too many" }] },
          { "ratelimit-reset": String(Date.now() + 60_000) },
        ),
      1,
    );
    const clients = clientsFor(fake);
    const error = await rejection(clients.api.listWarehouseGroups1({}));
    expect(error.retryAt).toBeGreaterThan(Date.now() + 50_000);
    expect(error.retryAt).toBeLessThanOrEqual(Date.now() + 61_000);
    expect(warnings(clients)).toHaveLength(0);
  });
});
