/**
 * Bad input, as fast-check properties over every tool (in-memory MCP client → createServer →
 * real client → sandbox): invalid arguments by construction (wrong types, blank and huge
 * strings, negative and fractional numbers, extra keys, 10,000 resources…) always give an
 * `isError` result naming the field, within a bound, and never an upstream request; arbitrary
 * arguments never crash or hang the server; any `warehouse_code` is exactly one encoded path
 * segment of the intended route. Seeds are fixed for reproducible CI runs (FUZZ_SEED overrides).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../helpers/mcp.js";
import { useSandbox } from "../helpers/sandbox.js";
import { allText, countOf, fastClients, firstLine, purchaseArgs, totalRequests, within } from "./helpers.js";

// dated-tests: skip (its dates are invalid arguments, refused before any clock is read)
const SEED = process.env.FUZZ_SEED === undefined ? 20_240_501 : Number(process.env.FUZZ_SEED);
const CALL_BOUND_MS = 5_000;

const fx = useSandbox({ faults: true });
let mcp: Client;
let closeAll: () => Promise<void>;

beforeAll(async () => {
  const fast = fastClients(fx.sb);
  const conn = await connect({ clients: fast.clients });
  mcp = conn.client;
  closeAll = async () => {
    await conn.close();
    await fast.clients.close();
  };
});
afterAll(() => closeAll());

async function call(name: string, args: unknown): Promise<CallToolResult> {
  return (await within(
    CALL_BOUND_MS,
    mcp.callTool({ name, arguments: args as Record<string, unknown> }),
    name,
  )) as CallToolResult;
}

/** Run `property` with the suite's seed and `runs` runs. */
async function check<T>(
  arb: fc.Arbitrary<T>,
  runs: number,
  predicate: (v: T) => Promise<void>,
): Promise<void> {
  await fc.assert(fc.asyncProperty(arb, predicate), { seed: SEED, numRuns: runs, endOnFailure: true });
}

// ---------- invalid values, by construction (none can be decoded into a valid one) ----------

const MB = "x".repeat(1024 * 1024);
const NUMERIC_TEXT = /^\s*-?\d+(\.\d+)?\s*$/;

const garbage = fc.oneof(
  fc.constant(null),
  fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.anything({ maxDepth: 2 }), { maxKeys: 3 }),
  fc.constant(nested(200)),
);
/** Deeply nested garbage: [[[[…{"a": …}…]]]]. */
function nested(depth: number): unknown {
  let v: unknown = "deep";
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { a: v };
  return v;
}
// A non-negative whole number is text's digits ("id": 109 is "109", interface.md §6), so not invalid.
const notString = fc.oneof(
  fc.integer({ max: -1 }),
  fc.double().filter((d) => !(Number.isSafeInteger(d) && d >= 0)),
  fc.boolean(),
  garbage,
);
const blank = fc.constantFrom("", " ", "\t", "\n  \n", "\u00a0", "\u3000 ");
const tooLong = (max: number) =>
  fc.oneof(
    fc.integer({ min: max + 1, max: max + 64 }).map((n) => "é".repeat(n)),
    fc.constant(MB),
  );
const badText = (max: number) => fc.oneof(blank, tooLong(max), notString);
const nonNumericText = fc
  .string({ maxLength: 12 })
  .filter((s) => !NUMERIC_TEXT.test(s) && !s.trim().startsWith("[") && !s.trim().startsWith("{"));
const fractional = fc
  .double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true })
  .filter((d) => !Number.isInteger(d));
const badId = fc.oneof(
  fc.integer({ min: -1_000_000, max: 0 }),
  fractional,
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, "-1", "0", "1.5", "1e3"),
  nonNumericText,
  fc.boolean(),
  garbage,
);
const badBool = fc.oneof(
  fc.integer(),
  fc.constantFrom("yes", "no", "1", "0", "TRUE", "False", "", "on"),
  garbage,
);
const badEnum = (valid: readonly (string | number)[]) =>
  fc.oneof(
    fc.string({ maxLength: 16 }).filter((s) => !valid.includes(s) && !valid.includes(Number(s.trim()))),
    fc.integer({ min: -5, max: 100 }).filter((n) => !valid.includes(n)),
    fractional,
    fc.boolean(),
    garbage,
  );
const badLimit = fc.oneof(
  fc.integer({ min: 101, max: 1_000_000 }),
  fc.integer({ min: -1_000, max: 0 }),
  fractional,
  nonNumericText,
  garbage,
);
const badStart = fc.oneof(
  fc.integer({ min: -1_000_000, max: -1 }),
  fc.integer({ min: 1_000_001, max: 2_000_000_000 }),
  fractional,
  nonNumericText,
);
const badMaxRecords = fc.oneof(
  fc.integer({ min: -10, max: 0 }),
  fc.integer({ min: 10_001, max: 1e9 }),
  fractional,
);
const badDate = fc.oneof(
  fc.constantFrom(
    "tomorrow",
    "2024-13-01",
    "2024-02-30",
    "01/05/2024",
    "2024-05-01T25:00:00",
    "2024-05-01T10:00:00+25",
    "2024-5-1",
    "20240501",
  ),
  blank,
  tooLong(40),
  notString,
);
const positiveQty = fc.integer({ min: 1, max: 100_000 }).map((n) => n / 100);

// ---------- resources and items ----------

const resource = (i: number) => ({ type_description: "INVENTORY", id_item: i + 1 });
const manyResources = (n: number) => Array.from({ length: n }, (_, i) => resource(i));
const badResources = fc.oneof(
  fc.constant([]),
  fc.integer({ min: 51, max: 300 }).map(manyResources),
  fc.constant(manyResources(10_000)),
  fc.constant(JSON.stringify(manyResources(10_000))),
  badEnum(["INVENTORY", "HUMAN_RESOURCES", "SERVICES"]).map((t) => [{ type_description: t, id_item: 1001 }]),
  fc.constant([{ type_description: "INVENTORY" }]),
  fc.constant([{ type_description: "HUMAN_RESOURCES", id_item: 1001 }]),
  badId.map((id) => [{ type_description: "SERVICES", id_service_type: id }]),
  tooLong(2000).map((note) => [{ type_description: "INVENTORY", id_item: 1001, note }]),
  fc.constant([{ type_description: "INVENTORY", id_item: 1001, quantity: 2 }]),
  fc.constant([resource(1000), resource(0), resource(1000)]), // duplicate: refused locally
  fc.oneof(
    nonNumericText,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.dictionary(fc.string(), fc.string()),
  ),
);

const item = { code: "SP-1003", qty: 1, unit_cost: 10 };
const badItems = fc.oneof(
  fc.constant([]),
  fc.constant(Array.from({ length: 501 }, (_, i) => ({ ...item, code: `C-${i}` }))),
  fc.constant(Array.from({ length: 10_000 }, (_, i) => ({ ...item, code: `C-${i}` }))),
  fc
    .oneof(fc.double({ max: 0, noNaN: true }), fc.constant(Number.NaN), nonNumericText, garbage)
    .map((qty) => [{ ...item, qty }]),
  fc.double({ min: -1e9, max: -1e-6, noNaN: true }).map((unit_cost) => [{ ...item, unit_cost }]),
  fc.constant([{ code: "SP-1003", qty: 1 }]), // no unit_cost on a new purchase: refused locally
  fc.constant([{ ...item, code: "SP-1004", qty: 2, serial_numbers: ["SN-1"] }]), // serial count: local
  fc.constant([{ ...item, code: "SP-1004", qty: 2, serial_numbers: ["SN-1", "SN-1"] }]),
  badText(100).map((code) => [{ ...item, code }]),
  fc.constant([{ ...item, colour: "red" }]),
  fc.oneof(nonNumericText, fc.integer(), fc.constant(null)),
);

// ---------- per tool: valid base arguments and one invalid field at a time ----------

interface ToolCase {
  name: string;
  base: Record<string, unknown>;
  fields: Record<string, fc.Arbitrary<unknown>>;
  required: string[];
}

const CASES: ToolCase[] = [
  {
    name: "add_task_resources",
    base: { id_group_task: 1, id_task: 101, resources: [resource(1000)] },
    fields: { id_group_task: badId, id_task: badId, resources: badResources },
    required: ["id_group_task", "id_task", "resources"],
  },
  {
    name: "create_warehouse_entry",
    base: purchaseArgs("FUZZ-BASE"),
    fields: {
      warehouse_code: badText(100),
      movement_type: badEnum(["purchase", "return", 1, 2]),
      is_from_movement: badBool,
      document: badText(200),
      code_user: badText(100),
      code_supplier: badText(100),
      value_cost_center: badText(100),
      description_cost_center: badText(200),
      note: fc.oneof(tooLong(2000), notString),
      items: badItems,
      dry_run: badBool,
      idempotency_key: badText(200),
    },
    required: ["warehouse_code", "movement_type", "document", "code_user", "items"],
  },
  {
    name: "query_budgets",
    base: { limit: 1 },
    fields: {
      id: badText(100),
      status: badEnum(["pending", "approved", "cancelled", 1, 2, 3]),
      wo_folio: badText(100),
      since: badDate,
      until: badDate,
      type_date: badEnum(["creation_date", "initial_date", "final_date", "approval_date"]),
      start: badStart,
      limit: badLimit,
      all: badBool,
      max_records: badMaxRecords,
      view: badEnum(["compact", "full"]),
    },
    required: [],
  },
  {
    name: "list_warehouse_groups_1",
    base: { limit: 1 },
    fields: {
      id: badId,
      only_enabled: badBool,
      start: badStart,
      limit: badLimit,
      all: badBool,
      max_records: badMaxRecords,
    },
    required: [],
  },
  { name: "list_dags", base: {}, fields: {}, required: [] },
];

/** One invalid variant of a tool's base arguments, and the field its error must name. */
function invalidArgs(c: ToolCase): fc.Arbitrary<{ args: Record<string, unknown>; field: string }> {
  const known = new Set([...Object.keys(c.fields), ...Object.keys(c.base)]);
  const extraKey = fc
    .string({ minLength: 1, maxLength: 24 })
    .filter((k) => !known.has(k) && k !== "__proto__" && k.trim() !== "");
  const variants: fc.Arbitrary<{ args: Record<string, unknown>; field: string }>[] = [
    fc
      .tuple(extraKey, fc.anything({ maxDepth: 2 }))
      .map(([k, v]) => ({ args: { ...c.base, [k]: v }, field: k })),
  ];
  for (const [field, arb] of Object.entries(c.fields)) {
    variants.push(arb.map((v) => ({ args: { ...c.base, [field]: v }, field })));
  }
  for (const field of c.required) {
    const { [field]: _dropped, ...rest } = c.base;
    variants.push(fc.constant({ args: rest, field }));
  }
  return fc.oneof(...variants);
}

describe("invalid arguments: a clear error naming the field, no upstream request", () => {
  for (const c of CASES) {
    it(`${c.name}`, async () => {
      await check(invalidArgs(c), c.name === "list_dags" ? 100 : 400, async ({ args, field }) => {
        const before = totalRequests(fx.sb);
        const r = await call(c.name, args);
        expect(r.isError, `accepted ${JSON.stringify(args).slice(0, 300)}`).toBe(true);
        const line = firstLine(r);
        expect(line.length).toBeGreaterThan(10);
        expect(line.length).toBeLessThan(2_000); // a 1 MB input is never echoed
        expect(line).toMatch(/^\[sandbox\] (Invalid arguments for|Invalid input:)/);
        expect(line).toContain(field);
        expect(totalRequests(fx.sb), `sent upstream for ${JSON.stringify(args).slice(0, 300)}`).toBe(before);
      });
    });
  }
});

describe("arbitrary arguments: never a crash, a hang or an unclear answer", () => {
  for (const c of CASES) {
    it(`${c.name}`, async () => {
      const keys = fc.oneof(
        fc.constantFrom(...Object.keys(c.fields), "dry_run"),
        fc.string({ maxLength: 10 }),
      );
      const args = fc.oneof(
        fc.dictionary(keys, fc.anything({ maxDepth: 3 }), { maxKeys: 6 }),
        fc.record(Object.fromEntries(Object.entries(c.fields).map(([k, a]) => [k, a])), { requiredKeys: [] }),
      );
      await check(args, 200, async (a) => {
        const r = await call(c.name, { dry_run: true, ...a });
        if (r.isError) {
          const line = firstLine(r);
          expect(line.trim().length).toBeGreaterThan(10);
          expect(line).not.toMatch(/Internal error/);
        } else {
          expect(r.structuredContent).toBeDefined();
        }
      });
      // Still serving afterwards.
      expect(await mcp.ping()).toBeDefined();
    });
  }
});

describe("stringified JSON", () => {
  it("stringified values are decoded exactly like the real ones (create_warehouse_entry dry run)", async () => {
    const items = fc.array(
      fc.record({
        code: fc.constantFrom("SP-1003", "TL-1001", "CS-1005", "X 1/2"),
        qty: positiveQty,
        unit_cost: positiveQty,
      }),
      { minLength: 1, maxLength: 5 },
    );
    await check(fc.tuple(items, fc.string({ minLength: 1, maxLength: 30 })), 150, async ([its, doc]) => {
      fc.pre(doc.trim() !== "");
      const plain = { ...purchaseArgs(doc), items: its, dry_run: true };
      const stringified = {
        ...plain,
        items: JSON.stringify(its.map((i) => ({ ...i, qty: String(i.qty), unit_cost: String(i.unit_cost) }))),
        dry_run: "true",
      };
      const before = totalRequests(fx.sb);
      const a = await call("create_warehouse_entry", plain);
      const b = await call("create_warehouse_entry", stringified);
      expect(a.isError, allText(a)).toBeFalsy();
      expect(b.isError, allText(b)).toBeFalsy();
      expect(b.structuredContent).toEqual(a.structuredContent);
      expect(totalRequests(fx.sb)).toBe(before);
    });
  });

  it("a stringified array of 10,000 resources is refused locally like the array itself", async () => {
    const before = totalRequests(fx.sb);
    const r = await call("add_task_resources", {
      id_group_task: "1",
      id_task: "101",
      resources: JSON.stringify(manyResources(10_000)),
    });
    expect(r.isError).toBe(true);
    expect(firstLine(r)).toMatch(/resources: Too big/);
    expect(totalRequests(fx.sb)).toBe(before);
  });
});

describe("inputs that once broke the server (found by this file; see docs/robustness.md)", () => {
  // A string that starts like JSON but is not JSON, where an array or object is expected.
  for (const [name, args, field] of [
    ["add_task_resources", { id_group_task: 1, id_task: 101, resources: "[garbage" }, "resources"],
    ["create_warehouse_entry", { ...purchaseArgs("FUZZ-JSONISH"), items: "{not json" }, "items"],
    ["create_warehouse_entry", { ...purchaseArgs("FUZZ-JSONISH"), items: [" {oops"] }, "items"],
  ] as const) {
    it(`${name}: ${JSON.stringify((args as Record<string, unknown>)[field])} is a clear error, not a protocol failure`, async () => {
      const before = totalRequests(fx.sb);
      const r = await call(name, args).catch((e: unknown) => ({
        isError: "protocol",
        content: [{ type: "text" as const, text: String(e) }],
      }));
      expect(r.isError, allText(r)).toBe(true);
      expect(firstLine(r)).toMatch(/^\[sandbox\] Invalid arguments for/);
      expect(firstLine(r)).toContain(field);
      expect(totalRequests(fx.sb)).toBe(before);
    });
  }

  it('a "__proto__" key changes nothing: no prototype pollution, no hidden dry_run or route', async () => {
    // JSON.parse makes "__proto__" an own property, as a JSON-RPC message does. The SDK's
    // tools/call parsing drops such a key before the server sees it (see docs/robustness.md).
    const smuggle = (extra: object) =>
      JSON.parse(
        JSON.stringify(purchaseArgs("FUZZ-PROTO")).replace(/}$/, `,"__proto__":${JSON.stringify(extra)}}`),
      ) as Record<string, unknown>;
    const before = countOf(fx.sb, "POST /api/warehouse_entries_orders/WH-MAIN");
    const r = await call(
      "create_warehouse_entry",
      smuggle({ dry_run: true, warehouse_code: "../../oauth/token", polluted: "yes" }),
    );
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).dry_run).toBeUndefined();
    // Either refused by name, or handled exactly as the same call without the key.
    if (r.isError) {
      expect(firstLine(r)).toContain("__proto__");
      expect(countOf(fx.sb, "POST /api/warehouse_entries_orders/WH-MAIN")).toBe(before);
    } else {
      expect((r.structuredContent as { dry_run: boolean }).dry_run).toBe(false);
      expect(countOf(fx.sb, "POST /api/warehouse_entries_orders/WH-MAIN")).toBe(before + 1);
      expect(fx.sb.state.movements.filter((m) => m.movement.document === "FUZZ-PROTO")).toHaveLength(1);
    }
    expect(countOf(fx.sb, "POST /oauth/token")).toBeLessThanOrEqual(1);
  });

  it("a warehouse_code with a lone surrogate is a clear error naming warehouse_code", async () => {
    const before = totalRequests(fx.sb);
    const r = await call("create_warehouse_entry", {
      ...purchaseArgs("FUZZ-SURROGATE"),
      warehouse_code: "WH-\ud800",
      dry_run: true,
    });
    expect(r.isError).toBe(true);
    expect(firstLine(r)).not.toMatch(/Internal error/);
    expect(firstLine(r)).toContain("warehouse_code");
    expect(totalRequests(fx.sb)).toBe(before);
  });
});

// ---------- warehouse_code → exactly one path segment ----------

const PIECES = [
  "..",
  ".",
  "/",
  "?",
  "#",
  "%2F",
  "%2e%2e",
  "%",
  "\\",
  "ü",
  "😀",
  " ",
  "&",
  "=",
  "+",
  ";",
  "WH-MAIN",
];
const ROUTE = "/api/warehouse_entries_orders/";

const codes = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ unit: "grapheme-ascii", maxLength: 30 }),
  fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 8 }).map((p) => p.join("")),
  fc.constantFrom(...PIECES, "", "../x", "a/b", "..%2F..%2Fwo_budget", "WH-MAIN/../../oauth/token"),
);

describe("warehouse_code is always exactly one encoded path segment", () => {
  it("dry run: request.path is the route plus encodeURIComponent(code), or a clear local error", async () => {
    await check(codes, 600, async (code) => {
      const before = totalRequests(fx.sb);
      const r = await call("create_warehouse_entry", {
        ...purchaseArgs("FUZZ-PATH"),
        warehouse_code: code,
        dry_run: true,
      });
      expect(totalRequests(fx.sb)).toBe(before);
      if (code.trim() === "" || code.length > 100) {
        expect(r.isError).toBe(true);
        expect(firstLine(r)).toContain("warehouse_code");
        return;
      }
      if (code === "." || code === "..") {
        expect(r.isError).toBe(true);
        expect(firstLine(r)).toContain('warehouse_code: must be a warehouse code, not "." or ".."');
        return;
      }
      expect(r.isError, allText(r)).toBeFalsy();
      const path = (r.structuredContent as { request: { path: string } }).request.path;
      expect(path).toBe(`${ROUTE}${encodeURIComponent(code)}`);
      const segment = path.slice(ROUTE.length);
      expect(segment).not.toMatch(/[/?#]/);
      expect(decodeURIComponent(segment)).toBe(code);
    });
  });

  it("sent for real, hostile codes reach only the intended route (404 unknown warehouse)", async () => {
    const hostile = [
      "../x",
      "a/b",
      "?x=1",
      "#frag",
      "%2F",
      "ü",
      "..%2F..%2Fwo_budget",
      "WH-MAIN/../WH-NORTH",
      "...",
    ];
    const movements = fx.sb.state.movements.length;
    for (const code of hostile) {
      const key = `POST ${ROUTE}${encodeURIComponent(code)}`;
      const counts = { ...fx.sb.faults.requestCount };
      const r = await call("create_warehouse_entry", {
        ...purchaseArgs("FUZZ-HOSTILE"),
        warehouse_code: code,
      });
      expect(r.isError).toBe(true);
      expect(firstLine(r), code).toMatch(/\(404 NOT_FOUND\)/);
      expect(countOf(fx.sb, key)).toBe((counts[key] ?? 0) + 1);
      // No other route saw a request (the token endpoint may have been asked once).
      for (const [k, n] of Object.entries(fx.sb.faults.requestCount)) {
        if (k !== key && k !== "POST /oauth/token") expect(n, k).toBe(counts[k]);
      }
    }
    expect(fx.sb.state.movements.length).toBe(movements);
  });
});
