/**
 * Numbers, money and dates in the host's locale (hostContext.locale, else the browser's). Money
 * always carries its ISO 4217 code, never a symbol alone ("$" is three currencies in our data); an
 * amount of a currency with no ISO code is a plain number, its name shown quoted on a line of its own
 * (render.ts), never beside the amount where a name like "USD 1,500,000.00" would read as one.
 */

export interface Format {
  readonly locale: string;
  /** "USD 1,234.50" for an ISO code; the plain number "1,234.50" for an unmapped currency. */
  money(amount: number, currency: string, mapped: boolean): string;
  count(n: number): string;
  /** "2026-11" → "Nov 2026". */
  month(ym: string): string;
  /** An ISO instant or date in UTC: "26 Nov 2026", or "26 Nov 2026, 08:30" when it is not midnight. */
  instant(iso: string): string;
}

/** The locale if the platform knows it, else the browser's, else English. */
function usable(locale: string | undefined): string {
  for (const candidate of [locale, navigator.language, "en"]) {
    if (!candidate) continue;
    try {
      if (Intl.NumberFormat.supportedLocalesOf(candidate).length > 0) return candidate;
    } catch {
      // A malformed tag: try the next.
    }
  }
  return "en";
}

export function createFormat(requested: string | undefined): Format {
  const locale = usable(requested);
  const moneyFormats = new Map<string, Intl.NumberFormat>();
  const plain = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 4 });
  const counts = new Intl.NumberFormat(locale);
  const months = new Intl.DateTimeFormat(locale, { year: "numeric", month: "short", timeZone: "UTC" });
  const days = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" });
  const times = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
  return {
    locale,
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
    instant(iso) {
      const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(iso) ? `${iso}T00:00:00Z` : iso);
      if (Number.isNaN(ms)) return iso;
      return ms % 86_400_000 === 0 ? days.format(ms) : times.format(ms);
    },
  };
}
