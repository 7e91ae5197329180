/**
 * The lines a compare puts first in a review's text (interface.md §6f), one an agent can repeat to a
 * manager: "Since yesterday's review (2026-12-07 09:05, 1 day ago): 3 approved (USD 1,099.25; EUR
 * 456.50), 1 rejected (USD 251.25), 2 new (USD 411.00; CLP 971,139), 1 changed (folio 230: MXN
 * 7,539.50 -> 8,457.50), 1 removed; 95 unchanged." Then the folios of each kind.
 */
import { formatMoney } from "../money.js";
import { shown } from "../upstream-text.js";
import { type ChangeTally, KINDS, type Kind } from "./changes.js";

const WORDS: Record<Kind, string> = {
  approved: "approved",
  rejected: "rejected",
  new: "new",
  changed: "changed",
  gone: "changed out",
  removed: "removed",
};
/** Amounts said in the text's first line; the rest are in structuredContent.changes.changed.amounts. */
const AMOUNTS_SAID = 3;

/** "1 day ago", "3 hours ago", "5 minutes ago". */
export function ageWords(ms: number): string {
  const unit = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"} ago`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return unit(Math.max(0, minutes), "minute");
  // Rounded: yesterday's review at 09:05:01 is "1 day ago" at 09:05:00.
  const hours = Math.round(minutes / 60);
  return hours < 24 ? unit(hours, "hour") : unit(Math.round(hours / 24), "day");
}

export type Asked = "previous" | "yesterday" | "at";

function head(asked: Asked, thenAt: number, nowAt: number): string {
  const when = new Date(thenAt).toISOString();
  const at = `${when.slice(0, 10)} ${when.slice(11, 16)}, ${ageWords(nowAt - thenAt)}`;
  const which =
    asked === "yesterday"
      ? "yesterday's review"
      : asked === "previous"
        ? "the previous review"
        : "the review";
  return `Since ${which} (${at})`;
}

function changedSaid(tally: ChangeTally): string {
  const said = tally.amounts.slice(0, AMOUNTS_SAID).map(
    (a) =>
      `folio ${shown(a.folio)}: ${formatMoney(a.before.total, a.before.currency)} -> ${
        // "MXN 7,539.50 -> 8,457.50": the code once when it is the same ISO code.
        a.before.currency.code === a.after.currency.code && a.after.currency.mapped
          ? formatMoney(a.after.total, a.after.currency).slice(a.after.currency.code.length + 1)
          : formatMoney(a.after.total, a.after.currency)
      }`,
  );
  const more = tally.tallies.changed.count - said.length;
  return `${said.join("; ")}${more > 0 ? `; ${more} more` : ""}`;
}

/** The first line (and the folios' line when any changed). */
export function changesLines(tally: ChangeTally, asked: Asked, thenAt: number, nowAt: number): string[] {
  const parts = KINDS.filter((k) => tally.tallies[k].count > 0).map((k) => {
    const t = tally.tallies[k];
    const detail = k === "changed" ? changedSaid(tally) : k === "removed" ? "" : t.money();
    return `${t.count} ${WORDS[k]}${detail === "" ? "" : ` (${detail})`}`;
  });
  const figures = parts.length === 0 ? "nothing changed" : parts.join(", ");
  const notCompared =
    tally.notCompared > 0 ? ` ${tally.notCompared} not compared (${tally.reasons.join("; ")}).` : "";
  const lines = [`${head(asked, thenAt, nowAt)}: ${figures}; ${tally.unchanged} unchanged.${notCompared}`];
  const listed = KINDS.filter((k) => tally.tallies[k].count > 0).map((k) => {
    const t = tally.tallies[k];
    const more = t.count > t.folios.length ? ` and ${t.count - t.folios.length} more` : "";
    return `${WORDS[k]} ${t.folios.map((f) => shown(f)).join(", ")}${more}`;
  });
  if (listed.length > 0) lines.push(`Folios: ${listed.join("; ")}.`);
  return lines;
}
