/**
 * A read written into the ledger (interface.md §6f): a version line for each budget whose line
 * differs from its latest version (or that is new to the ledger), and the read's coverage. Nothing
 * else is rewritten: the new lines are one more gzip member. Past the retention, the ledger is swept
 * (coverage older than MMS_REVIEW_HISTORY_DAYS out, versions replaced before then out) and written
 * whole.
 */
import { type Coverage, sameAsk } from "./coverage.js";
import { gzip, type Header, inflate, type Ledger, pack, unpack } from "./format.js";
import type { LedgerSettings } from "./ledger.js";
import { idKeyOfLine, Versions } from "./versions.js";

/** Reads kept at most (oldest out): a header line stays small whatever the callers do. */
export const MAX_READS = 2000;

export interface Observation {
  at: number;
  coverage: Coverage;
  /** Gives every budget the read fetched, as lines (history-codec.ts budgetLine), one at a time. */
  eachLine: (add: (line: string) => void) => void;
  /** Budgets the API no longer returns: their last line with status -1. */
  removed: string[];
}

/** A ledger already decoded for this call (the compare's), reused when the record has not moved. */
export interface Decoded {
  bytes: Buffer;
  versions: Versions;
}

export function decode(ledger: Ledger): Versions {
  return Versions.decode(inflate(ledger), ledger.header.n);
}

/**
 * The record with `obs` in it, or undefined when it would hold nothing new. Throws when the
 * current record does not parse (the caller sets it aside next time) or the result exceeds the bytes.
 */
export function merge(
  current: Buffer | undefined,
  obs: Observation,
  settings: LedgerSettings,
  now: number,
  cached?: Decoded,
  /** Told the record written and its versions (when cheap to know: not a first write, not a sweep). */
  onMerged?: (written: Decoded) => void,
): Buffer | undefined {
  const ledger = current === undefined ? undefined : unpack(current);
  const versions =
    ledger === undefined
      ? undefined
      : cached !== undefined && current!.equals(cached.bytes)
        ? cached.versions
        : decode(ledger);
  const cutoff = now - settings.days * 86_400_000;
  const fresh = newLines(versions, obs);
  const cov = (ledger?.header.cov ?? []).filter((c) => c.at >= cutoff);
  const known = cov.some((c) => c.at === obs.coverage.at && sameAsk(c, obs.coverage));
  if (!known) cov.push(obs.coverage);
  while (cov.length > MAX_READS) cov.shift();
  const sweep = ledger !== undefined && ledger.header.oldest < cutoff;
  if (fresh.length === 0 && known && !sweep) return undefined;
  const out = sweep ? swept(versions!, cutoff, fresh, cov) : appended(ledger, fresh, cov, obs.at);
  const bytes = pack(out);
  if (bytes.length > settings.maxBytes)
    throw new TooLarge(`the ledger would be ${bytes.length} bytes, past MMS_REVIEW_HISTORY_MB`);
  // A ledger's first write (nearly all of it new) is decoded at the next read instead: less held at once.
  if (onMerged !== undefined && !sweep && versions !== undefined)
    onMerged({ bytes, versions: versions.extended(Buffer.from(fresh.join("\n"), "utf8"), fresh.length) });
  return bytes;
}

const NL = Buffer.from("\n");

export class TooLarge extends Error {}

function newLines(versions: Versions | undefined, obs: Observation): string[] {
  const fresh: string[] = [];
  const add = (line: string) => {
    const k = versions?.ids.get(idKeyOfLine(line));
    if (k !== undefined && versions!.line(versions!.latest[k]!) === line) return;
    fresh.push(`${obs.at}\t${line}`);
  };
  obs.eachLine(add);
  for (const line of obs.removed) add(line);
  return fresh;
}

function appended(ledger: Ledger | undefined, fresh: string[], cov: Coverage[], at: number): Ledger {
  const before = ledger?.header;
  const text = Buffer.from(fresh.join("\n"), "utf8");
  const join = before !== undefined && before.n > 0 && fresh.length > 0;
  const header: Header = {
    v: 1,
    cov,
    n: (before?.n ?? 0) + fresh.length,
    raw: (before?.raw ?? 0) + (join ? 1 : 0) + text.length,
    oldest: Math.min(before?.oldest ?? at, at),
  };
  const parts = [ledger?.blob ?? Buffer.alloc(0)];
  // The newline between the old lines and the new is the new member's first byte.
  if (fresh.length > 0) parts.push(gzip(join ? Buffer.concat([Buffer.from("\n"), text]) : text));
  return { header, blob: Buffer.concat(parts) };
}

function swept(versions: Versions, cutoff: number, fresh: string[], cov: Coverage[]): Ledger {
  const keep = versions.kept(cutoff);
  const parts: Buffer[] = [];
  for (const i of keep) parts.push(versions.stored(i));
  for (const line of fresh) parts.push(Buffer.from(line, "utf8"));
  const text = Buffer.concat(parts.flatMap((p, i) => (i === 0 ? [p] : [NL, p])));
  // Kept versions keep their first seen-from: the next sweep is due a day on, not at every write.
  const header: Header = { v: 1, cov, n: parts.length, raw: text.length, oldest: cutoff + 86_400_000 };
  return { header, blob: parts.length === 0 ? Buffer.alloc(0) : gzip(text) };
}
