/**
 * A read's ledger step (interface.md §6f), run after its result is built: compare with what the
 * tenant's ledger knew at the instant `compare_to` names (when asked), then write what this read
 * saw. Nothing here can fail a review: a ledger that is off, unreadable, unreachable or full becomes
 * a note (code, text, params).
 */
import { UserInputError } from "../../errors/api-error.js";
import type { Changes } from "../ledger/changes.js";
import { type Asked, changesLines } from "../ledger/changes-text.js";
import { type Compared, compareWith, type Today } from "../ledger/compare.js";
import type { Coverage } from "../ledger/coverage.js";
import type { Ledger } from "../ledger/format.js";
import { DAY_MS, type LedgerOf, type TenantLedger } from "../ledger/ledger.js";
import { type Decoded, merge, TooLarge } from "../ledger/observe.js";
import type { Versions } from "../ledger/versions.js";
import { minusDuration } from "../period.js";

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

/** The instant to compare with: the state known before this read, at the end of yesterday, or at an instant. */
export type CompareTo =
  | { kind: "previous" }
  | { kind: "yesterday" }
  | { kind: "at"; at: number; asked: string };

/** `compare_to` as given: "previous", "yesterday", an ISO 8601 instant, or a duration back (P1D). */
export function parseCompareTo(raw: string, now: number): CompareTo {
  const text = raw.trim();
  const lower = text.toLowerCase();
  if (lower === "previous" || lower === "yesterday") return { kind: lower };
  const back = minusDuration(text, now);
  if (back !== undefined) return { kind: "at", at: back, asked: text };
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const at = Date.parse(/T.*(Z|[+-]\d\d:?\d\d)$/i.test(text) || !text.includes("T") ? text : `${text}Z`);
    if (Number.isFinite(at)) return { kind: "at", at, asked: text };
  }
  throw new UserInputError(
    `compare_to: "${raw}" is not "previous", "yesterday", an ISO 8601 instant (2026-11-27T08:00Z) or a duration back (P1D)`,
    { field: "compare_to" },
  );
}

/** The instant `c` names for a read at `readAt` ("today" is UTC, as every result's). */
export function instantOf(c: CompareTo, readAt: number, now: number): number {
  if (c.kind === "previous") return readAt - 1;
  if (c.kind === "yesterday") return Math.min(Math.floor(now / DAY_MS) * DAY_MS - 1, readAt - 1);
  return Math.min(c.at, readAt - 1);
}

export interface ThisRead {
  /** When its budgets were read (epoch ms): the result's as_of; the versions' seen-from. */
  at: number;
  coverage: Coverage;
  /** Every budget it fetched, as history lines, one at a time. */
  eachLine: (add: (line: string) => void) => void;
  /** What the compare needs of this review. */
  today: Today;
  /** Budgets the compare found removed (their last line, status -1): written with this read. */
  removed?: string[];
}

export interface Remembered {
  changes?: Changes;
  lines: string[];
  notes: HistoryNote[];
}

const note = (code: HistoryNoteCode, text: string, params?: HistoryNote["params"]): HistoryNote =>
  params === undefined ? { code, text } : { code, text, params };

/** Compare (when asked) and write `read`; every failure is a note. */
export async function remember(
  of: LedgerOf,
  read: ThisRead,
  compareTo: CompareTo | undefined,
  now: number,
): Promise<Remembered> {
  const out: Remembered = { lines: [], notes: [] };
  if (!of.on) {
    if (compareTo !== undefined)
      out.notes.push(
        note("history_off", `Not compared: review history is off (${of.why}).`, { reason: of.why }),
      );
    return out;
  }
  const { ledger } = of;
  let cached: Decoded | undefined;
  let nothingBefore: number | undefined;
  try {
    const loaded = await ledger.load();
    if (loaded.kind === "unreadable") out.notes.push(unreadable(loaded.why, loaded.setAsideAs));
    const found = loaded.kind === "ledger" ? loaded : undefined;
    if (found !== undefined) cached = { bytes: found.bytes, versions: found.versions };
    if (compareTo !== undefined && loaded.kind !== "unreadable")
      nothingBefore = await compareStep(out, ledger, found, read, compareTo, now);
  } catch (e) {
    out.notes.push(unavailable(e, ledger.backend.where));
  }
  const stored = await writeStep(out, ledger, read, now, cached);
  if (nothingBefore !== undefined) out.notes.push(firstReview(nothingBefore, ledger.settings.days, stored));
  return out;
}

/** The compare, said in `out`; the instant compared with when nothing was read before it. */
async function compareStep(
  out: Remembered,
  ledger: TenantLedger,
  found: { ledger: Ledger; versions: Versions } | undefined,
  read: ThisRead,
  compareTo: CompareTo,
  now: number,
): Promise<number | undefined> {
  const then = instantOf(compareTo, read.at, now);
  // Retention applies on read: nothing older than MMS_REVIEW_HISTORY_DAYS is compared with.
  const reads = (found?.ledger.header.cov ?? []).filter((c) => c.c && c.at >= now - ledger.retentionMs);
  const compared = await compareWith(found?.versions, reads, then, read.today);
  if (compared === undefined) return then;
  said(out, compared, compareTo, read, now);
  read.removed = compared.removed;
  return undefined;
}

function said(out: Remembered, compared: Compared, compareTo: CompareTo, read: ThisRead, now: number): void {
  out.changes = compared.changes;
  const asked: Asked = compareTo.kind === "at" ? "at" : compareTo.kind;
  out.lines = changesLines(compared.tally, asked, Date.parse(compared.changes.compared_to.as_of), now);
  if (!read.today.complete)
    out.notes.push(
      note(
        "history_partial",
        "This review is partial: budgets that left it are not known; what it read is compared.",
        { partial: "this" },
      ),
    );
}

async function writeStep(
  out: Remembered,
  ledger: TenantLedger,
  read: ThisRead,
  now: number,
  cached: Decoded | undefined,
): Promise<boolean> {
  const obs = { at: read.at, coverage: read.coverage, eachLine: read.eachLine, removed: read.removed ?? [] };
  try {
    const ok = await ledger.update((current) =>
      merge(current, obs, ledger.settings, now, cached, (written) => ledger.remember(written)),
    );
    if (!ok)
      out.notes.push(
        note(
          "history_not_stored",
          "This read is not stored: another review of this tenant held the ledger too long.",
          {
            reason: "busy",
          },
        ),
      );
    return ok;
  } catch (e) {
    if (e instanceof TooLarge)
      out.notes.push(
        note("history_not_stored", `This read is not stored: ${e.message}.`, { reason: "size" }),
      );
    else out.notes.push(unavailable(e, ledger.backend.where));
    return false;
  }
}

function firstReview(then: number, days: number, stored: boolean): HistoryNote {
  const when = `${new Date(then).toISOString().slice(0, 16)}Z`;
  return note(
    "history_first_review",
    `Not compared: nothing read before ${when} is kept (history keeps ${days} days)${stored ? "; this read is, for next time" : ""}.`,
    { compare_to: when },
  );
}

const unreadable = (why: string, setAsideAs: string | undefined): HistoryNote =>
  note(
    "history_unreadable",
    `History unreadable (${why}): not compared; ${setAsideAs ? `set aside as ${setAsideAs}` : "it is left as it is"}.`,
    { reason: why, set_aside_as: setAsideAs ?? "" },
  );

function unavailable(e: unknown, where: string): HistoryNote {
  const reason = e instanceof Error ? e.message : String(e);
  return note("history_unavailable", `Review history (${where}) could not be used this time (${reason}).`, {
    reason,
  });
}
