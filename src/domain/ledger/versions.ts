/**
 * A ledger's version lines decoded for one call: the text as one buffer and where each line starts
 * (no string per line until one is needed), each budget's latest version, and its version as known
 * at an instant (the latest seen from at or before it: a slowly changing dimension, type 2).
 */
import { type HistoryRow, parseLine } from "../review/history-codec.js";

const TAB = 9;
/** The status of a budget the API no longer returns. */
export const REMOVED = -1;
const NEWLINE = 10;

/** The key of the id in bytes[s, e): a number when it is plain digits (nearly always), else its text. */
export function idKey(bytes: Buffer, s: number, e: number): number | string {
  if (e - s === 0 || e - s > 15 || (bytes[s] === 0x30 && e - s > 1)) return bytes.toString("latin1", s, e);
  let n = 0;
  for (let i = s; i < e; i++) {
    const d = bytes[i]! - 0x30;
    if (d < 0 || d > 9) return bytes.toString("latin1", s, e);
    n = n * 10 + d;
  }
  return n;
}

/** The same key from a budget line's text (its first field). */
export function idKeyOfLine(line: string): number | string {
  const tab = line.indexOf("\t");
  const id = tab === -1 ? line : line.slice(0, tab);
  return /^(0|[1-9]\d{0,14})$/.test(id) ? Number(id) : id;
}

export class Versions {
  readonly ids = new Map<number | string, number>();
  /** Per budget (dense index k): its latest line. */
  readonly latest: Int32Array;
  /** Per line: its budget's k, its seen-from, and where its budget line starts (after the from). */
  readonly #k: Int32Array;
  readonly #from: Float64Array;
  readonly #body: Uint32Array;

  private constructor(
    readonly text: Buffer,
    readonly starts: Uint32Array,
  ) {
    const n = starts.length - 1;
    this.latest = new Int32Array(n).fill(-1);
    this.#k = new Int32Array(n);
    this.#from = new Float64Array(n);
    this.#body = new Uint32Array(n);
  }

  get count(): number {
    return this.starts.length - 1;
  }

  get budgets(): number {
    return this.ids.size;
  }

  /** The lines of `text`, `count` of them; throws when they are not what the ledger writes. */
  static decode(text: Buffer, count: number): Versions {
    if (count > text.length + 1) throw new Error(`${count} versions recorded for ${text.length} bytes`);
    const starts = new Uint32Array(count + 1);
    let n = 0;
    for (let at = 0; text.length > 0; ) {
      if (n < count) starts[n] = at;
      n += 1;
      const nl = text.indexOf(NEWLINE, at);
      if (nl === -1) break;
      at = nl + 1;
    }
    if (n !== count) throw new Error(`${n} versions, not the ${count} recorded`);
    starts[count] = text.length + 1;
    const v = new Versions(text, starts);
    for (let i = 0; i < count; i++) v.#index(i);
    return v;
  }

  /**
   * These versions and `more` (`count` lines appended by a write): only the new lines are indexed,
   * so the next call of this process need not decode the whole ledger again.
   */
  extended(more: Buffer, count: number): Versions {
    if (count === 0) return this;
    if (this.count === 0) return Versions.decode(more, count);
    const n = this.count;
    const text = Buffer.concat([this.text, Buffer.from("\n"), more]);
    const starts = new Uint32Array(n + count + 1);
    starts.set(this.starts.subarray(0, n));
    const tail = Versions.decode(more, count);
    const offset = this.text.length + 1;
    for (let i = 0; i < count; i++) starts[n + i] = tail.starts[i]! + offset;
    starts[n + count] = text.length + 1;
    const v = new Versions(text, starts);
    for (const [key, k] of this.ids) v.ids.set(key, k);
    v.latest.set(this.latest);
    v.#k.set(this.#k);
    v.#from.set(this.#from);
    v.#body.set(this.#body);
    for (let i = n; i < n + count; i++) v.#index(i);
    return v;
  }

  #index(i: number): void {
    const s = this.starts[i]!;
    const e = this.end(i);
    const tab = this.text.indexOf(TAB, s);
    if (tab === -1 || tab >= e) throw new Error(`version ${i + 1} has no seen-from`);
    const from = Number(this.text.toString("latin1", s, tab));
    if (!Number.isSafeInteger(from)) throw new Error(`version ${i + 1} has a bad seen-from`);
    const idEnd = this.text.indexOf(TAB, tab + 1);
    const key = idKey(this.text, tab + 1, idEnd === -1 || idEnd > e ? e : idEnd);
    let k = this.ids.get(key);
    if (k === undefined) {
      k = this.ids.size;
      this.ids.set(key, k);
    }
    this.#k[i] = k;
    this.#from[i] = from;
    this.#body[i] = tab + 1;
    const last = this.latest[k]!;
    if (last === -1 || this.#from[last]! <= from) this.latest[k] = i;
  }

  end(i: number): number {
    return this.starts[i + 1]! - 1;
  }

  from(i: number): number {
    return this.#from[i]!;
  }

  /** The budget line of version i (without its seen-from). */
  line(i: number): string {
    return this.text.toString("utf8", this.#body[i]!, this.end(i));
  }

  row(i: number): HistoryRow {
    return parseLine(this.line(i));
  }

  /** Version i holds exactly `bytes` (a budget line as UTF-8). */
  same(i: number, bytes: Buffer): boolean {
    const s = this.#body[i]!;
    const e = this.end(i);
    if (e - s !== bytes.length) return false;
    for (let a = s, b = 0; a < e; a++, b++) if (this.text[a] !== bytes[b]) return false;
    return true;
  }

  /** Per budget: its version as known at `at` (-1: not seen by then). */
  knownAt(at: number): Int32Array {
    const then = new Int32Array(this.ids.size).fill(-1);
    for (let i = 0; i < this.count; i++) {
      const from = this.#from[i]!;
      if (from > at) continue;
      const k = this.#k[i]!;
      const j = then[k]!;
      if (j === -1 || this.#from[j]! <= from) then[k] = i;
    }
    return then;
  }

  /**
   * The lines to keep when sweeping: every budget's version as known at `cutoff` (unless it was
   * removed by then) and each one after.
   */
  kept(cutoff: number): number[] {
    const atCutoff = this.knownAt(cutoff);
    const out: number[] = [];
    for (let i = 0; i < this.count; i++)
      if (this.#from[i]! > cutoff || (atCutoff[this.#k[i]!] === i && this.row(i).status !== REMOVED))
        out.push(i);
    return out;
  }

  /** The whole line i (seen-from included), as stored. */
  stored(i: number): Buffer {
    return this.text.subarray(this.starts[i]!, this.end(i));
  }
}
