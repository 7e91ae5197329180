/**
 * zod schemas of upstream bodies, lenient where the spec and practice warn (upstream-notes):
 * numbers and booleans sent as text, `data: null`, `folio_target` as number or text, nullable
 * fields, unknown extra fields (kept on budgets). `parseWith` turns a body that still does not
 * fit into ApiError BAD_RESPONSE with the zod paths in `details`; it never throws anything else.
 */
import { z } from "zod";
import { ApiError, ERROR_CODES, type RequestSummary } from "../errors/api-error.js";
import type {
  Budget,
  BudgetListItem,
  DagList,
  MovementDetail,
  Page,
  TaskResource,
  WarehouseGroup1,
  WarehouseMovement,
} from "./types.js";

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
/** An array, with null/absent as empty (api-spec §4.5). */
// nullable() wraps rather than unions, so a bad element is reported at its own path (dags.0.dag_id).
const list = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullable()
    .optional()
    .transform((v) => v ?? []);

export const TaskResourceSchema = z.object({
  id: num,
  type_description: z.enum(["INVENTORY", "HUMAN_RESOURCES", "SERVICES"]),
  quantity: num,
  unit_cost: num,
  id_item: num.optional(),
  id_hourly_rate: num.optional(),
  id_service_type: num.optional(),
  note: z.string().nullish(),
}) satisfies z.ZodType<TaskResource, unknown>;

export const MovementDetailSchema = z.object({
  id_item: num,
  items_description: label,
  code: text,
  units_description: label,
  qty: num,
  unit_cost: num,
  total_cost: num,
  tax_name: label,
  tax_rate: num,
}) satisfies z.ZodType<MovementDetail, unknown>;

export const WarehouseMovementSchema = z.object({
  id: num,
  // api-spec §2.2: listed as integer, sent as text; always text here.
  folio_target: text,
  date: text,
  description: textOrNull,
  document: label,
  id_third_party: idLoose,
  third_parties_name: textOrNull,
  third_parties_code: textOrNull,
  id_cost_center: idLoose,
  costs_center_value: textOrNull,
  costs_center_description: textOrNull,
  folio_source: textOrNull,
  date_create: text,
  id_priority: textOrNull,
  priorities_description: textOrNull,
  id_currency: num,
  currency_description: label,
  currency_symbol: label,
  movements_states_description: label,
  movement_details: list(MovementDetailSchema),
}) satisfies z.ZodType<WarehouseMovement, unknown>;

export const BudgetListItemSchema = z.looseObject({
  id_company: num,
  type_resource: num,
  qty: num,
  unit_cost_company: num,
  total_cost_company: num,
  unit_cost: num,
  total_cost: num,
  id_taxes: numOrNull,
  hrl_description: textOrNull,
  items_log_description: textOrNull,
  stl_description: textOrNull,
}) satisfies z.ZodType<BudgetListItem, unknown>;

/** Loose: fields beyond api-spec §2.3 are kept (the tool's full view shows them). */
export const BudgetSchema = z.looseObject({
  id: num,
  id_company: num,
  id_work_order: num,
  id_third_parties_log: numOrNull,
  id_cost_center: numOrNull,
  folio: text,
  id_currency: num,
  exchange_value: numOrNull,
  reference: textOrNull,
  id_priority: numOrNull,
  // api-spec §2.3: the field table says integer, the description says text.
  note: textOrNull,
  id_item_log: numOrNull,
  date_create: text,
  id_condition: numOrNull,
  status: num,
  approved_by: textOrNull,
  note_status: textOrNull,
  discount: numOrNull,
  created_by: textOrNull,
  third_parties_name: textOrNull,
  third_parties_code: textOrNull,
  third_parties_address: textOrNull,
  third_parties_email: textOrNull,
  third_parties_city: textOrNull,
  third_parties_country: textOrNull,
  third_parties_telephone_1: textOrNull,
  third_parties_telephone_2: textOrNull,
  costs_center_description: textOrNull,
  items_description: textOrNull,
  items_groups_description: textOrNull,
  items_groups_1_description: textOrNull,
  items_groups_2_description: textOrNull,
  conditions_description: textOrNull,
  currency_description: textOrNull,
  symbol: textOrNull,
  wo_folio: textOrNull,
  id_status_work_order: numOrNull,
  final_date: textOrNull,
  user_assigned: textOrNull,
  parent_description: textOrNull,
  list_items: list(BudgetListItemSchema),
  approval_date: textOrNull,
}) satisfies z.ZodType<Budget, unknown>;

export const WarehouseGroup1Schema = z.object({
  id: num,
  id_company: num,
  description: label,
  enabled: bool,
}) satisfies z.ZodType<WarehouseGroup1, unknown>;

export const DagListSchema = z
  .object({
    id_company: text,
    total: num.optional(),
    dags: list(
      z.object({
        dag_id: text,
        description: label,
        last_run: textOrNull,
      }),
    ),
  })
  .transform((v) => ({
    id_company: v.id_company,
    total: v.total ?? v.dags.length,
    dags: v.dags,
  })) satisfies z.ZodType<DagList, unknown>;

/** The success envelope (api-spec §1); `data` is checked by the endpoint's own schema. */
export const EnvelopeSchema = z.object({
  success: bool.optional(),
  data: z.unknown(),
  total: num.optional(),
});

/** Parse `value` or throw ApiError BAD_RESPONSE naming the first zod paths (never a raw ZodError). */
export function parseWith<T>(
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

/**
 * An envelope's `data` as a page: null → [] (api-spec §4.5), a single object → one element
 * (single-record lookups), `total` as reported or the page length when absent.
 */
export function parsePage<T>(
  schema: z.ZodType<T, unknown>,
  body: unknown,
  request?: RequestSummary,
): Page<T> {
  const env = parseWith(EnvelopeSchema, body, request);
  const raw =
    env.data === null || env.data === undefined ? [] : Array.isArray(env.data) ? env.data : [env.data];
  const data = parseWith(z.array(schema), raw, request, ["data"]);
  return { data, total: env.total ?? data.length };
}

/** An envelope's `data` as one object (an array of exactly one is accepted). */
export function parseOne<T>(schema: z.ZodType<T, unknown>, body: unknown, request?: RequestSummary): T {
  const env = parseWith(EnvelopeSchema, body, request);
  const data = Array.isArray(env.data) && env.data.length === 1 ? env.data[0] : env.data;
  return parseWith(schema, data, request, ["data"]);
}
