/**
 * What changed between two stored reviews of the same filters (interface.md §6e): budgets new,
 * approved and rejected (pending then, decided now), gone (no longer matching) and changed
 * (anything else: amount, lines, cost center, another status), each counted with exact totals per
 * currency (BigInt sums, one currency never added to another) and at most 50 folios; the rest
 * unchanged. When either review is partial, only what both read is compared, and it says so.
 */
import { formatMoney, toNumber } from "../money.js";
import { shown } from "../upstream-text.js";
import { type HistoryRow, parseLine, type StoredLines } from "./history-codec.js";

/** Folios listed per kind of change; the count says how many in all. */
export const FOLIOS_LISTED = 50;
const PENDING = 1;
const APPROVED = 2;
const REJECTED = 3;

export const CHANGE_KINDS = ["new", "approved", "rejected", "gone", "changed"] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

// Type aliases, not interfaces, so they fit the loose output schema (index signature).
export type ChangeSet = {
  count: number;
  by_currency: { currency: string; total: number; currency_unmapped?: true }[];
  folios: string[];
};

export type Changes = Record<ChangeKind, ChangeSet> & {
  compared_to: { as_of: string; age_days: number; complete: boolean };
  unchanged: { count: number };
  /** Set when either review is partial: new and gone are only known against a whole review. */
  within_both_reads?: true;
};

class Tally {
  count = 0;
  readonly #sums = new Map<string, { row: HistoryRow; total: bigint }>();
  readonly folios: string[] = [];

  add(row: HistoryRow): void {
    this.count += 1;
    const key = `${row.currency.mapped ? "" : "~"}${row.currency.code}`;
    const sum = this.#sums.get(key);
    if (sum === undefined) this.#sums.set(key, { row, total: row.total });
    else sum.total += row.total;
    if (this.folios.length < FOLIOS_LISTED) this.folios.push(row.folio);
  }

  result(): ChangeSet {
    const by_currency = [...this.#sums.values()]
      .sort((a, b) => (a.row.currency.code < b.row.currency.code ? -1 : 1))
      .map(({ row, total }) => ({
        currency: row.currency.code,
        total: toNumber(total, row.currency),
        ...(row.currency.mapped ? {} : { currency_unmapped: true as const }),
      }));
    return { count: this.count, by_currency, folios: this.folios };
  }

  /** "USD 2,300.00; EUR 410.00" */
  money(): string {
    return [...this.#sums.values()].map(({ row, total }) => formatMoney(total, row.currency)).join("; ");
  }
}

export interface Compared {
  changes: Changes;
  /** The one or two lines of text (see changesText). */
  tallies: Record<ChangeKind, Tally>;
  unchanged: number;
}

/** A review's side of a compare: whether whole, when read (epoch ms). */
export interface Side {
  complete: boolean;
  at: number;
}

const TAB = 9;
const NEWLINE = 10;

/** a[as, ae) and b[bs, be) hold the same bytes. A loop: Buffer#compare's checks cost more than a line's ~90 bytes. */
function sameBytes(a: Buffer, as: number, ae: number, b: Buffer, bs: number, be: number): boolean {
  if (ae - as !== be - bs) return false;
  for (let i = as, k = bs; i < ae; i++, k++) if (a[i] !== b[k]) return false;
  return true;
}

/**
 * The key of the id in bytes[s, e): a number when it is digits with no leading zero (nearly always;
 * no string made), else its text. A number and a string are never the same key.
 */
function idKey(bytes: Buffer, s: number, e: number): number | string {
  if (e - s === 0 || e - s > 15 || (bytes[s] === 0x30 && e - s > 1)) return bytes.toString("latin1", s, e);
  let n = 0;
  for (let i = s; i < e; i++) {
    const d = bytes[i]! - 0x30;
    if (d < 0 || d > 9) return bytes.toString("latin1", s, e);
    n = n * 10 + d;
  }
  return n;
}

/**
 * Today's review against a stored one, a chunk of today's lines at a time as LineEncoder writes them
 * (history-codec.ts). Lines are matched by id; an equal line is unchanged and never parsed (nearly
 * every budget, on a morning), and matched in place: the budget after the last match is tried first,
 * so a review in the same order as the stored one needs no map of ids (built once, only on a miss).
 */
export class Comparison {
  readonly #then: StoredLines;
  readonly #matched: Uint8Array;
  readonly #tallies = Object.fromEntries(CHANGE_KINDS.map((k) => [k, new Tally()])) as Record<
    ChangeKind,
    Tally
  >;
  #unchanged = 0;
  #next = 0;
  #ids: Map<number | string, number> | undefined;

  constructor(
    then: StoredLines,
    readonly thenSide: Side,
  ) {
    this.#then = then;
    this.#matched = new Uint8Array(then.count);
  }

  /** The lines of `bytes` from byte `from` (LineEncoder's onChunk). */
  chunk(bytes: Buffer, from: number): void {
    for (let s = from; s <= bytes.length; ) {
      const nl = bytes.indexOf(NEWLINE, s);
      const e = nl === -1 ? bytes.length : nl;
      this.#line(bytes, s, e);
      s = e + 1;
    }
  }

  #line(bytes: Buffer, s: number, e: number): void {
    const then = this.#then;
    const j = this.#next;
    if (
      j < then.count &&
      this.#matched[j] === 0 &&
      sameBytes(bytes, s, e, then.text, then.starts[j]!, then.end(j))
    ) {
      this.#matched[j] = 1;
      this.#next = j + 1;
      this.#unchanged += 1;
      return;
    }
    const line = bytes.toString("utf8", s, e);
    const k = this.#find(bytes, s, e);
    // A budget the earlier partial review did not reach is not known to be new.
    if (k === undefined) {
      if (this.thenSide.complete) this.#tallies.new.add(parseLine(line));
      return;
    }
    this.#matched[k] = 1;
    this.#next = k + 1;
    const before = then.line(k);
    if (before === line) this.#unchanged += 1;
    else this.#tallies[kindOf(parseLine(before), parseLine(line))].add(parseLine(line));
  }

  /** The earlier line of the same id not matched yet: the next one in order, else by the map. */
  #find(bytes: Buffer, s: number, e: number): number | undefined {
    const then = this.#then;
    const tab = bytes.indexOf(TAB, s);
    const idEnd = tab === -1 || tab > e ? e : tab;
    const j = this.#next;
    if (j < then.count && this.#matched[j] === 0) {
      const start = then.starts[j]!;
      const thenTab = then.text.indexOf(TAB, start);
      if (thenTab !== -1 && sameBytes(bytes, s, idEnd, then.text, start, thenTab)) return j;
    }
    const k = this.#idMap().get(idKey(bytes, s, idEnd));
    return k === undefined || this.#matched[k] === 1 ? undefined : k;
  }

  #idMap(): Map<number | string, number> {
    if (this.#ids !== undefined) return this.#ids;
    const then = this.#then;
    this.#ids = new Map();
    for (let i = 0; i < then.count; i++) {
      const start = then.starts[i]!;
      const tab = then.text.indexOf(TAB, start);
      const end = tab === -1 || tab > then.end(i) ? then.end(i) : tab;
      this.#ids.set(idKey(then.text, start, end), i);
    }
    return this.#ids;
  }

  /** What changed, once every line of today's review went through chunk(). */
  result(now: Side): Compared {
    const tallies = this.#tallies;
    // What the earlier review saw and this one did not: gone, when this review read everything.
    if (now.complete)
      for (let i = 0; i < this.#then.count; i++)
        if (this.#matched[i] === 0) tallies.gone.add(parseLine(this.#then.line(i)));
    const then = this.thenSide;
    const partial = !now.complete || !then.complete;
    const changes = {
      compared_to: {
        as_of: new Date(then.at).toISOString(),
        age_days: Math.round((now.at - then.at) / 8_640_000) / 10,
        complete: then.complete,
      },
      ...Object.fromEntries(CHANGE_KINDS.map((k) => [k, tallies[k].result()])),
      unchanged: { count: this.#unchanged },
      ...(partial ? { within_both_reads: true as const } : {}),
    } as Changes;
    return { changes, tallies, unchanged: this.#unchanged };
  }
}

/** Pending then, decided now: approved or rejected; any other difference: changed. */
function kindOf(before: HistoryRow, after: HistoryRow): "approved" | "rejected" | "changed" {
  if (before.status === PENDING && after.status === APPROVED) return "approved";
  if (before.status === PENDING && after.status === REJECTED) return "rejected";
  return "changed";
}

/** "1 day ago", "3 hours ago", "5 minutes ago". */
export function ageWords(ms: number): string {
  const unit = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"} ago`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return unit(Math.max(0, minutes), "minute");
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? unit(hours, "hour") : unit(Math.floor(hours / 24), "day");
}

/**
 * "Since the review of 2026-11-27 08:00Z (1 day ago): 5 new (USD 2,300.00; EUR 410.00), 3 approved
 * (...), 1 rejected (...), 2 changed, 87 unchanged." and a second line of folios when any changed.
 */
export function changesText(compared: Compared, nowAt: number, thenAt: number): string[] {
  const { tallies, unchanged } = compared;
  const when = new Date(thenAt).toISOString();
  const head = `Since the review of ${when.slice(0, 10)} ${when.slice(11, 16)}Z (${ageWords(nowAt - thenAt)})`;
  const part = (k: ChangeKind, withMoney: boolean) => {
    const t = tallies[k];
    return `${t.count} ${k}${withMoney && t.count > 0 ? ` (${t.money()})` : ""}`;
  };
  const figures = [
    part("new", true),
    part("approved", true),
    part("rejected", true),
    part("gone", true),
    part("changed", false),
    `${unchanged} unchanged`,
  ];
  const within = compared.changes.within_both_reads
    ? " Within what both reviews read (one is partial): new and gone are counted only against a whole review."
    : "";
  const lines = [`${head}: ${figures.join(", ")}.${within}`];
  const listed = CHANGE_KINDS.filter((k) => tallies[k].count > 0).map((k) => {
    const t = tallies[k];
    const more = t.count > t.folios.length ? ` and ${t.count - t.folios.length} more` : "";
    return `${k} ${t.folios.map((f) => shown(f)).join(", ")}${more}`;
  });
  if (listed.length > 0) lines.push(`Folios: ${listed.join("; ")}.`);
  return lines;
}
