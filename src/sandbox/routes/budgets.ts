/**
 * GET /api/wo_budget, /api/wo_budget/{id} and ?id= (api-spec §4.4). Filters: id (folio) or
 * wo_folio, status, since/until over one of four dates (type_date), start/limit. `total` is the
 * number of matches, not the page length. Malformed parameters are 422, never 500.
 */
import { errorItem, ok, type Reply } from "../responses.js";
import type { StoredBudget } from "../state.js";
import { type Ctx, type Env, queryInt } from "./common.js";

const DAY = 86_400_000;
const MAX_LIMIT = 100;
const TYPE_DATES = ["creation_date", "initial_date", "final_date", "approval_date"] as const;
type TypeDate = (typeof TYPE_DATES)[number];

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:([+-])(\d{2})(?::?(\d{2}))?|Z)$/;

/**
 * Parse `YYYY-MM-DDTHH:MM:SS±HH` (also `±HH:MM`, `±HHMM` and `Z`) to epoch ms. Returns an
 * English error text when malformed.
 */
export function parseApiDate(name: string, raw: string): number | string {
  const m = DATE_RE.exec(raw);
  const expected = `${name} must look like 2024-01-31T23:59:59-03 (YYYY-MM-DDTHH:MM:SS followed by a UTC offset)`;
  if (!m) {
    // An unencoded "+" in a query string arrives as a space (upstream-notes "Dates").
    if (/T\d{2}:\d{2}:\d{2} \d{2}/.test(raw)) {
      return `${expected}; the '+' of a positive offset must be percent-encoded as %2B`;
    }
    return expected;
  }
  const [, y, mo, d, h, mi, s, sign, oh, om] = m;
  const local = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const check = new Date(local);
  if (
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  ) {
    return `${name} is not a valid date-time: ${raw}`;
  }
  if (sign === undefined) return local;
  if (Number(oh) > 14 || Number(om ?? 0) > 59) return `${name} has an invalid UTC offset: ${raw}`;
  const offsetMs = (Number(oh) * 60 + Number(om ?? 0)) * 60_000 * (sign === "+" ? 1 : -1);
  return local - offsetMs;
}

function sanitizeFolio(value: string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  const v = value.trim();
  return v === "" ? undefined : v;
}

export function listBudgets(env: Env) {
  return (ctx: Ctx): Reply => {
    const q = ctx.query;
    const id = sanitizeFolio(ctx.params.id) ?? sanitizeFolio(q.get("id"));
    const woFolio = id === undefined ? sanitizeFolio(q.get("wo_folio")) : undefined;

    const statusRaw = q.get("status");
    let status: number | undefined;
    if (statusRaw !== null && statusRaw !== "") {
      if (!/^[123]$/.test(statusRaw.trim())) {
        return errorItem(422, "status must be 1 (to approve), 2 (approved) or 3 (cancelled)");
      }
      status = Number(statusRaw.trim());
    }

    const typeDateRaw = q.get("type_date");
    const typeDate = (typeDateRaw === null || typeDateRaw === "" ? "creation_date" : typeDateRaw) as TypeDate;
    if (!TYPE_DATES.includes(typeDate))
      return errorItem(422, `type_date must be one of ${TYPE_DATES.join(", ")}`);

    const now = env.now();
    const sinceRaw = q.get("since");
    const untilRaw = q.get("until");
    const since = sinceRaw === null || sinceRaw === "" ? undefined : parseApiDate("since", sinceRaw);
    const until = untilRaw === null || untilRaw === "" ? undefined : parseApiDate("until", untilRaw);
    if (typeof since === "string") return errorItem(422, since);
    if (typeof until === "string") return errorItem(422, until);
    // Sandbox choice: a lookup by id or wo_folio is not limited by the default 30-day period,
    // only by an explicit since/until (docs/sandbox.md).
    const lookup = id !== undefined || woFolio !== undefined;
    const from = since ?? (lookup ? undefined : now - 30 * DAY);
    const to = until ?? (lookup ? undefined : now);
    if (from !== undefined && to !== undefined && from > to)
      return errorItem(422, "since must not be after until");

    const start = queryInt(q, "start", 0);
    const limit = queryInt(q, "limit", MAX_LIMIT);
    if (start === undefined) return errorItem(422, "start must be a non-negative integer");
    if (limit === undefined || limit < 1) return errorItem(422, "limit must be an integer from 1 to 100");
    if (limit > MAX_LIMIT) return errorItem(422, `limit must be at most ${MAX_LIMIT}`);

    const companyId = ctx.auth.companyId;
    const inPeriod = (b: StoredBudget) => {
      if (from === undefined && to === undefined) return true;
      const at = b.dates[typeDate];
      if (at === null) return false;
      return (from === undefined || at >= from) && (to === undefined || at <= to);
    };
    const matches = env
      .state()
      .budgets.filter(
        (b) =>
          b.companyId === companyId &&
          (id === undefined || b.record.folio === id) &&
          (woFolio === undefined || b.record.wo_folio === woFolio) &&
          (status === undefined || b.record.status === status) &&
          inPeriod(b),
      )
      .sort((a, b) => a.record.id - b.record.id);
    // No copy: the page is serialized before anything can change the records.
    const page = matches.slice(start, start + limit).map((b) => b.record);
    return ok(page, matches.length);
  };
}
