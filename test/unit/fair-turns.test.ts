/**
 * The fair turns of token introspection (interface.md §9c), table by table: what one address can
 * hold, who is served when a turn frees, who is shed. Every wait here ends by a turn given back or
 * by shedding, never by the clock (waits are set far beyond the test).
 */
import { describe, expect, it } from "vitest";
import {
  FairTurns,
  type TurnOutcome,
  type TurnRequest,
} from "../../src/mcp/transports/http/oauth/fair-turns.js";

const LONG = 60_000;
const from = (source: string, prefix = "made", known = false): TurnRequest => ({ source, prefix, known });

/** Take turns, recording the order in which they are granted or shed. */
function recorder(turns: FairTurns) {
  const order: string[] = [];
  const take = (name: string, request: TurnRequest) =>
    turns.take(request, LONG).then((outcome: TurnOutcome) => {
      order.push(`${name}:${outcome}`);
      return outcome;
    });
  return { order, take };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("fair introspection turns", () => {
  it("one address with one prefix holds at most 6 of 8 turns; another address still gets one at once", async () => {
    const turns = new FairTurns({ limit: 8 });
    const { order, take } = recorder(turns);
    for (let i = 0; i < 10; i++) void take(`flood${i}`, from("10.0.0.66"));
    void take("user", from("10.0.0.7", "Zq9x"));
    await settle();
    expect(order.filter((o) => o.startsWith("flood"))).toEqual(
      Array.from({ length: 6 }, (_, i) => `flood${i}:turn`),
    );
    expect(order).toContain("user:turn");
    expect(turns.waiting).toBe(4);
  });

  it("the same address, another prefix (a real token among made-up ones), also gets a kept turn", async () => {
    const turns = new FairTurns({ limit: 8 });
    const { order, take } = recorder(turns);
    for (let i = 0; i < 10; i++) void take(`flood${i}`, from("127.0.0.1", "made"));
    void take("user", from("127.0.0.1", "Zq9x"));
    await settle();
    expect(order).toContain("user:turn");
  });

  it("when a turn frees: a token seen active before first, then addresses round-robin", async () => {
    const turns = new FairTurns({ limit: 4 });
    const { order, take } = recorder(turns);
    const holders = ["h1", "h2", "h3", "h4"].map((h) => from(h));
    for (const [i, h] of holders.entries()) void take(`h${i + 1}`, h);
    void take("a0", from("10.0.0.66", "p0"));
    void take("a1", from("10.0.0.66", "p1"));
    void take("b0", from("10.0.0.7", "Zq9x"));
    void take("known", from("10.0.0.9", "p2", true));
    await settle();
    expect(turns.waiting).toBe(4);
    for (const h of holders) {
      turns.give(h);
      await settle();
    }
    expect(order.slice(4)).toEqual(["known:turn", "a0:turn", "b0:turn", "a1:turn"]);
  });

  it("past 64 waiters of one address, its newest is shed at once; other addresses' waiters stay", async () => {
    const turns = new FairTurns({ limit: 8, maxWaitingPerSource: 64, maxWaiting: 256 });
    const { order, take } = recorder(turns);
    for (let i = 0; i < 6; i++) void take(`hold${i}`, from("10.0.0.66"));
    for (let i = 0; i < 2; i++) void take(`user${i}`, from("10.0.0.7", "Zq9x"));
    void take("user-waiting", from("10.0.0.7", "Zq9x"));
    for (let i = 0; i < 70; i++) void take(`flood${i}`, from("10.0.0.66"));
    await settle();
    expect(order.filter((o) => o.endsWith(":shed"))).toEqual(
      Array.from({ length: 6 }, (_, i) => `flood${64 + i}:shed`),
    );
    expect(turns.waiting).toBe(65);
  });

  it("past the total bound, the busiest address's newest waiter goes, not the newcomer from elsewhere", async () => {
    const turns = new FairTurns({ limit: 1, maxWaitingPerSource: 100, maxWaiting: 10 });
    const { order, take } = recorder(turns);
    void take("hold", from("10.0.0.66"));
    for (let i = 0; i < 10; i++) void take(`flood${i}`, from("10.0.0.66"));
    void take("user", from("10.0.0.7", "Zq9x"));
    await settle();
    expect(order).toEqual(["hold:turn", "flood9:shed"]);
    turns.give(from("10.0.0.66"));
    await settle();
    turns.give(from("10.0.0.66"));
    await settle();
    expect(order.slice(2)).toEqual(["flood0:turn", "user:turn"]); // round-robin: the flood's address waits its round
  });

  it("a wait that runs out is shed", async () => {
    const turns = new FairTurns({ limit: 1 });
    expect(await turns.take(from("a"), LONG)).toBe("turn");
    expect(await turns.take(from("b"), 0)).toBe("shed");
    expect(turns.waiting).toBe(0);
  });
});
