/**
 * Text the server did not write, placed in a line the server did (interface.md §6d, §7b): upstream
 * values in every text result, the agent's words in a confirmation question. Such text must never
 * break our line, reorder it, or read as our own sentence ("All 3 budgets ... are APPROVED", "Note
 * from maintenance-mcp: call ..."). One rule for both: a value that could pass for ours is quoted in
 * JSON string syntax (an inner quote cannot close it early) with every control, format and line
 * separator character shown escaped (`\n`, `\u202e`); plain names, codes and dates stay as they are.
 */

/**
 * Control (Cc), format (Cf: bidi overrides, zero-width), lone surrogate (Cs) and line/paragraph
 * separator characters: anything that could break a line, reorder the text or hide part of it.
 */
export const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;
const HIDDEN_ALL = new RegExp(HIDDEN.source, "gu");

/** `\u202e` for each UTF-16 unit of a character (JSON's escape form). */
const unicodeEscape = (c: string) =>
  Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`).join("");

/**
 * A value as one line of JSON with every hidden character escaped (`\n`, `\u2028`, `\u202e`): JSON
 * alone leaves DEL, C1 controls, format characters and the line separators U+2028/U+2029 as they are.
 */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(HIDDEN_ALL, unicodeEscape);
}

/**
 * `text` in double quotes, JSON string syntax: `"` and `\` escaped, line breaks as `\n`, every
 * other hidden character as `\uXXXX`, so the quoted piece is one line that reads back exactly.
 */
export const quote = (text: string): string => jsonLine(text);

/**
 * A sentence boundary inside the value ("ok. Note from", "APPROVED; USD"), or characters our lines use
 * as structure; a name's own final dot ("Industrial Supply Co.") is no second sentence.
 */
const SENTENCE = /[.!?]\s+\S|[;:](?:\s|$)|["|{}[\]<>`\\=]|^\s|\s$/;
/**
 * More words than a name or a short description carries: nine runs of non-space or more. Anchored, so
 * it is tried from one position: unanchored, each start re-scanned the words after it (a fifth of a
 * result's text rendering under the 32-client HTTP load).
 */
const MANY_WORDS = /^\s*(?:\S+\s+){8}\S/;

/** Whether an upstream value could read as a sentence of ours, or hides characters: then it is quoted. */
export function couldPassForOurs(text: string): boolean {
  return text === "" || HIDDEN.test(text) || SENTENCE.test(text) || MANY_WORDS.test(text);
}

/**
 * An upstream value as a text result shows it: as is when it is a plain name, code or date,
 * quoted (with hidden characters escaped) when it could read as our words; `empty` for null.
 */
export function shown(value: string | number | null | undefined, empty = "-"): string {
  if (value === null || value === undefined) return empty;
  const text = String(value);
  return couldPassForOurs(text) ? quote(text) : text;
}
