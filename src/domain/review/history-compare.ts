/**
 * What changed between two stored reviews of the same filters (interface.md §6e): budgets new,
 * approved and rejected (pending then, decided now), gone (no longer matching) and changed
 * (anything else: amount, lines, cost center, another status), each counted with exact totals per
 * currency (BigInt sums, one currency never added to another) and at most 50 folios; the rest
 * unchanged. When either review is partial, only what both read is compared, and it says so.
 */
import { formatMoney, toNumber } from "../money.js";
import { shown } from "../upstream-text.js";
import { type HistoryRow, idOf, parseLine } from "./history-codec.js";

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

/** A stored review: its lines (history-codec.ts), whether whole, when read (epoch ms). */
export interface Side {
  lines: readonly string[];
  complete: boolean;
  at: number;
}

/**
 * Compare `now` with `then`. Lines are matched by id; an equal line is unchanged and never parsed
 * (nearly every budget, on a morning), so a review of 30,000 costs a map and string compares.
 */
export function compareLines(now: Side, then: Side): Compared {
  const tallies = Object.fromEntries(CHANGE_KINDS.map((k) => [k, new Tally()])) as Record<ChangeKind, Tally>;
  const earlier = new Map<string, string>();
  for (const line of then.lines) earlier.set(idOf(line), line);
  let unchanged = 0;
  for (const line of now.lines) {
    const id = idOf(line);
    const before = earlier.get(id);
    if (before === line) {
      earlier.delete(id);
      unchanged += 1;
      continue;
    }
    // A budget the earlier partial review did not reach is not known to be new.
    if (before === undefined) {
      if (then.complete) tallies.new.add(parseLine(line));
      continue;
    }
    earlier.delete(id);
    tallies[kindOf(parseLine(before), parseLine(line))].add(parseLine(line));
  }
  // What the earlier review saw and this one did not: gone, when this review read everything.
  if (now.complete) for (const line of earlier.values()) tallies.gone.add(parseLine(line));
  const partial = !now.complete || !then.complete;
  const changes = {
    compared_to: {
      as_of: new Date(then.at).toISOString(),
      age_days: Math.round((now.at - then.at) / 8_640_000) / 10,
      complete: then.complete,
    },
    ...Object.fromEntries(CHANGE_KINDS.map((k) => [k, tallies[k].result()])),
    unchanged: { count: unchanged },
    ...(partial ? { within_both_reads: true as const } : {}),
  } as Changes;
  return { changes, tallies, unchanged };
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
