/**
 * zod schemas of upstream bodies, lenient where the spec and practice warn (upstream-notes):
 * numbers and booleans sent as text, `data: null`, `folio_target` as number or text, nullable
 * fields, unknown extra fields (kept on budgets). The domain types (types.ts) are their outputs.
 * Each field is declared once as a pair: its zod schema and a plain fast check of the shapes
 * real deployments send (numbers as numbers, text as text, null). Pages are checked by the fast
 * path first; only when it declines does zod run, so errors keep zod's precise paths.
 * `parseWith` turns a body that does not fit into ApiError BAD_RESPONSE with the zod paths in
 * `details`; it never throws anything else.
 * IMPORTANT: a fast check may decline (MISS) but never accept what zod rejects, nor produce a
 * different value or key order: test/unit/schemas-fast.test.ts checks this on generated pages.
 */
import { z } from "zod";
import { ApiError, ERROR_CODES, type RequestSummary } from "../errors/api-error.js";

/** A fast check's "not sure": the value goes to zod. */
const MISS: unique symbol = Symbol("miss");
type Fast = (value: unknown) => unknown;

/** A field: its zod schema, its fast check, and whether an absent key is checked (as undefined) or left out. */
interface Field<Z extends z.ZodType = z.ZodType> {
  zod: Z;
  fast: Fast;
  absent: "check" | "omit";
}

const field = <Z extends z.ZodType>(zod: Z, fast: Fast, absent: Field["absent"] = "check"): Field<Z> => ({
  zod,
  fast,
  absent,
});

type Fields = Record<string, Field>;
type ZodShape<F extends Fields> = { [K in keyof F]: F[K]["zod"] };

const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Fast check of an object: known keys in declaration order (as zod outputs them), then extras if loose. */
function fastObject(fields: Fields, loose: boolean): Fast {
  // Plain arrays and an indexed loop: this runs for every field of every record of every page.
  const keys = Object.keys(fields);
  const checks = keys.map((k) => fields[k]!.fast);
  const omit = keys.map((k) => fields[k]!.absent === "omit");
  const known = new Set(keys);
  const inherited = keys.find((k) => k in Object.prototype);
  if (inherited !== undefined) throw new TypeError(`field "${inherited}" shadows Object.prototype`);
  return (value) => {
    if (!isRecord(value) || Object.getPrototypeOf(value) !== Object.prototype) return MISS;
    // The object itself when zod's output would equal it key for key (what real deployments send):
    // every field present in declaration order and unchanged by its check, then the extras (loose)
    // or nothing (strict). No copy of each record of each page: the parsed body is ours alone.
    const same = unchanged(value);
    if (same !== false) return same;
    const own = Object.keys(value);
    const out: Record<string, unknown> = {};
    let found = 0;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      // No field is named like an Object.prototype member (checked below), so a defined value is own.
      const raw = value[key];
      const present = raw !== undefined || Object.hasOwn(value, key);
      if (present) found++;
      else if (omit[i]) continue;
      const v = checks[i]!(raw);
      if (v === MISS) return MISS;
      out[key] = v;
    }
    // Extra keys are the own keys beyond the known ones found.
    if (loose && own.length > found) {
      for (const key of own) {
        // An own "__proto__" key (JSON.parse makes one) cannot be copied by assignment: zod decides.
        if (key === "__proto__") return MISS;
        if (!known.has(key)) out[key] = value[key];
      }
    }
    return out;
  };

  /**
   * `value` if it passes as is, MISS if a check declines, false if it needs the copying path.
   * IMPORTANT (speed): for-in walks the keys without allocating an array per record (Object.keys
   * did, ~8 KB per page of 100); its order is Object.keys' order, and the caller checked that the
   * prototype is Object.prototype, whose members are not enumerable (an enumerable one added by
   * other code shows up as an extra key: strict takes the copying path, loose leaves it to zod).
   */
  function unchanged(value: Record<string, unknown>): Record<string, unknown> | typeof MISS | false {
    let i = 0;
    for (const key in value) {
      if (i < keys.length) {
        if (key !== keys[i]) return false;
        const raw = value[key];
        const v = checks[i]!(raw);
        if (v === MISS) return MISS;
        if (v !== raw) return false;
      } else {
        if (!loose) return false;
        // An own "__proto__" key (JSON.parse makes one) cannot be copied by assignment, and zod
        // copies an inherited enumerable member into its output: zod decides both.
        if (key === "__proto__" || !Object.hasOwn(value, key)) return MISS;
      }
      i++;
    }
    return i >= keys.length ? value : false;
  }
}

/** Fast check of an array, item by item; any declined item declines the whole array. */
function fastArray(item: Fast): (value: unknown[]) => unknown[] | typeof MISS {
  return (value) => {
    // Copied from the first item its check changes; the array itself when none does.
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const raw = value[i];
      const v = item(raw);
      if (v === MISS) return MISS;
      if (out === undefined && v !== raw) out = value.slice(0, i);
      if (out !== undefined) out.push(v);
    }
    return out ?? value;
  };
}

/** The fast check registered for a zod schema (objects and lists built here). */
const FAST = new WeakMap<z.ZodType, Fast>();

function strictRecord<F extends Fields>(fields: F) {
  const schema = z.object(
    Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.zod])) as ZodShape<F>,
  );
  FAST.set(schema, fastObject(fields, false));
  return schema;
}

function looseRecord<F extends Fields>(fields: F) {
  const schema = z.looseObject(
    Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.zod])) as ZodShape<F>,
  );
  FAST.set(schema, fastObject(fields, true));
  return schema;
}

const NUMERIC_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A number sent as text ("12.50" → 12.5). */
const numericText = z
  .string()
  .trim()
  .regex(NUMERIC_TEXT, { error: "expected a number" })
  .transform((s) => Number(s));
/** A number, or a number sent as text. */
export const num = z.union([z.number(), numericText]);
/** `num`, or null when absent, null or empty text. */
// IMPORTANT (speed): flat unions with the common cases first. zod stops at the first option
// that fits; a nested union tried before z.null() builds error issues for every null field.
export const numOrNull = z
  .union([z.null(), z.number(), numericText, z.literal("")])
  .optional()
  .transform((v) => (v === "" || v === undefined ? null : v));

/** A boolean, or "true"/"false"/"1"/"0"/1/0. */
export const bool = z.union([
  z.boolean(),
  z
    .enum(["true", "false", "1", "0", "t", "f", "TRUE", "FALSE", "True", "False"])
    .transform((s) => ["true", "1", "t"].includes(s.toLowerCase())),
  z.literal([0, 1]).transform((n) => n === 1),
]);

/** Text, or a number sent where text is documented (`folio_target`, `folio`). */
const numberAsText = z.number().transform(String);
export const text = z.union([z.string(), numberAsText]);
export const textOrNull = z
  .union([z.string(), z.null(), numberAsText])
  .optional()
  .transform((v) => v ?? null);
/** Display text that may be missing: null/absent → "". */
const label = z
  .union([z.string(), z.null(), numberAsText])
  .optional()
  .transform((v) => v ?? "");
/** Number or text id, kept as sent (api-spec §2.2 `id_third_party`). */
const idLoose = z
  .union([z.number(), z.null(), z.string()])
  .optional()
  .transform((v) => v ?? null);

/** A number, or a number sent as text exactly as `numericText` reads it (trimmed, NUMERIC_TEXT). */
const fastNum = (v: unknown): unknown => {
  if (isNumber(v)) return v;
  if (typeof v !== "string") return MISS;
  const t = v.trim();
  return NUMERIC_TEXT.test(t) ? Number(t) : MISS;
};

/** The field kinds, each a zod schema with its fast check (anything unusual goes to zod). */
const F = {
  num: field(num, fastNum),
  numOptional: field(num.optional(), fastNum, "omit"),
  numOrNull: field(numOrNull, (v) => (v === null || v === undefined || v === "" ? null : fastNum(v))),
  text: field(text, (v) => (typeof v === "string" ? v : isNumber(v) ? String(v) : MISS)),
  textOrNull: field(textOrNull, (v) =>
    typeof v === "string" ? v : v === null || v === undefined ? null : isNumber(v) ? String(v) : MISS,
  ),
  label: field(label, (v) =>
    typeof v === "string" ? v : v === null || v === undefined ? "" : isNumber(v) ? String(v) : MISS,
  ),
  idLoose: field(idLoose, (v) =>
    typeof v === "string" || isNumber(v) ? v : v === null || v === undefined ? null : MISS,
  ),
  bool: field(bool, (v) => (typeof v === "boolean" ? v : MISS)),
  nullishString: field(z.string().nullish(), (v) => (typeof v === "string" || v === null ? v : MISS), "omit"),
};

/** An array, with null/absent as empty (api-spec §4.5). */
// nullable() wraps rather than unions, so a bad element is reported at its own path (dags.0.dag_id).
function list<T extends z.ZodType>(item: T) {
  const fast = FAST.get(item);
  const items = fast === undefined ? undefined : fastArray(fast);
  return field(
    z
      .array(item)
      .nullable()
      .optional()
      .transform((v) => v ?? []),
    (v) => (v === null || v === undefined ? [] : Array.isArray(v) && items !== undefined ? items(v) : MISS),
  );
}

const RESOURCE_TYPES = ["INVENTORY", "HUMAN_RESOURCES", "SERVICES"] as const;

export const TaskResourceSchema = strictRecord({
  id: F.num,
  type_description: field(z.enum(RESOURCE_TYPES), (v) =>
    RESOURCE_TYPES.includes(v as (typeof RESOURCE_TYPES)[number]) ? v : MISS,
  ),
  quantity: F.num,
  unit_cost: F.num,
  id_item: F.numOptional,
  id_hourly_rate: F.numOptional,
  id_service_type: F.numOptional,
  note: F.nullishString,
});

export const MovementDetailSchema = strictRecord({
  id_item: F.num,
  items_description: F.label,
  code: F.text,
  units_description: F.label,
  qty: F.num,
  unit_cost: F.num,
  total_cost: F.num,
  tax_name: F.label,
  tax_rate: F.num,
});

export const WarehouseMovementSchema = strictRecord({
  id: F.num,
  // api-spec §2.2: listed as integer, sent as text; always text here.
  folio_target: F.text,
  date: F.text,
  description: F.textOrNull,
  document: F.label,
  id_third_party: F.idLoose,
  third_parties_name: F.textOrNull,
  third_parties_code: F.textOrNull,
  id_cost_center: F.idLoose,
  costs_center_value: F.textOrNull,
  costs_center_description: F.textOrNull,
  folio_source: F.textOrNull,
  date_create: F.text,
  id_priority: F.textOrNull,
  priorities_description: F.textOrNull,
  id_currency: F.num,
  currency_description: F.label,
  currency_symbol: F.label,
  movements_states_description: F.label,
  movement_details: list(MovementDetailSchema),
});

export const BudgetListItemSchema = looseRecord({
  id_company: F.num,
  type_resource: F.num,
  qty: F.num,
  unit_cost_company: F.num,
  total_cost_company: F.num,
  unit_cost: F.num,
  total_cost: F.num,
  id_taxes: F.numOrNull,
  hrl_description: F.textOrNull,
  items_log_description: F.textOrNull,
  stl_description: F.textOrNull,
});

/** Loose: fields beyond api-spec §2.3 are kept (the tool's full view shows them). */
export const BudgetSchema = looseRecord({
  id: F.num,
  id_company: F.num,
  id_work_order: F.num,
  id_third_parties_log: F.numOrNull,
  id_cost_center: F.numOrNull,
  folio: F.text,
  id_currency: F.num,
  exchange_value: F.numOrNull,
  reference: F.textOrNull,
  id_priority: F.numOrNull,
  // api-spec §2.3: the field table says integer, the description says text.
  note: F.textOrNull,
  id_item_log: F.numOrNull,
  date_create: F.text,
  id_condition: F.numOrNull,
  /** 1 pending approval, 2 approved, 3 rejected/cancelled. */
  status: F.num,
  approved_by: F.textOrNull,
  note_status: F.textOrNull,
  discount: F.numOrNull,
  created_by: F.textOrNull,
  third_parties_name: F.textOrNull,
  third_parties_code: F.textOrNull,
  third_parties_address: F.textOrNull,
  third_parties_email: F.textOrNull,
  third_parties_city: F.textOrNull,
  third_parties_country: F.textOrNull,
  third_parties_telephone_1: F.textOrNull,
  third_parties_telephone_2: F.textOrNull,
  costs_center_description: F.textOrNull,
  items_description: F.textOrNull,
  items_groups_description: F.textOrNull,
  items_groups_1_description: F.textOrNull,
  items_groups_2_description: F.textOrNull,
  conditions_description: F.textOrNull,
  currency_description: F.textOrNull,
  symbol: F.textOrNull,
  wo_folio: F.textOrNull,
  /** 1 in process, 2 in review, 3 finished, 4 cancelled. */
  id_status_work_order: F.numOrNull,
  final_date: F.textOrNull,
  user_assigned: F.textOrNull,
  parent_description: F.textOrNull,
  list_items: list(BudgetListItemSchema),
  approval_date: F.textOrNull,
});

export const WarehouseGroup1Schema = strictRecord({
  id: F.num,
  id_company: F.num,
  description: F.label,
  enabled: F.bool,
});

export const DagSchema = strictRecord({
  dag_id: F.text,
  description: F.label,
  /** YYYY-MM-DD */
  last_run: F.textOrNull,
});

const dagListFields = strictRecord({
  id_company: F.text,
  total: F.numOptional,
  dags: list(DagSchema),
});
const dagListOutput = (v: {
  id_company: string;
  total?: number | undefined;
  dags: z.output<typeof DagSchema>[];
}) => ({
  id_company: v.id_company,
  total: v.total ?? v.dags.length,
  dags: v.dags,
});
export const DagListSchema = dagListFields.transform(dagListOutput);
FAST.set(DagListSchema, (value) => {
  const v = FAST.get(dagListFields)!(value);
  return v === MISS ? MISS : dagListOutput(v as Parameters<typeof dagListOutput>[0]);
});

/** The success envelope (api-spec §1); `data` is checked by the endpoint's own schema. */
export const EnvelopeSchema = z.object({
  success: bool.optional(),
  data: z.unknown(),
  total: num.optional(),
});

/** The fast path's value for `value`, or undefined when it declines (zod must decide). Exported for tests. */
export function tryFast<T>(schema: z.ZodType<T, unknown>, value: unknown): T | undefined {
  const fast = FAST.get(schema)?.(value);
  return fast === undefined || fast === MISS ? undefined : (fast as T);
}

/** Parse `value` or throw ApiError BAD_RESPONSE naming the first zod paths (never a raw ZodError). */
export function parseWith<T>(
  schema: z.ZodType<T, unknown>,
  value: unknown,
  request?: RequestSummary,
  prefix: string[] = [],
): T {
  return tryFast(schema, value) ?? parseSlow(schema, value, request, prefix);
}

function parseSlow<T>(
  schema: z.ZodType<T, unknown>,
  value: unknown,
  request?: RequestSummary,
  prefix: string[] = [],
): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({
    path: [...prefix, ...i.path.map(String)].join(".") || "(root)",
    message: i.message,
  }));
  const first = issues[0]!;
  return failShape(
    `the upstream answer did not have the documented shape at ${first.path}: ${first.message}${
      issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""
    }`,
    { issues: issues.slice(0, 20), issueCount: issues.length },
    request,
  );
}

function failShape(message: string, details: unknown, request?: RequestSummary): never {
  throw new ApiError({ code: ERROR_CODES.BAD_RESPONSE, message, retryable: false, details, request });
}

/** The envelope's fields the pages need, or MISS for anything but `success: true|absent` and a numeric or absent `total`. */
function fastEnvelope(body: unknown): { data: unknown; total?: number | undefined } | typeof MISS {
  // zod requires the `data` key (z.unknown() is not optional), so an envelope without it declines.
  if (!isRecord(body) || !Object.hasOwn(body, "data")) return MISS;
  const { success, total } = body;
  if (success !== undefined && typeof success !== "boolean") return MISS;
  if (total !== undefined && !isNumber(total)) return MISS;
  return { data: body.data, total };
}

function envelope(body: unknown, request?: RequestSummary): { data: unknown; total?: number | undefined } {
  const fast = fastEnvelope(body);
  return fast === MISS ? parseSlow(EnvelopeSchema, body, request) : fast;
}

/** One page of a list endpoint. `total` is what the API reported (matches, not page size). */
export interface Page<T> {
  data: T[];
  total: number;
}

/**
 * An envelope's `data` as a page: null → [] (api-spec §4.5), a single object → one element
 * (single-record lookups), `total` as reported or the page length when absent.
 */
export function parsePage<T>(
  schema: z.ZodType<T, unknown>,
  body: unknown,
  request?: RequestSummary,
): Page<T> {
  const env = envelope(body, request);
  const raw =
    env.data === null || env.data === undefined ? [] : Array.isArray(env.data) ? env.data : [env.data];
  const data = parseItems(schema, raw) ?? parseSlow(z.array(schema), raw, request, ["data"]);
  return { data, total: count(env.total, request) ?? data.length };
}

/**
 * A `total` as a count, or BAD_RESPONSE naming the field: a negative or fractional one never reads
 * as a count ("All -5 pending budgets", interface.md §6c, §9b).
 */
function count(total: number | undefined, request?: RequestSummary): number | undefined {
  if (total === undefined || (Number.isSafeInteger(total) && total >= 0)) return total;
  return failShape(
    `the upstream answer's total is ${total}, not a count of records (a non-negative integer): its list cannot be trusted`,
    { field: "total", value: total },
    request,
  );
}

/**
 * Each item by the fast path, or by zod alone when the fast path declines it (zod parses an
 * array item by item, so the result is the same); undefined as soon as zod rejects one, so that
 * the caller re-parses the whole array for zod's complete, indexed error paths.
 */
function parseItems<T>(schema: z.ZodType<T, unknown>, raw: unknown[]): T[] | undefined {
  const fast = FAST.get(schema);
  const out = new Array<T>(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const v = fast === undefined ? MISS : fast(raw[i]);
    if (v !== MISS) {
      out[i] = v as T;
      continue;
    }
    const r = schema.safeParse(raw[i]);
    if (!r.success) return undefined;
    out[i] = r.data;
  }
  return out;
}

/** An envelope's `data` as one object (an array of exactly one is accepted). */
export function parseOne<T>(schema: z.ZodType<T, unknown>, body: unknown, request?: RequestSummary): T {
  const env = envelope(body, request);
  const data = Array.isArray(env.data) && env.data.length === 1 ? env.data[0] : env.data;
  return parseWith(schema, data, request, ["data"]);
}
