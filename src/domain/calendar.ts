/**
 * Calendar words for `since`/`until` (interface.md §6g): a whole named period (yesterday, this or last
 * month, quarter or year) resolved at "now" in UTC, the zone of every result's "today". Both ends are
 * included: the first second of its first day to the last second (23:59:59) of its last, as for a plain
 * date. "last calendar month", "Last-Month" and the like read as `last_month`.
 */

export const CALENDAR_WORDS = [
  "today",
  "yesterday",
  "this_month",
  "last_month",
  "this_quarter",
  "last_quarter",
  "this_year",
  "last_year",
] as const;
export type CalendarWord = (typeof CALENDAR_WORDS)[number];

/** A calendar word's period: its first and last second (epoch ms) and its name ("November 2026"). */
export interface CalendarPeriod {
  word: CalendarWord;
  start: number;
  end: number;
  name: string;
}

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** The word `raw` names, or undefined: case, spaces, hyphens and "calendar" do not matter. */
export function calendarWord(raw: string): CalendarWord | undefined {
  const word = raw
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, "_")
    .replace(/_calendar_/, "_");
  return (CALENDAR_WORDS as readonly string[]).includes(word) ? (word as CalendarWord) : undefined;
}

/** The start (UTC) of the period of `unit` holding `at`, `back` periods earlier. */
function startOf(unit: "day" | "month" | "quarter" | "year", at: Date, back: number): number {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  // Date.UTC carries a negative month or day into the year or month before.
  if (unit === "day") return Date.UTC(y, m, at.getUTCDate() - back);
  if (unit === "month") return Date.UTC(y, m - back, 1);
  if (unit === "quarter") return Date.UTC(y, m - (m % 3) - 3 * back, 1);
  return Date.UTC(y - back, 0, 1);
}

/** The period `word` names at `now` (epoch ms), in UTC. */
export function calendarPeriod(word: CalendarWord, now: number): CalendarPeriod {
  const [which, unit] =
    word === "today" ? ["this", "day"] : word === "yesterday" ? ["last", "day"] : word.split("_");
  const kind = unit as "day" | "month" | "quarter" | "year";
  const back = which === "last" ? 1 : 0;
  const at = new Date(now);
  const start = startOf(kind, at, back);
  const end = startOf(kind, at, back - 1) - 1000;
  const first = new Date(start);
  const year = first.getUTCFullYear();
  const name =
    kind === "day"
      ? first.toISOString().slice(0, 10)
      : kind === "month"
        ? `${MONTHS[first.getUTCMonth()]} ${year}`
        : kind === "quarter"
          ? `Q${first.getUTCMonth() / 3 + 1} ${year}`
          : String(year);
  return { word, start, end, name };
}
