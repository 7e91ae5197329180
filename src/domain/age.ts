/**
 * How long ago a date was, in whole UTC calendar days, and its wording for agents ("ran 6
 * days ago"). Dates are compared as UTC calendar days, so a run at 23:59 yesterday is
 * "yesterday" whatever the hour now.
 */

const DAY_MS = 86_400_000;

function utcDay(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/**
 * Whole UTC days from `when` (`YYYY-MM-DD` or an ISO date-time) to `now`; negative when `when`
 * is in the future, undefined when it is not a date.
 */
export function daysSince(when: string, now: Date): number | undefined {
  const plain = /^\d{4}-\d{2}-\d{2}$/.test(when) ? `${when}T00:00:00Z` : when;
  const ms = Date.parse(plain);
  if (Number.isNaN(ms)) return undefined;
  return utcDay(now.getTime()) - utcDay(ms);
}

/** "ran today", "ran yesterday", "ran 6 days ago", "dated 2 days ahead of today". */
export function ranAgo(days: number): string {
  if (days === 0) return "ran today";
  if (days === 1) return "ran yesterday";
  if (days > 1) return `ran ${days} days ago`;
  return `dated ${-days} day${days === -1 ? "" : "s"} ahead of today (UTC)`;
}
