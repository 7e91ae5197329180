/**
 * A review's history step (interface.md §6e), run after its result is built: compare with the
 * stored review `compare_to` names, then store this one for next time. Nothing here can fail a
 * review: history that is off, unreadable, unreachable or full becomes a note (code, text, params).
 */
import { UserInputError } from "../../errors/api-error.js";
import { minusDuration } from "../period.js";
import { type Entry, type HistoryOf, type HistoryRecord, type Loaded, pickEntry } from "./history.js";
import { LineEncoder, StoredLines } from "./history-codec.js";
import { type Changes, type Compared, Comparison, changesText } from "./history-compare.js";

/** A note as results carry them (the `{ code, text, params }` shape of structuredContent.notes). */
export interface HistoryNote {
  code: HistoryNoteCode;
  text: string;
  params?: Record<string, string | number>;
}

export const HISTORY_NOTE_CODES = [
  "history_first_review",
  "history_unreadable",
  "history_off",
  "history_unavailable",
  "history_partial",
  "history_not_stored",
] as const;
export type HistoryNoteCode = (typeof HISTORY_NOTE_CODES)[number];

/** What the caller asked to compare with: the review before this one, or one at least this old. */
export type CompareTo = { kind: "previous" } | { kind: "before"; at: number; asked: string };

/** `compare_to` as given: "previous", an ISO 8601 instant, or a duration back (P1D). */
export function parseCompareTo(raw: string, now: number): CompareTo {
  const text = raw.trim();
  if (text.toLowerCase() === "previous") return { kind: "previous" };
  const back = minusDuration(text, now);
  if (back !== undefined) return { kind: "before", at: back, asked: text };
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const at = Date.parse(/T.*(Z|[+-]\d\d:?\d\d)$/i.test(text) || !text.includes("T") ? text : `${text}Z`);
    if (Number.isFinite(at)) return { kind: "before", at, asked: text };
  }
  throw new UserInputError(
    `compare_to: "${raw}" is not "previous", an ISO 8601 instant (2026-11-27T08:00Z) or a duration back (P1D)`,
    { field: "compare_to" },
  );
}

export interface ThisReview {
  /** The filters as asked (interface.md §6e), as a stable key. */
  key: string;
  /** When its budgets were read (epoch ms): the result's as_of. */
  at: number;
  complete: boolean;
  /** Gives its matching budgets as history lines (history-codec.ts lineOf), one at a time, only when needed. */
  eachLine: (add: (line: string) => void) => void;
}

export interface Remembered {
  changes?: Changes;
  lines: string[];
  notes: HistoryNote[];
}

const note = (code: HistoryNoteCode, text: string, params?: HistoryNote["params"]): HistoryNote =>
  params === undefined ? { code, text } : { code, text, params };

/** Compare (when asked) and store `review`; every failure is a note. */
export async function remember(
  history: HistoryOf,
  review: ThisReview,
  compareTo: CompareTo | undefined,
  now: number,
): Promise<Remembered> {
  if (!history.on)
    return {
      lines: [],
      notes:
        compareTo === undefined
          ? []
          : [
              note("history_off", `Not compared: review history is off (${history.why}).`, {
                reason: history.why,
              }),
            ],
    };
  const out: Remembered = { lines: [], notes: [] };
  let loaded: Loaded;
  try {
    loaded = await history.history.load(review.key);
  } catch (e) {
    out.notes.push(unavailable(e, history.history.backend.where));
    return out;
  }
  if (loaded.kind === "unreadable")
    out.notes.push(
      note(
        "history_unreadable",
        `History unreadable (${loaded.why}): not compared; ${loaded.setAsideAs ? `set aside as ${loaded.setAsideAs}` : "it could not be set aside"}.`,
        { reason: loaded.why, set_aside_as: loaded.setAsideAs ?? "" },
      ),
    );
  const record = loaded.kind === "record" ? loaded.record : undefined;
  // A result answered from the snapshot is the review already stored: nothing new to keep.
  const stored = record?.entries.some((e) => e.at === review.at) === true;
  const ask = loaded.kind === "unreadable" ? undefined : compareTo;
  const entry = compareAndEncode(out, record, review, ask, !stored, now);
  if (entry !== undefined && !stored) await storeStep(out, history, review.key, record, entry, now);
  return out;
}

/**
 * Compare (when asked) and encode (when it is to be stored) in one pass; the earlier review,
 * decoded, lives only here, so it is garbage before the store writes. Undefined: nothing to do.
 */
function compareAndEncode(
  out: Remembered,
  record: HistoryRecord | undefined,
  review: ThisReview,
  compareTo: CompareTo | undefined,
  compress: boolean,
  now: number,
): Entry | undefined {
  const comparing = compareTo === undefined ? undefined : startCompare(out, record, review, compareTo);
  if (comparing === undefined && !compress) return undefined;
  const entry = linesPass(review, comparing, compress);
  if (comparing !== undefined) finishCompare(out, comparing, review, now);
  return entry;
}

/** A compare under way: the earlier review decoded, fed today's lines chunk by chunk. */
class Comparing {
  error: Error | undefined;
  constructor(
    readonly comparison: Comparison,
    readonly earlierAt: number,
  ) {}

  /** A line the earlier review holds that does not parse stops the compare, never the store. */
  chunk(bytes: Buffer, from: number): void {
    if (this.error !== undefined) return;
    try {
      this.comparison.chunk(bytes, from);
    } catch (e) {
      this.error = e instanceof Error ? e : new Error(String(e));
    }
  }
}

const notCompared = (reason: string): HistoryNote =>
  note("history_unreadable", `History unreadable (${reason}): not compared.`, { reason });

/** The stored review `compareTo` names, decoded; or a note why there is none to compare with. */
function startCompare(
  out: Remembered,
  record: HistoryRecord | undefined,
  review: ThisReview,
  compareTo: CompareTo,
): Comparing | undefined {
  const notAfter = compareTo.kind === "previous" ? review.at - 1 : Math.min(compareTo.at, review.at - 1);
  const earlier = record === undefined ? undefined : pickEntry(record.entries, notAfter);
  if (earlier === undefined) {
    const what =
      compareTo.kind === "previous" ? "no earlier review" : `no review taken by ${compareTo.asked}`;
    out.notes.push(
      note(
        "history_first_review",
        `Not compared: ${what} of these filters is stored; this one is, for next time.`,
        { compare_to: compareTo.kind === "previous" ? "previous" : compareTo.asked },
      ),
    );
    return undefined;
  }
  try {
    const then = StoredLines.decode(earlier.blob, earlier.count);
    return new Comparing(new Comparison(then, { complete: earlier.complete, at: earlier.at }), earlier.at);
  } catch (e) {
    out.notes.push(notCompared((e as Error).message));
    return undefined;
  }
}

/**
 * One pass over this review's lines: each chunk compared (when asked) and gzipped (when it is to be
 * stored) as it is made, so neither the lines nor their whole text are ever all in memory at once.
 */
function linesPass(review: ThisReview, comparing: Comparing | undefined, compress: boolean): Entry {
  const encoder = new LineEncoder(
    comparing === undefined ? undefined : (bytes, from) => comparing.chunk(bytes, from),
    compress,
  );
  review.eachLine((line) => encoder.add(line));
  return { at: review.at, complete: review.complete, count: encoder.count, blob: encoder.finish() };
}

function finishCompare(out: Remembered, comparing: Comparing, review: ThisReview, now: number): void {
  let compared: Compared;
  try {
    if (comparing.error !== undefined) throw comparing.error;
    compared = comparing.comparison.result({ complete: review.complete, at: review.at });
  } catch (e) {
    out.notes.push(notCompared((e as Error).message));
    return;
  }
  out.changes = compared.changes;
  out.lines = changesText(compared, now, comparing.earlierAt);
  if (compared.changes.within_both_reads)
    out.notes.push(
      note(
        "history_partial",
        `${review.complete ? "The earlier review" : "This review"} is partial: the changes are within what both read.`,
        { partial: review.complete ? "earlier" : "this" },
      ),
    );
}

async function storeStep(
  out: Remembered,
  history: Extract<HistoryOf, { on: true }>,
  key: string,
  record: HistoryRecord | undefined,
  entry: Entry,
  now: number,
): Promise<void> {
  try {
    const { kept } = await history.history.add(key, record, entry, now);
    if (!kept)
      out.notes.push(
        note(
          "history_not_stored",
          "This review is not stored: alone it is larger than MMS_REVIEW_HISTORY_MB allows a tenant.",
          { bytes: entry.blob.length },
        ),
      );
  } catch (e) {
    out.notes.push(unavailable(e, history.history.backend.where));
  }
}

function unavailable(e: unknown, where: string): HistoryNote {
  const reason = e instanceof Error ? e.message : String(e);
  return note("history_unavailable", `Review history (${where}) could not be used this time (${reason}).`, {
    reason,
  });
}
