/**
 * The window of a budget query, resolved once at "now" (interface.md §6b, §6d, §6g): `since` as an
 * ISO 8601 date or date-time, a duration back from now (P90D, P3M, P1Y, PT12H), a calendar word
 * (last_month: calendar.ts) or "all"; `until` as a date, a calendar word or "now"; a calendar word
 * alone is its whole period. The result is what the API is sent and what every result states: two
 * UTC instants (null = no bound), the date type, whether it is the default, and today's date, in
 * words that say whose date it is (the API's creation_date is the work order's). `budget_created`,
 * the budget's own date, is not the API's: the API is asked for the work orders created from a
 * lookback before `since`, and the review keeps the budgets created in the window (basis.ts).
 * Errors name today's date, the accepted forms and, when comparing with a default, its resolved value.
 */
import { UserInputError } from "../errors/api-error.js";
import { CALENDAR_WORDS, type CalendarWord, calendarPeriod, calendarWord } from "./calendar.js";
import { toApiDate } from "./dates.js";

const DAY = 86_400_000;
const DEFAULT_DAYS = 30;
/**
 * Sent for an open bound (api-spec §4.4 has none: an absent since means 30 days ago). Lookups
 * reach a year ahead, for planned final dates.
 */
const OPEN_SINCE = Date.UTC(1970, 0, 1);
const LOOKUP_AHEAD = 366 * DAY;

/** The API's four date types, then the budget's own creation (done by the server). */
export const TYPE_DATES = [
  "creation_date",
  "initial_date",
  "final_date",
  "approval_date",
  "budget_created",
] as const;
export type TypeDate = (typeof TYPE_DATES)[number];
export type ApiTypeDate = Exclude<TypeDate, "budget_created">;

/** Days of work orders read before `since` for budget_created, unless MMS_BUDGET_LOOKBACK_DAYS says. */
export const DEFAULT_LOOKBACK_DAYS = 365;

/** Whose date each type_date is, in the words every result uses. */
const WHOSE: Record<TypeDate, string> = {
  creation_date: "work orders created",
  initial_date: "work-order tasks starting (initial_date)",
  final_date: "work-order tasks ending (final_date)",
  approval_date: "budgets approved",
  budget_created: "budgets created",
};

/** The window as results state it; null is no bound ("every date"). A type alias: it fits a loose output schema. */
export type Period = {
  since: string | null;
  until: string | null;
  type_date: TypeDate;
  /** True when neither since nor until was given: the API's last 30 days. */
  default: boolean;
  /** budget_created: the work orders read (creation_date, from lookback_days before since), complete within it. */
  work_orders_since?: string | null;
  lookback_days?: number;
};

export interface ResolvedPeriod {
  period: Period;
  /** Today's date in UTC (YYYY-MM-DD). */
  today: string;
  /** What the API is sent (budget_created: the work orders' window, on creation_date). */
  api: { since: string; until: string; type_date: ApiTypeDate };
  /** The window in words, for the first line of a result. */
  text: string;
}

export interface PeriodInput {
  since?: string | undefined;
  until?: string | undefined;
  type_date?: TypeDate | undefined;
  /** "folio 104", "work order 4001": a lookup, which is not limited by the default period. */
  lookup?: string | undefined;
  /** budget_created: days of work orders read before since (default DEFAULT_LOOKBACK_DAYS). */
  lookbackDays?: number | undefined;
}

/** `2026-11-26T08:30:12Z`: an instant to the second. */
export const isoInstant = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

const pad = (n: number) => String(n).padStart(2, "0");
const apiForm = (ms: number) => {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}+00`;
};

const WORDS = `a calendar word (${CALENDAR_WORDS.join(", ")}; UTC, both ends included)`;
const SINCE_FORMS = `an ISO 8601 date or date-time (2026-08-28, 2026-08-28T08:00:00-03:00; UTC without offset), a duration back from now (P90D, P3M, P1Y, PT12H), ${WORDS} or "all" (every date)`;
const UNTIL_FORMS = `an ISO 8601 date or date-time (2026-08-28, 2026-08-28T18:00:00Z), ${WORDS} or "now" (the default)`;

const DURATION =
  /^P(?:(\d{1,6})Y)?(?:(\d{1,6})M)?(?:(\d{1,6})W)?(?:(\d{1,6})D)?(?:T(?:(\d{1,6})H)?(?:(\d{1,6})M)?(?:(\d{1,6})S)?)?$/i;

/** `now` minus an ISO 8601 duration (years and months by the calendar, in UTC), or undefined when `raw` is none. */
export function minusDuration(raw: string, now: number): number | undefined {
  const m = DURATION.exec(raw);
  if (!m || raw.length < 3 || /T$/i.test(raw)) return undefined;
  const [y, mo, w, d, h, mi, s] = m.slice(1).map((v) => Number(v ?? 0)) as number[];
  const at = new Date(now);
  // Calendar months: 31 May - P3M is 28 (or 29) February, not 3 March.
  const months = at.getUTCFullYear() * 12 + at.getUTCMonth() - (y! * 12 + mo!);
  const year = Math.floor(months / 12);
  const month = months - year * 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const shifted = new Date(now);
  shifted.setUTCFullYear(year, month, Math.min(at.getUTCDate(), lastDay));
  return shifted.getTime() - ((w! * 7 + d!) * DAY + (h! * 3600 + mi! * 60 + s!) * 1000);
}

function badValue(field: "since" | "until", raw: string, why: string, now: number): UserInputError {
  return new UserInputError(
    `${field}: "${raw}" ${why}. Today is ${isoInstant(now).slice(0, 10)} (now ${isoInstant(now)}). ${field} takes ${field === "since" ? SINCE_FORMS : UNTIL_FORMS}.`,
    { field, value: raw, today: isoInstant(now).slice(0, 10) },
  );
}

/** An explicit date through the API converter, with today's date and the forms added to its error. */
function explicit(field: "since" | "until", raw: string, now: number): { api: string; at: number } {
  try {
    const { api, instant } = toApiDate(raw, field, field === "since" ? "start" : "end");
    return { api, at: instant };
  } catch (error) {
    if (!(error instanceof UserInputError)) throw error;
    const why = /is not an ISO 8601/.test(error.message)
      ? `is not ${field === "since" ? 'a date, a duration, a calendar word or "all"' : 'a date, a calendar word or "now"'}`
      : error.message.replace(`${field}: "${raw}" `, "");
    throw badValue(field, raw, why, now);
  }
}

/** One end of the window: its instant (null: open), what the API is sent, and how a message says it. */
export type Bound = { at: number | null; api: string; said: string };

/** Resolve since/until/type_date at `nowDate` (to the second). */
export function resolvePeriod(input: PeriodInput, nowDate: Date): ResolvedPeriod {
  const now = Math.floor(nowDate.getTime() / 1000) * 1000;
  const typeDate = input.type_date ?? "creation_date";
  const askedSince = input.since?.trim();
  const askedUntil = input.until?.trim();
  const lookup = input.lookup !== undefined;
  // A calendar word alone is its whole period: since last_month runs to last_month's end.
  const rawSince = askedSince ?? (askedUntil && calendarWord(askedUntil) ? askedUntil : undefined);
  const rawUntil = askedUntil ?? (askedSince && calendarWord(askedSince) ? askedSince : undefined);

  const since = sinceBound(rawSince, lookup, now);
  const until = untilBound(rawUntil, lookup && askedSince === undefined, now);
  checkOrder(since, until, rawSince, rawUntil, now);

  const period: Period = {
    since: since.at === null ? null : isoInstant(since.at),
    until: until.at === null ? null : isoInstant(until.at),
    type_date: typeDate,
    default: askedSince === undefined && askedUntil === undefined && !lookup,
  };
  const today = isoInstant(now).slice(0, 10);
  const api = { since: since.api, until: until.api, type_date: "creation_date" as ApiTypeDate };
  if (typeDate !== "budget_created") api.type_date = typeDate;
  else if (since.at !== null) {
    // A budget is created on or after its work order: its work order was created in [since - lookback, until].
    const days = input.lookbackDays ?? DEFAULT_LOOKBACK_DAYS;
    const from = Math.max(OPEN_SINCE, since.at - days * DAY);
    api.since = apiForm(from);
    Object.assign(period, { work_orders_since: isoInstant(from), lookback_days: days });
  }
  return {
    period,
    today,
    api,
    text: windowText(period, { ...input, since: rawSince, until: rawUntil }, now),
  };
}

/** The since bound: the default (30 days ago, or open for a lookup), "all", a duration back from now, a calendar word's start, or a date. */
export function sinceBound(rawSince: string | undefined, lookup: boolean, now: number): Bound {
  let since: Bound;
  const word = rawSince === undefined ? undefined : calendarWord(rawSince);
  if (word !== undefined) {
    since = { at: calendarPeriod(word, now).start, api: "", said: ` (${word})` };
  } else if (rawSince === undefined) {
    since = lookup
      ? { at: null, api: apiForm(OPEN_SINCE), said: "" }
      : { at: now - DEFAULT_DAYS * DAY, api: "", said: `, ${DEFAULT_DAYS} days ago by default,` };
  } else if (rawSince.toLowerCase() === "all") {
    since = { at: null, api: apiForm(OPEN_SINCE), said: "" };
  } else if (/^P/i.test(rawSince)) {
    const at = minusDuration(rawSince, now);
    if (at === undefined)
      throw badValue("since", rawSince, "is not an ISO 8601 duration of whole numbers", now);
    if (at < OPEN_SINCE)
      throw badValue("since", rawSince, 'reaches back before 1970: use "all" for every date', now);
    since = { at, api: "", said: ` (${rawSince.toUpperCase()})` };
  } else {
    const { api, at } = explicit("since", rawSince, now);
    since = { at, api, said: "" };
  }
  if (since.at !== null && since.api === "") since.api = apiForm(since.at);
  return since;
}

/** The until bound: now (the default), open a year ahead for a lookup with no bound given, a calendar word's end (its last second), or a date. */
export function untilBound(rawUntil: string | undefined, openLookup: boolean, now: number): Bound {
  const word = rawUntil === undefined ? undefined : calendarWord(rawUntil);
  if (word !== undefined) {
    const { end } = calendarPeriod(word, now);
    return { at: end, api: apiForm(end), said: ` (${word})` };
  }
  if (rawUntil === undefined || rawUntil.toLowerCase() === "now") {
    return openLookup && rawUntil === undefined
      ? { at: null, api: apiForm(now + LOOKUP_AHEAD), said: "" }
      : { at: now, api: apiForm(now), said: ", now" };
  }
  const { api, at } = explicit("until", rawUntil, now);
  return { at, api, said: "" };
}

/** Throws when since is after until, with the fix that fits what was given. */
export function checkOrder(
  since: Bound,
  until: Bound,
  rawSince: string | undefined,
  rawUntil: string | undefined,
  now: number,
): void {
  if (since.at === null || until.at === null || since.at <= until.at) return;
  const fix =
    rawUntil === undefined || rawUntil.toLowerCase() === "now"
      ? `since must not be in the future (today is ${isoInstant(now).slice(0, 10)})`
      : rawSince === undefined
        ? "give a since before until (since defaults to 30 days ago)"
        : "swap them or widen the period";
  throw new UserInputError(
    `since${since.said} ${isoInstant(since.at)} is after until${until.said} ${isoInstant(until.at)}: ${fix}`,
    { since: isoInstant(since.at), until: isoInstant(until.at) },
  );
}

/**
 * "work orders created 2026-10-27T08:30:12Z to 2026-11-26T08:30:12Z (the default: last 30 days; the
 * work order's date; the budget's own: type_date budget_created); today 2026-11-26".
 */
function windowText(p: Period, input: PeriodInput, now: number): string {
  const today = isoInstant(now).slice(0, 10);
  if (p.since === null && p.until === null) return `every date (lookup by ${input.lookup}); today ${today}`;
  const from = p.since === null ? "every date" : p.since;
  const how = [
    ...(p.default
      ? ["the default: last 30 days"]
      : input.since !== undefined && /^P/i.test(input.since.trim())
        ? [`${input.since.trim().toUpperCase()} back from now`]
        : []),
    ...calendarText(input, now),
    ...(p.type_date === "creation_date"
      ? ["the work order's date; the budget's own: type_date budget_created"]
      : []),
  ];
  const said = `${WHOSE[p.type_date]} ${from} to ${p.until ?? "every date"}${how.length > 0 ? ` (${how.join("; ")})` : ""}`;
  return `${said}${lookbackText(p)}; today ${today}`;
}

/**
 * The calendar words of the window: "last_month: November 2026 in UTC, end included"; "since
 * this_quarter: Q4 2026 in UTC" up to a date or now; "since ..., until ...: ... in UTC, end included".
 */
function calendarText(input: PeriodInput, now: number): string[] {
  const since = input.since === undefined ? undefined : calendarWord(input.since);
  const until = input.until === undefined ? undefined : calendarWord(input.until);
  if (since === undefined && until === undefined) return [];
  const named = (w: CalendarWord) => `${w}: ${calendarPeriod(w, now).name}`;
  if (since === until) return [`${named(since!)} in UTC, end included`];
  if (until === undefined) return [`since ${named(since!)} in UTC`];
  return [
    `${since === undefined ? "" : `since ${named(since)}, `}until ${named(until)} in UTC, end included`,
  ];
}

/** budget_created: which work orders were read, and within what the result is complete. */
function lookbackText(p: Period): string {
  if (p.lookback_days === undefined) return "";
  return `, from the work orders created since ${p.work_orders_since} (MMS_BUDGET_LOOKBACK_DAYS=${p.lookback_days}; complete for budgets created within ${p.lookback_days} days of their work order)`;
}
