/**
 * The history's chunked codec and compare (history-codec.ts LineEncoder / StoredLines,
 * history-compare.ts Comparison, interface.md §6e): 30,000 synthetic budgets round-trip, read the
 * blobs the one-gzip encoder wrote before, and compare exactly as the string-by-string compare did
 * (kept below as the reference); two reviews stored through remember() give the same changes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { exact, toNumber } from "../../../src/domain/money.js";
import { historyFor } from "../../../src/domain/review/history.js";
import {
  decodeLines,
  encodeLines,
  type HistoryRow,
  LineEncoder,
  lineOf,
  parseLine,
  StoredLines,
} from "../../../src/domain/review/history-codec.js";
import { CHANGE_KINDS, type ChangeSet, Comparison } from "../../../src/domain/review/history-compare.js";
import { remember } from "../../../src/domain/review/remember.js";
import { FileHistory } from "../../../src/hosting/history-store.js";

const SIZE = 30_000;
const DAY = 86_400_000;
const THEN = Date.parse("2027-01-01T08:00:00Z");
const NOW = THEN + DAY;

/** A small seeded generator: the same budgets every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

function rowsOf(n: number): HistoryRow[] {
  const r = random(36);
  return Array.from({ length: n }, (_, i) => ({
    id: i % 997 === 5 ? `B-${i}` : String(90_000 + i),
    folio: i === 3 ? "F\t3\n\\x" : `F-${i}`,
    wo: String(4000 + (i % 500)),
    status: 1 + Math.floor(r() * 3),
    currency:
      i % 11 === 0
        ? { code: "Crédito interno", mapped: false }
        : { code: i % 3 ? "USD" : "EUR", mapped: true },
    total: i % 13 === 0 ? exact("12.3456789") : exact((r() * 10_000).toFixed(2)),
    created: "2026-11-11T13:34:00.905000+00:00",
    approved: i % 2 ? "" : "2026-11-12 10:00:00",
    costCenter: String(700 + (i % 9)),
    thirdParty: `CUS-${i % 40}`,
    lines: i % 7,
  }));
}

/** A morning later: some decided, some changed, some gone, some new, pages in another order. */
function dayAfter(rows: HistoryRow[]): HistoryRow[] {
  const r = random(37);
  const next: HistoryRow[] = [];
  for (const row of rows) {
    const x = r();
    if (x < 0.01) continue;
    if (x < 0.03 && row.status === 1) next.push({ ...row, status: x < 0.02 ? 2 : 3 });
    else if (x < 0.04) next.push({ ...row, total: row.total + exact("1.01") });
    else if (x < 0.045) next.push({ ...row, costCenter: "999", status: row.status === 2 ? 3 : row.status });
    else next.push(row);
  }
  for (let i = 0; i < 300; i++) next.push({ ...rows[i % rows.length]!, id: `N${i}`, folio: `NEW-${i}` });
  // Pages of 100 arriving in another order, as a concurrent walk keeps them.
  const pages = Array.from({ length: Math.ceil(next.length / 100) }, (_, p) =>
    next.slice(p * 100, p * 100 + 100),
  );
  for (let i = pages.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [pages[i], pages[j]] = [pages[j]!, pages[i]!];
  }
  return pages.flat();
}

/** The compare as it was before the chunked one (a map of id to line, every line a string). */
function reference(now: string[], then: string[], nowComplete: boolean, thenComplete: boolean) {
  const sets = Object.fromEntries(
    CHANGE_KINDS.map((k) => [k, { count: 0, sums: new Map(), folios: [] }]),
  ) as Record<
    string,
    { count: number; sums: Map<string, { row: HistoryRow; total: bigint }>; folios: string[] }
  >;
  const add = (kind: string, row: HistoryRow) => {
    const t = sets[kind]!;
    t.count += 1;
    const key = `${row.currency.mapped ? "" : "~"}${row.currency.code}`;
    const sum = t.sums.get(key);
    if (sum === undefined) t.sums.set(key, { row, total: row.total });
    else sum.total += row.total;
    if (t.folios.length < 50) t.folios.push(row.folio);
  };
  const idOf = (line: string) => line.slice(0, line.indexOf("\t"));
  const earlier = new Map<string, string>();
  for (const line of then) earlier.set(idOf(line), line);
  let unchanged = 0;
  for (const line of now) {
    const before = earlier.get(idOf(line));
    if (before === line) {
      earlier.delete(idOf(line));
      unchanged += 1;
    } else if (before === undefined) {
      if (thenComplete) add("new", parseLine(line));
    } else {
      earlier.delete(idOf(line));
      const [b, a] = [parseLine(before), parseLine(line)];
      add(
        b.status === 1 && a.status === 2
          ? "approved"
          : b.status === 1 && a.status === 3
            ? "rejected"
            : "changed",
        a,
      );
    }
  }
  if (nowComplete) for (const line of earlier.values()) add("gone", parseLine(line));
  const result = (k: string): ChangeSet => ({
    count: sets[k]!.count,
    by_currency: [...sets[k]!.sums.values()]
      .sort((a, b) => (a.row.currency.code < b.row.currency.code ? -1 : 1))
      .map(({ row, total }) => ({
        currency: row.currency.code,
        total: toNumber(total, row.currency),
        ...(row.currency.mapped ? {} : { currency_unmapped: true as const }),
      })),
    folios: sets[k]!.folios,
  });
  return {
    compared_to: { as_of: new Date(THEN).toISOString(), age_days: 1, complete: thenComplete },
    ...Object.fromEntries(CHANGE_KINDS.map((k) => [k, result(k)])),
    unchanged: { count: unchanged },
    ...(!nowComplete || !thenComplete ? { within_both_reads: true } : {}),
  };
}

/** Today's lines through LineEncoder, compared chunk by chunk with the stored `then`. */
function compareChunked(
  now: string[],
  thenBlob: Buffer,
  thenCount: number,
  nowComplete: boolean,
  thenComplete: boolean,
) {
  const comparison = new Comparison(StoredLines.decode(thenBlob, thenCount), {
    complete: thenComplete,
    at: THEN,
  });
  const encoder = new LineEncoder((bytes, from) => comparison.chunk(bytes, from));
  for (const line of now) encoder.add(line);
  const blob = encoder.finish();
  return {
    blob,
    count: encoder.count,
    changes: comparison.result({ complete: nowComplete, at: NOW }).changes,
  };
}

const thenRows = rowsOf(SIZE);
const thenLines = thenRows.map(lineOf);
const nowLines = dayAfter(thenRows).map(lineOf);

describe("the chunked codec", () => {
  it("round-trips 30,000 budgets, in gzip members any gunzip reads as the one text, under 60 bytes a budget", () => {
    const blob = encodeLines(thenLines);
    expect(decodeLines(blob, SIZE)).toEqual(thenLines);
    expect(gunzipSync(blob).toString("utf8")).toBe(thenLines.join("\n"));
    expect(blob.length / SIZE).toBeLessThan(60);
    expect(decodeLines(encodeLines([]), 0)).toEqual([]);
    expect(decodeLines(encodeLines(["only"]), 1)).toEqual(["only"]);
    // A line longer than a chunk, and characters of 2 to 4 UTF-8 bytes across chunk ends.
    const odd = [`1\t${"é€😀".repeat(60_000)}`, ...thenLines.slice(0, 20_000).map((l) => `${l}é`), "2\tlast"];
    expect(decodeLines(encodeLines(odd), odd.length)).toEqual(odd);
  });

  it("reads what the one-gzip encoder stored before, and refuses a count the text does not hold", () => {
    const before = gzipSync(thenLines.join("\n"), { level: 1 });
    expect(decodeLines(before, SIZE)).toEqual(thenLines);
    expect(() => StoredLines.decode(before, SIZE - 1)).toThrow(`${SIZE} rows, not the ${SIZE - 1} recorded`);
    expect(() => StoredLines.decode(before, 10 ** 12)).toThrow(/rows recorded for \d+ bytes/);
  });
});

describe("the chunked compare", () => {
  it("gives the changes the string compare gave, out of order, and stores today's lines as they were", () => {
    const got = compareChunked(nowLines, encodeLines(thenLines), SIZE, true, true);
    expect(got.changes).toEqual(reference(nowLines, thenLines, true, true));
    expect(got.count).toBe(nowLines.length);
    expect(decodeLines(got.blob, got.count)).toEqual(nowLines);
    for (const k of CHANGE_KINDS) expect(got.changes[k].count).toBeGreaterThan(0);
    expect(got.changes.new.count).toBe(300);
  });

  it("within what both read when either review is partial; nothing changed when nothing did", () => {
    const [now, then] = [nowLines.slice(0, 4000), thenLines.slice(0, 5000)];
    const thenBlob = encodeLines(then);
    for (const [nowComplete, thenComplete] of [
      [false, true],
      [true, false],
      [false, false],
    ] as const)
      expect(compareChunked(now, thenBlob, then.length, nowComplete, thenComplete).changes).toEqual(
        reference(now, then, nowComplete, thenComplete),
      );
    const same = compareChunked(then, thenBlob, then.length, true, true).changes;
    expect(same.unchanged.count).toBe(then.length);
    expect(CHANGE_KINDS.map((k) => same[k].count)).toEqual([0, 0, 0, 0, 0]);
  });
});

describe("remember", () => {
  const dir = mkdtempSync(join(tmpdir(), "mms-history-stream-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const of = historyFor(
    { on: true, backend: new FileHistory(dir), settings: { days: 35, maxBytes: 64 << 20 } },
    "t",
  );
  const review = (lines: string[], at: number, key = "k") => ({
    key,
    at,
    complete: true,
    eachLine: (add: (line: string) => void) => {
      for (const line of lines) add(line);
    },
  });

  it("two reviews stored, and the second's compare gives the same changes as the string compare", async () => {
    const first = await remember(of, review(thenLines, THEN), undefined, THEN);
    expect(first.notes).toEqual([]);
    const second = await remember(of, review(nowLines, NOW), { kind: "previous" }, NOW);
    expect(second.notes).toEqual([]);
    expect(second.changes).toEqual(reference(nowLines, thenLines, true, true));
    expect(second.lines[0]).toMatch(/^Since the review of 2027-01-01 08:00Z \(24 hours ago\): 300 new \(/);
    if (!of.on) throw new Error("history off");
    const loaded = await of.history.load("k");
    expect(loaded.kind === "record" && loaded.record.entries.map((e) => [e.at, e.count])).toEqual([
      [THEN, SIZE],
      [NOW, nowLines.length],
    ]);
  });

  it("an earlier line that does not parse stops the compare with a note; this review is still stored", async () => {
    if (!of.on) throw new Error("history off");
    const bad = ["1\tnot eleven fields"];
    await of.history.add(
      "bad",
      undefined,
      { at: THEN, complete: true, count: 1, blob: encodeLines(bad) },
      THEN,
    );
    const out = await remember(
      of,
      review(["1\tother", ...thenLines.slice(0, 10)], NOW, "bad"),
      { kind: "previous" },
      NOW,
    );
    expect(out.changes).toBeUndefined();
    expect(out.notes).toEqual([
      {
        code: "history_unreadable",
        text: "History unreadable (a row has 2 fields, not 11): not compared.",
        params: { reason: "a row has 2 fields, not 11" },
      },
    ]);
    const loaded = await of.history.load("bad");
    expect(loaded.kind === "record" && loaded.record.entries.map((e) => e.count)).toEqual([1, 11]);
  });
});
