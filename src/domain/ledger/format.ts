/**
 * A tenant's ledger as stored (interface.md §6f): a header line (the coverage of each read, the
 * number of version lines and their size before compression) and the version lines gzipped, each
 * `<seen from, epoch ms>\t<budget line>` (history-codec.ts). A write appends its new versions as one
 * more gzip member (RFC 1952 2.2: members concatenated read as one stream), so the old part is never
 * compressed again. Decompression is capped by the record's own size: a planted record that would
 * inflate far beyond what gzip makes of these lines is refused before it fills memory.
 */
import { createRequire } from "node:module";
import type { Coverage } from "./coverage.js";

// node:zlib (3-4 ms to load) on the first read or write, not at every start before tools/list.
const require = createRequire(import.meta.url);
let zlibModule: typeof import("node:zlib") | undefined;
const zlib = () => (zlibModule ??= require("node:zlib") as typeof import("node:zlib"));

const MAGIC = "MMSL1\n";
/** Level 1: a quarter of the default's time for a few bytes more a budget (bench section 11). */
const GZIP = { level: 1 };
/**
 * Version lines gzip about 5 to 10 times; a record claiming more than this ratio (plus a little
 * for tiny records) is not one we wrote.
 */
export const MAX_RATIO = 64;
const SLACK = 64 * 1024;

export interface Header {
  v: 1;
  /** Every read kept, oldest first. */
  cov: Coverage[];
  /** Version lines. */
  n: number;
  /** Bytes of the lines before compression (\n between them). */
  raw: number;
  /** The earliest `seen from` of any line: when it passes the retention, the ledger is swept. */
  oldest: number;
}

export interface Ledger {
  header: Header;
  /** The gzipped lines (one or more members). */
  blob: Buffer;
}

export const gzip = (text: Buffer): Buffer => zlib().gzipSync(text, GZIP);

export function pack(ledger: Ledger): Buffer {
  return Buffer.concat([Buffer.from(`${MAGIC}${JSON.stringify(ledger.header)}\n`), ledger.blob]);
}

/** The ledger in `data`; throws when it is not one pack wrote. */
export function unpack(data: Buffer): Ledger {
  if (data.subarray(0, MAGIC.length).toString() !== MAGIC) throw new Error("not a ledger record");
  const end = data.indexOf(0x0a, MAGIC.length);
  if (end === -1) throw new Error("no header");
  const header = JSON.parse(data.subarray(MAGIC.length, end).toString("utf8")) as Header;
  if (
    header?.v !== 1 ||
    !Array.isArray(header.cov) ||
    !Number.isSafeInteger(header.n) ||
    !Number.isSafeInteger(header.raw) ||
    header.n < 0 ||
    header.raw < 0
  )
    throw new Error("not a version 1 header");
  return { header, blob: data.subarray(end + 1) };
}

/** The lines' text; refused when it would inflate past MAX_RATIO times the record (a gzip bomb). */
export function inflate(ledger: Ledger): Buffer {
  const { blob, header } = ledger;
  if (header.n === 0) return Buffer.alloc(0);
  const cap = blob.length * MAX_RATIO + SLACK;
  if (header.raw > cap) throw new Error(`it claims ${header.raw} bytes from ${blob.length} compressed`);
  let text: Buffer;
  try {
    text = zlib().gunzipSync(blob, { maxOutputLength: header.raw + 1 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE")
      throw new Error(`it inflates past the ${header.raw} bytes it claims`);
    throw e;
  }
  if (text.length !== header.raw) throw new Error(`${text.length} bytes, not the ${header.raw} recorded`);
  return text;
}
