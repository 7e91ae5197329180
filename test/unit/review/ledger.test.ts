/**
 * The ledger's record (src/domain/ledger/): a version written only when a budget's line differs,
 * the state known at an instant (SCD type 2), the sweep past the retention (replaced versions and
 * removed budgets out, reads out), the same read twice written once, and decompression capped.
 */
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { Coverage } from "../../../src/domain/ledger/coverage.js";
import { inflate, pack, unpack } from "../../../src/domain/ledger/format.js";
import { decode, merge } from "../../../src/domain/ledger/observe.js";

const DAY = 86_400_000;
const T0 = Date.parse("2026-03-01T09:00:00Z");
const settings = { days: 35, maxBytes: 64 << 20 };
const line = (id: number, status = 1, total = 1000) =>
  `${id}\t${100 + id}\t${3000 + id}\t${status}\tUSD\t${total}\t2026-02-01T10:00:00-03:00\t\t7\tTP1\t2`;
const cov = (at: number): Coverage => ({
  at,
  b: "creation_date",
  f: null,
  t: at,
  s: null,
  id: null,
  wo: null,
  c: true,
});

function read(current: Buffer | undefined, at: number, lines: string[], removed: string[] = []) {
  return merge(
    current,
    { at, coverage: cov(at), eachLine: (add) => lines.forEach(add), removed },
    settings,
    at,
  );
}

describe("the ledger's record", () => {
  it("writes a version only when a line differs, and knows each budget's version at an instant", () => {
    const first = read(undefined, T0, [line(1), line(2), line(3)])!;
    const second = read(first, T0 + DAY, [line(1), line(2, 2), line(3)])!;
    const versions = decode(unpack(second));
    expect(versions.count).toBe(4);
    const k2 = versions.ids.get(2)!;
    expect(versions.line(versions.knownAt(T0)[k2]!)).toBe(line(2));
    expect(versions.line(versions.knownAt(T0 + DAY)[k2]!)).toBe(line(2, 2));
    expect(versions.knownAt(T0 - 1)[k2]).toBe(-1);
    // The same read again: nothing new to write.
    expect(read(second, T0 + DAY, [line(1), line(2, 2), line(3)])).toBeUndefined();
  });

  it("the versions a write hands back are those a fresh decode of its record gives", () => {
    const first = read(undefined, T0, [line(1), line(2), line(3)])!;
    let handed: ReturnType<typeof decode> | undefined;
    const obs = {
      at: T0 + DAY,
      coverage: cov(T0 + DAY),
      eachLine: (add: (l: string) => void) => [line(1, 2), line(4)].forEach(add),
      removed: [],
    };
    const second = merge(
      first,
      obs,
      settings,
      T0 + DAY,
      { bytes: first, versions: decode(unpack(first)) },
      (w) => {
        handed = w.versions;
      },
    )!;
    const fresh = decode(unpack(second));
    expect(handed!.count).toBe(fresh.count);
    for (const id of [1, 2, 3, 4]) {
      const [a, b] = [handed!, fresh].map((v) => v.line(v.latest[v.ids.get(id)!]!));
      expect(a).toBe(b);
      const [c, d] = [handed!, fresh].map((v) => v.knownAt(T0)[v.ids.get(id)!]);
      expect(c).toBe(d);
    }
  });

  it("sweeps past the retention: reads and replaced versions out, removed budgets out, the current state kept", () => {
    let bytes = read(undefined, T0, [line(1), line(2), line(3)]);
    bytes = read(bytes, T0 + DAY, [line(1, 1, 2000), line(2)], [line(3, -1)]);
    bytes = read(bytes, T0 + 40 * DAY, [line(1, 1, 2000)]);
    const { header } = unpack(bytes!);
    expect(header.cov.map((c) => c.at)).toEqual([T0 + 40 * DAY]);
    const versions = decode(unpack(bytes!));
    expect(versions.budgets).toBe(2);
    expect(versions.line(versions.latest[versions.ids.get(1)!]!)).toBe(line(1, 1, 2000));
    expect(versions.count).toBe(2);
  });

  it("stays under 60 bytes a version for 30,000 budgets", () => {
    const lines = Array.from({ length: 30_000 }, (_, i) =>
      line(7000 + i, 1 + (i % 3), 1000 + ((i * 7919) % 90_000)),
    );
    const bytes = read(undefined, T0, lines)!;
    expect(bytes.length / 30_000).toBeLessThan(60);
  });

  it("refuses a record that would inflate past what it claims or past 64 times its size", () => {
    const blob = gzipSync(Buffer.alloc(8 << 20, 0x31), { level: 9 });
    const claimsAll = { v: 1 as const, cov: [], n: 1, raw: 8 << 20, oldest: T0 };
    expect(() => inflate(unpack(pack({ header: claimsAll, blob })))).toThrow(
      /it claims 8388608 bytes from \d+ compressed/,
    );
    const claimsLittle = { ...claimsAll, raw: 1000 };
    expect(() => inflate(unpack(pack({ header: claimsLittle, blob })))).toThrow(
      /inflates past the 1000 bytes it claims/,
    );
  });
});
