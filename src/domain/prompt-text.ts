/**
 * Text of the --confirm-writes question a person approves (interface.md §7b "Prompts a person can
 * trust"). The agent writes the free-text fields; it must never be able to make them read as the
 * server's own words ("This is a DRY RUN..."). So each one is quoted, on one line, without control or
 * format characters (newlines, bidi overrides, zero-width marks), and cut to QUOTE_MAX characters.
 */

import { HIDDEN, quote } from "./upstream-text.js";

/** Longest free text shown in a confirmation question, in characters. */
export const QUOTE_MAX = 80;

/** Runs of hidden characters (upstream-text.ts): a question flattens them to one space, then quotes. */
const HIDDEN_RUNS = new RegExp(`${HIDDEN.source}+`, "gu");

/** `text` as one quoted, single-line, bounded piece: `"INV-118"`, `"Left on the … (cut)"`. */
export function quoted(text: string, max = QUOTE_MAX): string {
  const flat = text.replace(HIDDEN_RUNS, " ").replace(/\s+/g, " ").trim();
  const chars = Array.from(flat);
  const cut = chars.length > max ? `${chars.slice(0, max).join("").trimEnd()}…` : flat;
  // The one quoting rule of text not ours: an inner quote cannot close the quoted part early.
  return quote(cut);
}

/** `label "text"` pieces for the fields that are set, joined for the question's last sentence. */
export function quotedFields(fields: readonly (readonly [string, string | undefined])[]): string {
  return fields
    .filter((f): f is readonly [string, string] => f[1] !== undefined)
    .map(([label, text]) => `${label} ${quoted(text)}`)
    .join("; ");
}
