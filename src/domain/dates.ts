/**
 * ISO 8601 dates from agents → the API's `YYYY-MM-DDTHH:MM:SS±HH` (api-spec §4.4,
 * upstream-notes "Dates"). The API offset has hours only: an offset with minutes
 * (+05:30) is converted to UTC; no offset, or a plain date, is read as UTC.
 */
import { UserInputError } from "../errors/api-error.js";

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

const pad = (n: number) => String(n).padStart(2, "0");

function formatUtc(d: Date): string {
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}+00`;
}

function checkCalendar(y: number, m: number, d: number, field: string, raw: string): void {
  const probe = new Date(Date.UTC(y, m - 1, d));
  if (probe.getUTCFullYear() !== y || probe.getUTCMonth() !== m - 1 || probe.getUTCDate() !== d) {
    throw new UserInputError(`${field}: "${raw}" is not a real calendar date`, { field, value: raw });
  }
}

/**
 * Convert one ISO 8601 value. `edge` picks the time for a plain date: the start of the day
 * for `since`, its last second for `until`. Returns the API form and the instant it denotes.
 */
export function toApiDate(
  raw: string,
  field: string,
  edge: "start" | "end",
): { api: string; instant: number } {
  const value = raw.trim();
  const dateOnly = DATE_ONLY.exec(value);
  if (dateOnly) {
    const [y, m, d] = [Number(dateOnly[1]), Number(dateOnly[2]), Number(dateOnly[3])];
    checkCalendar(y, m, d, field, raw);
    const time = edge === "start" ? "00:00:00" : "23:59:59";
    return {
      api: `${dateOnly[1]}-${dateOnly[2]}-${dateOnly[3]}T${time}+00`,
      instant: Date.parse(`${value}T${time}Z`),
    };
  }
  const dt = DATE_TIME.exec(value);
  if (!dt) {
    throw new UserInputError(
      `${field}: "${raw}" is not an ISO 8601 date or date-time (expected e.g. 2024-05-01 or 2024-05-01T08:00:00-03:00)`,
      { field, value: raw },
    );
  }
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(dt[i] ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  checkCalendar(y, mo, d, field, raw);
  if (h > 23 || mi > 59 || s > 59)
    throw new UserInputError(`${field}: "${raw}" has an invalid time of day`, { field, value: raw });
  const offset = (dt[7] ?? "Z").toUpperCase();
  if (offset === "Z") {
    const instant = Date.UTC(y, mo - 1, d, h, mi, s);
    return { api: formatUtc(new Date(instant)), instant };
  }
  const sign = offset[0] === "-" ? -1 : 1;
  const digits = offset.slice(1).replace(":", "");
  const offH = Number(digits.slice(0, 2));
  const offM = Number(digits.slice(2) || "0");
  if (offH > 14 || offM > 59)
    throw new UserInputError(`${field}: "${raw}" has an invalid UTC offset`, { field, value: raw });
  const instant = Date.UTC(y, mo - 1, d, h, mi, s) - sign * (offH * 60 + offM) * 60_000;
  if (offM !== 0) return { api: formatUtc(new Date(instant)), instant };
  const local = `${dt[1]}-${dt[2]}-${dt[3]}T${pad(h)}:${pad(mi)}:${pad(s)}`;
  return { api: `${local}${sign < 0 ? "-" : "+"}${pad(offH)}`, instant };
}

/** Convert since/until and check their order. */
export function toApiPeriod(
  since: string | undefined,
  until: string | undefined,
): { since: string | undefined; until: string | undefined } {
  const s = since === undefined ? undefined : toApiDate(since, "since", "start");
  const u = until === undefined ? undefined : toApiDate(until, "until", "end");
  if (s && u && s.instant > u.instant) {
    throw new UserInputError(`since (${since}) is after until (${until}); swap them or widen the period`, {
      since,
      until,
    });
  }
  return { since: s?.api, until: u?.api };
}
