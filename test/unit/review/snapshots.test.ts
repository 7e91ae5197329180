/** Snapshots per tenant and resume tokens (src/domain/review/snapshots.ts), on an injected clock. */
import { describe, expect, it } from "vitest";
import type { ResolvedPeriod } from "../../../src/domain/period.js";
import { SnapshotStore } from "../../../src/domain/review/snapshots.js";
import { WalkState } from "../../../src/domain/review/walk.js";

const state = (weight = 100) => {
  const s = new WalkState({} as ResolvedPeriod, 0, { keep: "compact", discount: undefined });
  s.weight = weight;
  return s;
};

describe("SnapshotStore", () => {
  it("keeps a tenant's snapshot for its TTL after the last write, and never shows it to another tenant", () => {
    let now = 0;
    const store = new SnapshotStore({ ttlMs: 300_000, maxBytes: 1e6, clock: () => now });
    const a = store.forTenant("a");
    const s = state();
    a.save("k", s);
    expect(a.get("k")).toBe(s);
    expect(store.forTenant("b").get("k")).toBeUndefined();
    now = 299_999;
    expect(a.get("k")).toBe(s);
    now = 300_000;
    expect(a.get("k")).toBeUndefined();
    expect(store.bytes).toBe(0);
  });

  it("evicts the least recently used within its byte cap, never one being read", () => {
    const store = new SnapshotStore({ ttlMs: 1e9, maxBytes: 250 });
    const t = store.forTenant("a");
    const [one, two, three] = [state(), state(), state()];
    const release = t.hold("one", one);
    t.save("two", two);
    t.save("three", three);
    expect(t.get("one")).toBe(one);
    expect(t.get("two")).toBeUndefined();
    release();
    // one was used last: three is now the least recently used.
    t.save("four", state());
    expect(t.get("three")).toBeUndefined();
    expect(t.get("one")).toBe(one);
    expect(store.bytes).toBeLessThanOrEqual(250);
  });

  it("a token resumes only its tenant's walk of its window, until the snapshot expires", () => {
    let now = 0;
    const store = new SnapshotStore({ ttlMs: 1000, maxBytes: 1e6, clock: () => now });
    const a = store.forTenant("a");
    const s = state();
    a.save("k", s);
    const token = a.token("k", "since all", s);
    expect(token).not.toContain("since");
    expect(a.redeem(token, "k", "since all")).toBe(s);
    expect(() => store.forTenant("b").redeem(token, "k", "since all")).toThrow(/issued to another tenant/);
    expect(() => a.redeem(token, "k2", "since P90D")).toThrow(
      /another window or filters \(since all\), not this call's \(since P90D\)/,
    );
    expect(() => a.redeem("not-a-token", "k", "since all")).toThrow(/not a token this server issued/);
    now = 1000;
    expect(() => a.redeem(token, "k", "since all")).toThrow(/expired at 1970-01-01T00:00:01.000Z/);
  });
});
