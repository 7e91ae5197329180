/**
 * The fast path of src/client/schemas.ts against zod, on generated pages (fast-check): for every
 * page, `parsePage`/`parseOne`/`parseWith` (fast path, zod fallback) and zod alone agree on
 * accept/reject and on the normalised output, key order included; rejections carry zod's paths.
 * Values mix what deployments send (numbers, text, null) with what they should not.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  BudgetListItemSchema,
  BudgetSchema,
  DagListSchema,
  DagSchema,
  EnvelopeSchema,
  MovementDetailSchema,
  parseOne,
  parsePage,
  parseWith,
  TaskResourceSchema,
  tryFast,
  WarehouseGroup1Schema,
  WarehouseMovementSchema,
} from "../../src/client/schemas.js";
import { ApiError } from "../../src/errors/api-error.js";

const ABSENT = Symbol("absent");
const RUNS = { numRuns: 300 };

/** Field values: the shapes real deployments send, the lenient ones zod handles, and garbage. */
const scalar: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -5, max: 100_000 }) },
  { weight: 2, arbitrary: fc.double({ noDefaultInfinity: false }) },
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 3, arbitrary: fc.constant(null) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "12.50",
      "12abc",
      "0x10",
      " -3.5e2 ",
      "+.5",
      "Infinity",
      " 7 ",
      "",
      "1e3",
      "abc",
      "true",
      "false",
      "1",
      "0",
      "t",
      "TRUE",
      "INVENTORY",
      "SERVICES",
      "HUMAN_RESOURCES",
    ),
  },
  { weight: 2, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constantFrom(0, 1, -0) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom({}, [], [1], { a: 1 }) },
);

type Shape = Record<string, z.ZodType>;
const LISTS: Record<string, z.ZodObject> = {
  list_items: BudgetListItemSchema,
  movement_details: MovementDetailSchema,
  dags: DagSchema,
};

/** A record for `shape`: mostly each field present, sometimes absent, plus extra keys. */
function record(shape: Shape, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.fromEntries(
    Object.keys(shape).map((key) => {
      const item = LISTS[key];
      const value =
        item !== undefined && depth < 1
          ? fc.oneof(fc.array(record(item.shape, depth + 1), { maxLength: 3 }), scalar)
          : scalar;
      return [key, fc.oneof({ weight: 6, arbitrary: value }, { weight: 1, arbitrary: fc.constant(ABSENT) })];
    }),
  );
  const extras = fc.dictionary(fc.constantFrom("custom_extra", "x", "constructor", "__proto__"), scalar, {
    maxKeys: 2,
  });
  return fc.tuple(fc.record(fields), extras).map(([known, extra]) => {
    // JSON.parse semantics: own data properties only, even "__proto__".
    const out: Record<string, unknown> = {};
    for (const [k, v] of [...Object.entries(known), ...Object.entries(extra)])
      if (v !== ABSENT)
        Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    return out;
  });
}

/** Plain values (numbers, text, null, booleans, absent) each field's zod schema passes through unchanged. */
const PLAIN: unknown[] = [0, 1, 42, 2.5, "text", "", null, true, false, "INVENTORY", "SERVICES", ABSENT];

/** A record of plain values only: what the sandbox and real deployments send, so mostly the fast path. */
function clean(shape: Shape, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.fromEntries(
    Object.entries(shape).map(([key, field]) => {
      const item = LISTS[key];
      if (item !== undefined)
        return [key, depth < 1 ? fc.array(clean(item.shape, depth + 1), { maxLength: 3 }) : fc.constant([])];
      const fits = PLAIN.filter((v) => {
        const r = field.safeParse(v === ABSENT ? undefined : v);
        return r.success && (r.data === v || (v === ABSENT && r.data === undefined));
      });
      return [key, fits.length > 0 ? fc.constantFrom(...fits) : fc.constant(null)];
    }),
  );
  return fc.record(fields).map((known) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(known)) if (v !== ABSENT) out[k] = v;
    return out;
  });
}
/** A plain record with one field (possibly inside a list) replaced by any value, or removed. */
function nearlyClean(shape: Shape): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(shape);
  return fc
    .tuple(clean(shape), fc.constantFrom(...keys), fc.oneof(scalar, fc.constant(ABSENT)), fc.nat())
    .map(([r, key, value, pick]) => {
      const out = { ...r };
      const list = out[key];
      const target =
        Array.isArray(list) && list.length > 0 && pick % 2 === 0
          ? (list[pick % list.length] as Record<string, unknown>)
          : out;
      const k =
        target === out ? key : (Object.keys(target)[pick % Math.max(1, Object.keys(target).length)] ?? key);
      if (value === ABSENT) delete target[k];
      else target[k] = value;
      return out;
    });
}

const SCHEMAS: Record<string, z.ZodObject> = {
  TaskResource: TaskResourceSchema,
  MovementDetail: MovementDetailSchema,
  WarehouseMovement: WarehouseMovementSchema,
  BudgetListItem: BudgetListItemSchema,
  Budget: BudgetSchema,
  WarehouseGroup1: WarehouseGroup1Schema,
  Dag: DagSchema,
};

/** Zod alone: the reference the fast path must agree with. */
function zodPage(schema: z.ZodType, body: unknown) {
  const env = EnvelopeSchema.safeParse(body);
  if (!env.success) return { ok: false as const };
  const d = env.data.data;
  const raw = d === null || d === undefined ? [] : Array.isArray(d) ? d : [d];
  const data = z.array(schema).safeParse(raw);
  if (!data.success) return { ok: false as const, issues: data.error.issues.length };
  // A total that is no count (negative, fractional) is refused whatever the records (interface.md §9b).
  const total = env.data.total;
  if (total !== undefined && !(Number.isSafeInteger(total) && total >= 0)) return { ok: false as const };
  return { ok: true as const, value: { data: data.data, total: total ?? data.data.length } };
}

function outcome(fn: () => unknown) {
  try {
    return { ok: true as const, value: fn() };
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("BAD_RESPONSE");
    return {
      ok: false as const,
      issues: ((error as ApiError).details as { issueCount?: number }).issueCount,
    };
  }
}

/** Same verdict, and the same output byte for byte (JSON keeps key order); same issue count on rejection. */
function expectAgree(
  ours: ReturnType<typeof outcome>,
  ref: { ok: boolean; value?: unknown; issues?: number },
) {
  expect(ours.ok).toBe(ref.ok);
  if (ours.ok) expect(JSON.stringify(ours.value)).toBe(JSON.stringify(ref.value));
  else if (ref.issues !== undefined) expect(ours.issues).toBe(ref.issues);
}

const envelopeOf = (data: fc.Arbitrary<unknown>) =>
  fc
    .record(
      {
        success: fc.oneof(fc.constant(true), fc.constant(ABSENT), scalar),
        message: fc.constant("200"),
        data: fc.oneof({ weight: 6, arbitrary: data }, { weight: 1, arbitrary: scalar }),
        total: fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.constant(ABSENT), scalar),
      },
      { requiredKeys: ["message"] },
    )
    .map((e) => Object.fromEntries(Object.entries(e).filter(([, v]) => v !== ABSENT)));

/** A budget as deployments send it (numbers, text, null, an extra field). */
const DEPLOYED_BUDGET = {
  id: 7001,
  id_company: 1,
  id_work_order: 9,
  id_third_parties_log: null,
  folio: "7001",
  id_currency: 1,
  date_create: "2024-05-01T10:00:00+00:00",
  status: 2,
  discount: 12.5,
  list_items: [
    {
      id_company: 1,
      type_resource: 1,
      qty: 2,
      unit_cost_company: 3,
      total_cost_company: 6,
      unit_cost: 3,
      total_cost: 6,
      id_taxes: null,
      hrl_description: null,
      items_log_description: "Filter",
      stl_description: null,
    },
  ],
  custom_extra: { kept: true },
};

describe("fast path and zod agree on every generated page", () => {
  it.each(Object.entries(SCHEMAS))("%s pages (parsePage)", (_name, schema) => {
    const pages = envelopeOf(
      fc.oneof(
        fc.array(fc.oneof(record(schema.shape), clean(schema.shape), nearlyClean(schema.shape)), {
          maxLength: 4,
        }),
        nearlyClean(schema.shape),
        record(schema.shape),
      ),
    );
    fc.assert(
      fc.property(pages, (body) =>
        expectAgree(
          outcome(() => parsePage(schema, body)),
          zodPage(schema, body),
        ),
      ),
      RUNS,
    );
  });

  it("single records (parseOne) and the DAG list (parseWith)", () => {
    fc.assert(
      fc.property(
        envelopeOf(
          fc.oneof(record(WarehouseMovementSchema.shape), nearlyClean(WarehouseMovementSchema.shape)),
        ),
        (body) => {
          const ref = zodPage(WarehouseMovementSchema, body);
          const single =
            ref.ok && ref.value.data.length === 1 ? { ok: true, value: ref.value.data[0] } : undefined;
          const ours = outcome(() => parseOne(WarehouseMovementSchema, body));
          if (single !== undefined) expectAgree(ours, single);
        },
      ),
      RUNS,
    );
    const dagList = fc.record({
      id_company: scalar,
      total: fc.oneof(fc.integer({ min: 0, max: 50 }), scalar),
      dags: fc.oneof(
        fc.array(fc.oneof(record(DagSchema.shape), nearlyClean(DagSchema.shape)), { maxLength: 3 }),
        scalar,
      ),
    });
    fc.assert(
      fc.property(dagList, (body) => {
        const ref = DagListSchema.safeParse(body);
        expectAgree(
          outcome(() => parseWith(DagListSchema, body)),
          ref.success ? { ok: true, value: ref.data } : { ok: false, issues: ref.error.issues.length },
        );
      }),
      RUNS,
    );
  });

  it.each(Object.entries(SCHEMAS))("%s: plain records take the fast path", (_name, schema) => {
    fc.assert(
      fc.property(clean(schema.shape), (r) => {
        const fast = tryFast(schema, r);
        expect(fast).toBeDefined();
        expect(JSON.stringify(fast)).toBe(JSON.stringify(schema.parse(r)));
      }),
      RUNS,
    );
  });

  it("takes the fast path for what deployments send (numbers, text, null, extra budget fields)", () => {
    const fast = tryFast(BudgetSchema, DEPLOYED_BUDGET);
    expect(fast).toBeDefined();
    expect(JSON.stringify(fast)).toBe(JSON.stringify(BudgetSchema.parse(DEPLOYED_BUDGET)));
    expect(
      tryFast(WarehouseGroup1Schema, { id: 1, id_company: 1, description: "A", enabled: true }),
    ).toBeDefined();
    // Numbers sent as text (as the sandbox and some deployments do) stay on the fast path, same value as zod.
    const asText = { id: " 12.50 ", id_company: "1", description: "A", enabled: true };
    expect(tryFast(WarehouseGroup1Schema, asText)).toEqual(WarehouseGroup1Schema.parse(asText));
    // Rarer spellings are zod's job (the fast path declines; the answer is the same).
    expect(
      tryFast(WarehouseGroup1Schema, { id: 1, id_company: 1, description: "A", enabled: "true" }),
    ).toBeUndefined();
  });

  it("agrees with zod when other code added an enumerable member to Object.prototype (the key walk sees it)", () => {
    const page = {
      success: true,
      data: [
        { id: 1, id_company: 1, description: "A", enabled: true },
        { id: 2, id_company: 1, description: "B", enabled: false, extra: 1 },
      ],
    };
    const budget = JSON.parse(JSON.stringify(DEPLOYED_BUDGET));
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = "yes";
    try {
      expect(parsePage(WarehouseGroup1Schema, page)).toEqual(zodPage(WarehouseGroup1Schema, page).value);
      // A loose schema keeps extra fields, and zod copies the inherited one too: the fast path leaves it to zod.
      expect(tryFast(BudgetSchema, budget)).toBeUndefined();
      expectAgree(
        outcome(() => parseOne(BudgetSchema, { success: true, data: budget })),
        { ok: true, value: BudgetSchema.parse(budget) },
      );
    } finally {
      delete proto.polluted;
    }
  });
});
