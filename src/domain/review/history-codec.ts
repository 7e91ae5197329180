/**
 * A review as its history keeps it (interface.md §6e): per budget only what a comparison needs —
 * id, folio, work order, status, ISO currency, the exact total, dates, cost center, third party
 * code, line count — never notes, names, addresses or anything of the caller. Rows are tab-separated
 * text, gzipped (node:zlib): about 20 bytes a budget. Totals are integers: cents when the amount has
 * no finer part (nearly always), else the exact 10^-6 units with a `u` before them; never a float.
 */
import { createRequire } from "node:module";
import type { PricedBudget } from "../budget-view.js";
import type { Currency, Exact } from "../money.js";

// node:zlib (3-4 ms to load) on a history's first read or write, not at every start before tools/list.
const require = createRequire(import.meta.url);
let zlibModule: typeof import("node:zlib") | undefined;
const zlib = () => (zlibModule ??= require("node:zlib") as typeof import("node:zlib"));
const gzipSync: typeof import("node:zlib").gzipSync = (data, options) => zlib().gzipSync(data, options);
const gunzipSync: typeof import("node:zlib").gunzipSync = (data, options) => zlib().gunzipSync(data, options);

/** One budget of a stored review. */
export interface HistoryRow {
  id: string;
  folio: string;
  wo: string;
  status: number;
  currency: Currency;
  /** Exact, at money.ts's scale (10^-6 units). */
  total: Exact;
  created: string;
  approved: string;
  costCenter: string;
  thirdParty: string;
  lines: number;
}

const FIELDS = 11;
/** 10^-6 units in a cent. */
const PER_CENT = 10_000n;

const text = (v: unknown): string => (v === null || v === undefined ? "" : String(v));

/** The line of a budget a review read, without an intermediate row (30,000 of them per review). */
export function budgetLine(p: PricedBudget): string {
  const b = p.budget;
  return `${escaped(text(b.id))}\t${escaped(text(b.folio))}\t${escaped(text(b.wo_folio))}\t${b.status}\t${escaped(currencyText(p.currency))}\t${totalText(p.total)}\t${escaped(text(b.date_create))}\t${escaped(text(b.approval_date))}\t${escaped(text(b.id_cost_center ?? b.costs_center_description))}\t${escaped(text(b.third_parties_code))}\t${p.lineCount ?? b.list_items.length}`;
}

/** The row of a budget a review read. */
export function rowOf(p: PricedBudget): HistoryRow {
  const b = p.budget;
  return {
    id: text(b.id),
    folio: text(b.folio),
    wo: text(b.wo_folio),
    status: b.status,
    currency: p.currency,
    total: p.total,
    created: text(b.date_create),
    approved: text(b.approval_date),
    costCenter: text(b.id_cost_center ?? b.costs_center_description),
    thirdParty: text(b.third_parties_code),
    lines: p.lineCount ?? b.list_items.length,
  };
}

// Upstream text may hold tabs and line breaks: escaped, so a row stays one line of 11 fields.
const escaped = (s: string) => (/[\t\n\\]/.test(s) ? s.replace(/[\t\n\\]/g, (c) => ESCAPES[c]!) : s);
const ESCAPES: Record<string, string> = { "\t": "\\t", "\n": "\\n", "\\": "\\\\" };
const unescaped = (s: string) =>
  s.includes("\\") ? s.replace(/\\(.)/g, (_, c: string) => (c === "t" ? "\t" : c === "n" ? "\n" : c)) : s;

const totalText = (t: Exact) => (t % PER_CENT === 0n ? (t / PER_CENT).toString() : `u${t}`);
const totalOf = (s: string): Exact => (s.startsWith("u") ? BigInt(s.slice(1)) : BigInt(s) * PER_CENT);

/** An unmapped currency keeps the API's description, marked with `~`. */
const currencyText = (c: Currency) => (c.mapped ? c.code : `~${c.code}`);
const currencyOfText = (s: string): Currency =>
  s.startsWith("~") ? { code: s.slice(1), mapped: false } : { code: s, mapped: true };

/** A row as one line of text: what is stored, and what two reviews compare (equal lines: unchanged). */
export function lineOf(r: HistoryRow): string {
  return `${escaped(r.id)}\t${escaped(r.folio)}\t${escaped(r.wo)}\t${r.status}\t${escaped(currencyText(r.currency))}\t${totalText(r.total)}\t${escaped(r.created)}\t${escaped(r.approved)}\t${escaped(r.costCenter)}\t${escaped(r.thirdParty)}\t${r.lines}`;
}

/** The row of a stored line; throws on a line encodeLines did not write. */
export function parseLine(line: string): HistoryRow {
  const f = line.split("\t");
  if (f.length !== FIELDS) throw new Error(`a row has ${f.length} fields, not ${FIELDS}`);
  const status = Number(f[3]);
  const lines = Number(f[10]);
  if (!Number.isInteger(status) || !Number.isInteger(lines)) throw new Error("a row's status or lines");
  return {
    id: unescaped(f[0]!),
    folio: unescaped(f[1]!),
    wo: unescaped(f[2]!),
    status,
    currency: currencyOfText(unescaped(f[4]!)),
    total: totalOf(f[5]!),
    created: unescaped(f[6]!),
    approved: unescaped(f[7]!),
    costCenter: unescaped(f[8]!),
    thirdParty: unescaped(f[9]!),
    lines,
  };
}

// Level 1: a quarter of the default's time for a few bytes more a budget (bench section 11).
const GZIP = { level: 1 };
/** Bytes of text gzipped at a time (about 6,000 budgets): a review's whole text is never in memory at once. */
const CHUNK_BYTES = 512 * 1024;
const NEWLINE = 10;

/**
 * A review's lines, gzipped a chunk at a time, each chunk its own gzip member: gunzip reads
 * concatenated members as one stream (RFC 1952, 2.2), so the blob is the same text as one gzip of
 * all the lines joined by \n, and records written either way read alike. Each line is written into
 * the chunk's buffer as it comes, so it dies young (a chunk of strings kept alive made V8 grow its
 * young generation: +8 MiB of RSS). `onChunk` sees each chunk's bytes (UTF-8; its lines separated
 * by \n, the first from byte `from`) before they are compressed: the compare reads them there.
 */
export class LineEncoder {
  count = 0;
  #buf = Buffer.allocUnsafe(CHUNK_BYTES);
  #pos = 0;
  /** Lines before this chunk: when any, the chunk starts with the \n that ends the last of them. */
  #before = 0;
  readonly #members: Buffer[] = [];

  constructor(
    readonly onChunk?: (bytes: Buffer, from: number) => void,
    /** false: only counted and shown to onChunk (a review already stored is not stored again). */
    readonly compress = true,
  ) {}

  add(line: string): void {
    // At most 3 UTF-8 bytes a UTF-16 unit, and the \n before it.
    const room = line.length * 3 + 1;
    if (this.#pos + room > this.#buf.length) {
      this.#flush();
      if (room > this.#buf.length) this.#buf = Buffer.allocUnsafe(room);
    }
    if (this.count > 0) this.#buf[this.#pos++] = NEWLINE;
    this.#pos += this.#buf.write(line, this.#pos, "utf8");
    this.count += 1;
  }

  /** The gzipped lines (a gzip of nothing when there are none). */
  finish(): Buffer {
    this.#flush();
    if (this.#members.length === 0) return this.compress ? gzipSync(Buffer.alloc(0), GZIP) : Buffer.alloc(0);
    return this.#members.length === 1 ? this.#members[0]! : Buffer.concat(this.#members);
  }

  #flush(): void {
    if (this.count === this.#before) return;
    const bytes = this.#buf.subarray(0, this.#pos);
    this.onChunk?.(bytes, this.#before > 0 ? 1 : 0);
    if (this.compress) this.#members.push(gzipSync(bytes, GZIP));
    this.#pos = 0;
    this.#before = this.count;
  }
}

/** The lines, gzipped. */
export function encodeLines(lines: Iterable<string>): Buffer {
  const encoder = new LineEncoder();
  for (const line of lines) encoder.add(line);
  return encoder.finish();
}

/**
 * A stored review decoded for a compare: its text as one buffer and where each line starts, not
 * 30,000 strings; a line becomes a string only when it differs from today's.
 */
export class StoredLines {
  private constructor(
    readonly text: Buffer,
    /** count + 1 offsets: line i is text[starts[i], starts[i + 1] - 1). */
    readonly starts: Uint32Array,
  ) {}

  get count(): number {
    return this.starts.length - 1;
  }

  /** The lines of `blob`, `count` of them; throws when it is not what LineEncoder wrote. */
  static decode(blob: Buffer, count: number): StoredLines {
    const text = gunzipSync(blob);
    // A count no text of this length can hold is refused before anything is allocated for it.
    if (!Number.isSafeInteger(count) || count < 0 || count > text.length + 1)
      throw new Error(`${count} rows recorded for ${text.length} bytes`);
    const starts = new Uint32Array(count + 1);
    let n = 0;
    for (let at = 0; text.length > 0; ) {
      if (n < count) starts[n] = at;
      n += 1;
      const nl = text.indexOf(NEWLINE, at);
      if (nl === -1) break;
      at = nl + 1;
    }
    if (n !== count) throw new Error(`${n} rows, not the ${count} recorded`);
    starts[count] = text.length + 1;
    return new StoredLines(text, starts);
  }

  end(i: number): number {
    return this.starts[i + 1]! - 1;
  }

  line(i: number): string {
    return this.text.toString("utf8", this.starts[i]!, this.end(i));
  }
}

/** The lines of `blob`, `count` of them; throws when it is not what encodeLines wrote. */
export function decodeLines(blob: Buffer, count: number): string[] {
  const stored = StoredLines.decode(blob, count);
  return Array.from({ length: count }, (_, i) => stored.line(i));
}

/** The rows, gzipped. */
export const encodeRows = (rows: readonly HistoryRow[]): Buffer => encodeLines(rows.map(lineOf));

/** The rows of `blob`; throws on anything that is not what encodeRows wrote. */
export function decodeRows(blob: Buffer): HistoryRow[] {
  const body = gunzipSync(blob).toString("utf8");
  return body === "" ? [] : body.split("\n").map(parseLine);
}
