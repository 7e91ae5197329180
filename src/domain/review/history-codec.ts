/**
 * A review as its history keeps it (interface.md §6e): per budget only what a comparison needs —
 * id, folio, work order, status, ISO currency, the exact total, dates, cost center, third party
 * code, line count — never notes, names, addresses or anything of the caller. Rows are tab-separated
 * text (the ledger gzips them: src/domain/ledger/format.ts). Totals are integers: cents when the
 * amount has no finer part (nearly always), else the exact 10^-6 units with a `u` before them; never
 * a float. A budget the API no longer returns is its last line with status -1 (ledger/versions.ts).
 */
import type { PricedBudget } from "../budget-view.js";
import type { Currency, Exact } from "../money.js";

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
