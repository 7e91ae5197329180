/**
 * The view's words in the host's language (interface.md §6d): English, Spanish and Portuguese,
 * English for any other language. Each language is one module giving every key of `Messages`, so
 * a missing translation fails typecheck. A message is a whole phrase per language (a function
 * when it holds figures), never English fragments glued together; counts choose their form with
 * Intl.PluralRules. Numbers, money and dates come in already formatted (format.ts).
 */
import type { AgeBucket, GroupChoice, GroupKey, NoteCode, PeriodChoice, StatusChoice } from "../contract.js";

/** A count's forms by plural category; `#` is the count in the locale's digits; `=0` overrides zero. */
export interface Plural {
  "=0"?: string;
  zero?: string;
  one?: string;
  two?: string;
  few?: string;
  many?: string;
  other: string;
}

/** What a language module gets to write its messages: counts in the locale's digits and plural forms. */
export interface Say {
  /** 1234 → "1,234" (en), "1.234" (es, pt). */
  num(n: number): string;
  /** The form of `forms` that fits `n`, with `#` as the number. */
  count(n: number, forms: Plural): string;
}

/** The date a window filters on, by the API's `type_date` name (plus the server's `budget_created`). */
export type DateBasis = "creation_date" | "budget_created" | "initial_date" | "final_date" | "approval_date";
/** The server's own words for a group's value (not upstream text), which the view translates. */
export type StatusValue = "pending" | "approved" | "rejected";
/** The server's status labels; "rejected/cancelled" is an older server's word for "rejected". */
export type StatusLabel = "pending approval" | "approved" | "rejected" | "rejected/cancelled";
export type WorkOrderStatus = "in process" | "in review" | "finished" | "cancelled";
/** The call's filters the head names, by argument. */
export type FilterKey = "currency" | "cost_center" | "third_party" | "id" | "wo_folio";

/**
 * A server note in words (interface.md §8b), from its params: `p` as shown (numbers in the locale's
 * digits, dates formatted, upstream text in place), `v` as sent (for plural forms and choices). A
 * param the server did not send makes the view fall back to the note's English text.
 */
export type NoteMessage = (
  p: Readonly<Record<string, string>>,
  v: Readonly<Record<string, string | number>>,
) => string;

export interface Messages {
  /** The page's title and heading. */
  title: string;
  waiting: string;
  controls: { legend: string; status: string; period: string; group: string; update: string };
  statusChoices: Record<StatusChoice, string>;
  periodChoices: Record<PeriodChoice, string>;
  groupChoices: Record<GroupChoice, string>;
  /** A group key as a column head ("Cost center") and inside a phrase ("by cost center"). */
  keyHead: Record<GroupKey, string>;
  keyPhrase: Record<GroupKey, string>;
  values: {
    status: Record<StatusValue, string>;
    statusLabel: Record<StatusLabel, string>;
    workOrderStatus: Record<WorkOrderStatus, string>;
    age: Record<AgeBucket, string>;
  };
  dateBasis: Record<DateBasis, string>;
  window: {
    line(span: string): string;
    span(since: string, until: string): string;
    openStart: string;
    openEnd: string;
    everyDate: string;
    notStated: string;
    basis(basis: string): string;
    defaultPeriod: string;
    today(date: string): string;
  };
  /** "Filters:" before the call's filters. */
  filters: string;
  filter: Record<FilterKey, string>;
  reviewCounts(scanned: number, matched: number): string;
  listCounts(returned: number, total: number): string;
  scanned(n: number): string;
  complete: string;
  partial: string;
  sandbox: string;
  partialCapped: string;
  partialList(returned: number, total: number, more: boolean): string;
  partialResumable: string;
  /** Partial for a reason the result's notes give (e.g. only the largest groups kept). */
  partialNotes: string;
  /**
   * The snapshot line: when the server read the budgets, in the host's zone ("10:42 AM" that day,
   * else a date and time; `sameDay` says which) and how long ago.
   */
  asOf(time: string, seconds: number, sameDay: boolean): string;
  readAgain: string;
  continueReview: string;
  noMatch: string;
  noBudget: string;
  /** What the amount is (the API's items_total), under the tables. */
  footnote: string;
  /** The amount's column head, and the line under it: words, never the field name. */
  amountHead: string;
  amountDetail: string;
  /** A bound on the amount in the call's filters ("amount ≥ 100"). */
  bound: Record<"items_total" | "net_total", string>;
  notes: string;
  /** The server's notes by code. */
  note: Record<NoteCode, NoteMessage>;
  totalsTitle: string;
  /** An unmapped currency: the line under its quoted name. */
  noIsoCode: string;
  budgets(n: number): string;
  oldestPending(days: number): string;
  none: string;
  chartsTitle(keyPhrase: string): string;
  chartCaption(keyPhrase: string): string;
  ageTitle: string;
  ageCaption: string;
  budgetsHead: string;
  bar: string;
  showAll(rows: number): string;
  showFirst(rows: number): string;
  largestTitle: string;
  /** A currency's ranking: `shown` budgets of the currency's `matched` (when the result says), their `total`. */
  largestCaption(shown: number, matched: number | undefined, total: string): string;
  recordHeads: { folio: string; workOrder: string; thirdParty: string; status: string };
  /** Quotation marks around upstream text that stands alone (an unmapped currency's name). */
  quotes: readonly [open: string, close: string];
  notABudgetResult: string;
  failed: string;
  noExplanation: string;
  updating: string;
  updated: string;
  updateFailed: string;
  cancelled(reason: string | undefined): string;
  cannotRerun: string;
  cannotConnect(reason: string): string;
  /** What changed since an earlier review (compare_to, interface.md §6e); `days` is its age. */
  since: {
    title(when: string): string;
    added(n: number, days: number): string;
    approved(n: number, days: number): string;
    rejected(n: number, days: number): string;
    gone(n: number, days: number): string;
    changed(n: number): string;
    removed(n: number, days: number): string;
    unchanged(n: number): string;
    /** Budgets no earlier read covered (§6f): neither new nor unchanged. */
    notCompared(n: number): string;
    partial: string;
  };
}

/** A language module: its messages, given the locale's numbers and plural rules. */
export type Catalogue = (say: Say) => Messages;

export type Language = "en" | "es" | "pt";

/** The catalogue's language for a BCP 47 tag: es-CL, es-MX → es; pt, pt-BR, pt-PT → pt; anything else → en. */
export function languageOf(locale: string | undefined): Language {
  const primary = /^([a-z]{2,3})(?:[-_]|$)/i.exec(locale?.trim() ?? "")?.[1]?.toLowerCase();
  return primary === "es" || primary === "pt" ? primary : "en";
}

/** A snapshot's age in the unit a person reads best: seconds under two minutes, then minutes, then hours. */
export function ageUnits(seconds: number): { n: number; unit: "s" | "min" | "h" } {
  if (seconds < 120) return { n: seconds, unit: "s" };
  if (seconds < 7200) return { n: Math.floor(seconds / 60), unit: "min" };
  return { n: Math.floor(seconds / 3600), unit: "h" };
}

/** A snapshot's age in whole seconds at `now`; a host clock a little behind the server's reads as 0, never the future. */
export function snapshotSeconds(asOf: string, now: number): number {
  return Math.max(0, Math.floor((now - Date.parse(asOf)) / 1000));
}

export function createSay(locale: string): Say {
  const numbers = new Intl.NumberFormat(locale);
  const rules = new Intl.PluralRules(locale);
  return {
    num: (n) => numbers.format(n),
    count(n, forms) {
      const form = (n === 0 ? forms["=0"] : undefined) ?? forms[rules.select(n)] ?? forms.other;
      return form.replaceAll("#", numbers.format(n));
    },
  };
}

/** Whether an earlier review `days` old reads as "yesterday" (between 12 and 36 hours). */
export const isYesterday = (days: number) => days >= 0.5 && days < 1.5;
