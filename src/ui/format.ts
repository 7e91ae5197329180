/**
 * Numbers, money, dates and times in the host's locale (hostContext.locale, else the browser's) and
 * time zone (hostContext.timeZone, else the browser's). Money always carries its ISO 4217 code,
 * never a symbol alone ("$" is three currencies in our data); an amount of a currency with no ISO
 * code is a plain number, its name shown quoted on a line of its own (render.ts), never beside the
 * amount where a name like "USD 1,500,000.00" would read as one. Instants are shown as people write
 * them (interface.md §8b): date, hour and minute in the host's zone, the zone named once by the view.
 */

export interface Format {
  readonly locale: string;
  /** The IANA zone every instant is shown in. */
  readonly timeZone: string;
  /** "USD 1,234.50" for an ISO code; the plain number "1,234.50" for an unmapped currency. */
  money(amount: number, currency: string, mapped: boolean): string;
  count(n: number): string;
  /** "2026-11" → "Nov 2026". */
  month(ym: string): string;
  /** A calendar date "2026-11-26" → "Nov 26, 2026" (no zone: a date is the same day everywhere). */
  date(ymd: string): string;
  /**
   * An ISO instant in the host's zone: "Nov 26, 2026, 7:42 AM"; a plain date ("2026-11-26") as a date.
   * `sameDayAs` (epoch ms): the hour and minute alone when the instant falls on that day.
   */
  instant(iso: string, sameDayAs?: number): string;
  /** The zone's name as people say it: "Eastern Time", "hora de Chile", "UTC". */
  zoneName(): string;
  /** The host's date at `now` (epoch ms) in its zone, as `date` writes it: "today" as the host's clock reads it. */
  today(now: number): string;
}

/** The locale if the platform knows it, else the browser's, else English. */
function usable(locale: string | undefined): string {
  // navigator: the browser's; absent where the catalogue's unit tests run (Node 20).
  const browser = (globalThis as { navigator?: { language?: string } }).navigator?.language;
  for (const candidate of [locale, browser, "en"]) {
    if (!candidate) continue;
    try {
      if (Intl.NumberFormat.supportedLocalesOf(candidate).length > 0) return candidate;
    } catch {
      // A malformed tag: try the next.
    }
  }
  return "en";
}

/** The zone if the platform knows it, else the browser's, else UTC. */
function usableZone(timeZone: string | undefined): string {
  for (const candidate of [timeZone, Intl.DateTimeFormat().resolvedOptions().timeZone, "UTC"]) {
    if (!candidate) continue;
    try {
      return new Intl.DateTimeFormat("en", { timeZone: candidate }).resolvedOptions().timeZone;
    } catch {
      // Not a zone this browser knows: try the next.
    }
  }
  return "UTC";
}

const PLAIN_DATE = /^\d{4}-\d{2}-\d{2}$/;

export function createFormat(requested: string | undefined, requestedZone?: string): Format {
  const locale = usable(requested);
  const timeZone = usableZone(requestedZone);
  const moneyFormats = new Map<string, Intl.NumberFormat>();
  const plain = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 4 });
  const counts = new Intl.NumberFormat(locale);
  const months = new Intl.DateTimeFormat(locale, { year: "numeric", month: "short", timeZone: "UTC" });
  const days = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" });
  const dayInZone = new Intl.DateTimeFormat("en-CA", { timeZone }); // YYYY-MM-DD, to compare days
  const times = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone });
  const clock = new Intl.DateTimeFormat(locale, { timeStyle: "short", timeZone });
  const date = (ymd: string) => {
    const ms = Date.parse(`${ymd}T00:00:00Z`);
    return PLAIN_DATE.test(ymd) && !Number.isNaN(ms) ? days.format(ms) : ymd;
  };
  return {
    locale,
    timeZone,
    money(amount, currency, mapped) {
      if (!mapped) return plain.format(amount);
      let f = moneyFormats.get(currency);
      if (!f) {
        try {
          f = new Intl.NumberFormat(locale, { style: "currency", currency, currencyDisplay: "code" });
        } catch {
          return `${plain.format(amount)} ${currency}`; // not a well-formed ISO code after all
        }
        moneyFormats.set(currency, f);
      }
      return f.format(amount);
    },
    count: (n) => counts.format(n),
    month(ym) {
      const ms = Date.parse(`${ym}-01T00:00:00Z`);
      return /^\d{4}-\d{2}$/.test(ym) && !Number.isNaN(ms) ? months.format(ms) : ym;
    },
    date,
    instant(iso, sameDayAs) {
      if (PLAIN_DATE.test(iso)) return date(iso);
      const ms = Date.parse(iso);
      if (Number.isNaN(ms)) return iso;
      if (sameDayAs !== undefined && dayInZone.format(ms) === dayInZone.format(sameDayAs))
        return clock.format(ms);
      return times.format(ms);
    },
    zoneName: () => zoneNameOf(locale, timeZone),
    today: (now) => date(dayInZone.format(now)),
  };
}

/** "Eastern Time", "hora de Chile"; UTC (and its aliases) as "UTC", which every reader knows. */
function zoneNameOf(locale: string, timeZone: string): string {
  if (/^(Etc\/)?(UTC|GMT|UCT|Zulu|Universal)([+-]?0)?$/i.test(timeZone)) return "UTC";
  const part = (style: "longGeneric" | "shortOffset") =>
    new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: style })
      .formatToParts(Date.now())
      .find((p) => p.type === "timeZoneName")?.value;
  return part("longGeneric") ?? part("shortOffset") ?? timeZone;
}
