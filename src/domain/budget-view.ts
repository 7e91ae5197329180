/**
 * The views of a work-order budget. The compact view keeps what a reviewer needs to decide
 * (under a fifth of the raw bytes), every amount beside its ISO currency code; the detail view
 * adds the note and the lines, never the third party's address, e-mail or phones; the full view is
 * every field of api-spec §2.3 plus labels and the same code and total. `items_total` is the sum
 * of the lines' total_cost, before the discount and taxes; `net_total` (after the discount) only
 * when the operator says what the discount is (MMS_BUDGET_DISCOUNT): the API does not.
 */
import type { Budget } from "../client/types.js";
import { jsonLength } from "./fit.js";
import { BUDGET_STATUS, labelOf, PRIORITY, WORK_ORDER_STATUS } from "./labels.js";
import { type Currency, currencyOf, type Exact, exact, formatMoney, toNumber } from "./money.js";
import { NOTES, type Note } from "./notes.js";
import { type Role, thirdPartyFields, thirdPartyText } from "./third-party.js";
import { jsonLine, shown } from "./upstream-text.js";

// A type alias, not an interface, so it fits the loose output schema (index signature).
export type CompactBudget = {
  folio: string;
  wo_folio: string | null;
  status: number;
  status_label: string | null;
  work_order_status: string | null;
  third_party: string | null;
  /** The API's third_parties_code and the role it names: in the detail view (the compact view's text line shows both). */
  third_party_code?: string;
  third_party_role?: Role;
  cost_center: string | null;
  /** ISO 4217 code, or the API's description when it maps to none (then currency_unmapped is true). */
  currency: string;
  currency_unmapped?: true;
  items_total: number;
  /** items_total after the discount, when MMS_BUDGET_DISCOUNT says how to read it. */
  net_total?: number;
  discount: number | null;
  line_count: number;
  date_create: string;
  approval_date: string | null;
};

/** How the API's `discount` reads, when the operator knows (MMS_BUDGET_DISCOUNT); the API does not say. */
export type DiscountKind = "percent" | "amount";

/** A budget with its currency and exact totals worked out once (the review sorts, filters and sums these). */
export interface PricedBudget {
  budget: Budget;
  currency: Currency;
  /** items_total: the lines' total_cost summed, before the discount and taxes. */
  total: Exact;
  /** After the discount; present only with a DiscountKind. */
  net?: Exact;
  /** The number of lines, when the lines themselves were not kept (a review's compact snapshot). */
  lineCount?: number;
}

const HUNDRED_PERCENT = exact(100);

/** items_total less the discount, read as a percentage or as an amount in the budget's currency. */
export function netOf(total: Exact, discount: number | null, kind: DiscountKind): Exact {
  if (discount === null || discount === 0) return total;
  const d = exact(discount);
  if (kind === "amount") return total - d;
  // total x (100 - d) / 100, rounded half away from zero at the exact scale.
  const scaled = total * (HUNDRED_PERCENT - d);
  const half = HUNDRED_PERCENT / 2n;
  return (scaled + (scaled < 0n ? -half : half)) / HUNDRED_PERCENT;
}

/**
 * " (net USD 1,325.63 if %, USD 1,502.50 if an amount)": a discount's effect both ways,
 * for a line when the operator has not said which the API means (interface.md §6g); "" without one.
 */
export function readingsText(total: number, discount: number | null, currency: Currency): string {
  if (discount === null || Number(discount) === 0 || !Number.isFinite(Number(discount))) return "";
  const items = exact(total);
  const as = (kind: DiscountKind) => formatMoney(netOf(items, discount, kind), currency);
  // An amount larger than the budget leaves it below zero: that reading cannot be the API's.
  const below = netOf(items, discount, "amount") < 0n ? ", below zero: not its reading" : "";
  return ` (net ${as("percent")} if %, ${as("amount")} if an amount${below})`;
}

/** Currency and exact sum of the lines' total_cost (the API sends no budget total), and the net with a DiscountKind. */
export function price(b: Budget, discount?: DiscountKind): PricedBudget {
  let total = 0n;
  for (const line of b.list_items) total += exact(line.total_cost);
  const priced: PricedBudget = { budget: b, currency: currencyOf(b.currency_description), total };
  if (discount !== undefined) priced.net = netOf(total, b.discount, discount);
  return priced;
}

/** YYYY-MM-DD of an API date or timestamp (the day as the API wrote it); other text unchanged. */
export function day(value: string | null): string | null {
  return value !== null && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : value;
}

/** Upstream text in compact and detail views (interface.md §6c): whole only in view "full". */
export const TEXT_MAX = 300;

/** `text` cut at TEXT_MAX characters with "…" (never inside a surrogate pair); null and short text unchanged. */
export function clip<T extends string | null | undefined>(text: T): T {
  if (typeof text !== "string" || text.length <= TEXT_MAX) return text;
  const end = /[\ud800-\udbff]/.test(text[TEXT_MAX - 2]!) ? TEXT_MAX - 2 : TEXT_MAX - 1;
  return `${text.slice(0, end)}…` as T;
}

const currencyFields = (c: Currency) =>
  c.mapped ? { currency: c.code } : { currency: clip(c.code), currency_unmapped: true as const };

/**
 * The third party's code rides on a compact record unseen (not enumerable: never in JSON, copies or
 * equality): its text line shows it with the role, and a list of a hundred stays 3 KB lighter.
 */
const PARTY_CODE = Symbol("third_party_code");
type Carrying = CompactBudget & { [PARTY_CODE]?: string | null };

export function compactBudget({ budget: b, currency, total, net, lineCount }: PricedBudget): CompactBudget {
  const compact: CompactBudget = {
    folio: clip(b.folio),
    wo_folio: clip(b.wo_folio),
    status: b.status,
    status_label: labelOf(BUDGET_STATUS, b.status),
    work_order_status: labelOf(WORK_ORDER_STATUS, b.id_status_work_order),
    third_party: clip(b.third_parties_name),
    cost_center: clip(b.costs_center_description),
    ...currencyFields(currency),
    items_total: toNumber(total, currency),
    discount: b.discount,
    line_count: lineCount ?? b.list_items.length,
    date_create: day(b.date_create)!,
    approval_date: day(b.approval_date),
  };
  if (net !== undefined) compact.net_total = toNumber(net, currency);
  Object.defineProperty(compact, PARTY_CODE, { value: clip(b.third_parties_code) });
  return compact;
}

/** One line of a budget as the detail view shows it. */
export type DetailLine = {
  /** The API's type_resource code (api-spec §2.3 does not give its meaning). */
  type_resource: number;
  description: string | null;
  qty: number;
  unit_cost: number;
  total_cost: number;
};

export type DetailBudget = CompactBudget & {
  note: string | null;
  lines: DetailLine[];
};

/** The compact fields plus the note and the lines; no third-party address, e-mail or phones. */
export function detailBudget(p: PricedBudget): DetailBudget {
  const compact = compactBudget(p);
  return {
    ...compact,
    ...thirdPartyFields(clip(p.budget.third_parties_code)),
    note: p.budget.note === "" ? null : clip(p.budget.note),
    lines: p.budget.list_items.map((l) => ({
      type_resource: l.type_resource,
      description: clip(l.items_log_description ?? l.hrl_description ?? l.stl_description),
      qty: l.qty,
      unit_cost: l.unit_cost,
      total_cost: l.total_cost,
    })),
  };
}

/**
 * The most one full record may take, as JSON and as its text line: one result carries 80,000
 * characters, so one upstream string longer than this is cut (interface.md §9b) and the record says so.
 */
export const FULL_RECORD_MAX = 60_000;

type FullRecord = { folio: string; [field: string]: unknown };

/** `value` with every string longer than `max` cut to it (with "…"); the paths of those cut are added to `cut`. */
function clipDeep(value: unknown, max: number, path: string, cut: string[]): unknown {
  if (typeof value === "string") {
    if (value.length <= max) return value;
    cut.push(path);
    const end = /[\ud800-\udbff]/.test(value[max - 2]!) ? max - 2 : max - 1;
    return `${value.slice(0, end)}…`;
  }
  if (Array.isArray(value)) return value.map((v, i) => clipDeep(v, max, `${path}[${i}]`, cut));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, clipDeep(v, max, path === "" ? k : `${path}.${k}`, cut)]),
  );
}

/** A full record within FULL_RECORD_MAX: whole when it fits, else its longest strings cut, named in `cut_fields`. */
export function fitFullRecord(record: FullRecord): FullRecord {
  const size = (r: unknown) => jsonLine(r).length;
  // Escaping shows a hidden character in at most 6: most records are known to fit without the text.
  if (jsonLength(record) * 6 <= FULL_RECORD_MAX || size(record) <= FULL_RECORD_MAX) return record;
  for (let max = FULL_RECORD_MAX / 2; ; max = Math.floor(max / 2)) {
    const cut: string[] = [];
    const fitted = { ...(clipDeep(record, max, "", cut) as FullRecord), cut_fields: cut };
    if (size(fitted) <= FULL_RECORD_MAX || max <= TEXT_MAX) return fitted;
  }
}

/** Every field the API sent (known and unknown), plus labels, the currency code and the lines' total. */
export function fullBudget(priced: PricedBudget): FullRecord {
  return fitFullRecord(wholeBudget(priced));
}

function wholeBudget({ budget: b, currency, total, net }: PricedBudget): FullRecord {
  return {
    ...b,
    status_label: labelOf(BUDGET_STATUS, b.status),
    work_order_status: labelOf(WORK_ORDER_STATUS, b.id_status_work_order),
    priority_label: labelOf(PRIORITY, b.id_priority),
    ...(currency.mapped
      ? { currency: currency.code }
      : { currency: currency.code, currency_unmapped: true as const }),
    items_total: toNumber(total, currency),
    ...(net === undefined ? {} : { net_total: toNumber(net, currency) }),
  };
}

/** The note of a result whose full records had upstream text cut to fit (interface.md §9b), if any. */
export function cutFieldsNote(records: readonly object[]): Note[] {
  const n = records.filter((r) => Array.isArray((r as { cut_fields?: unknown }).cut_fields)).length;
  return n === 0 ? [] : [NOTES.fieldsCut({ records: n })];
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** One short line per budget for the text rendering; upstream values shown safe (upstream-text.ts). */
export function budgetLine(b: CompactBudget): string {
  const cur = { code: b.currency, mapped: b.currency_unmapped !== true };
  const money = formatMoney(b.items_total, cur);
  const readings = b.net_total === undefined ? readingsText(b.items_total, b.discount, cur) : "";
  const discount =
    b.discount !== null && Number(b.discount) !== 0 ? ` discount ${shown(b.discount)}${readings}` : "";
  const net =
    b.net_total === undefined
      ? ""
      : ` net ${formatMoney(b.net_total, { code: b.currency, mapped: b.currency_unmapped !== true })}`;
  // approval_date is the decision's date: an approval, or a rejection (interface.md §8b).
  const decided = b.approval_date
    ? ` | ${b.status === 2 ? "approved" : "decided"} ${shown(b.approval_date)}`
    : "";
  const party = thirdPartyText(
    b.third_party,
    thirdPartyFields(b.third_party_code ?? (b as Carrying)[PARTY_CODE]),
  );
  return `${shown(b.folio)} WO ${shown(b.wo_folio)} | ${shown(b.status_label)} | ${shown(b.cost_center)} | ${party} | ${money} (${plural(b.line_count, "line")})${discount}${net} | created ${shown(b.date_create)}${decided}`;
}

/** The detail view's text: the compact line, then the note and one indented line per budget line. */
export function detailLines(b: DetailBudget): string[] {
  const cur = { code: b.currency, mapped: b.currency_unmapped !== true };
  return [
    budgetLine(b),
    ...(b.note ? [`  note: ${shown(b.note)}`] : []),
    ...b.lines.map(
      (l) =>
        `  - type ${l.type_resource} ${shown(l.description)}: ${l.qty} x ${formatMoney(l.unit_cost, cur)} = ${formatMoney(l.total_cost, cur)}`,
    ),
  ];
}
