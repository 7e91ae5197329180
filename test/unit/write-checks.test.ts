/**
 * What a writer's dry run says it checked and could not check, the third party's role by entry
 * kind, and the state rules of list_warehouse_groups_1: pure functions, table-driven.
 */
import { describe, expect, it } from "vitest";
import type { WarehouseEntryBody } from "../../src/client/types.js";
import { byState, resolveState } from "../../src/domain/classifications.js";
import { taskResourceChecks } from "../../src/domain/task-resources.js";
import { entryChecks, entryPlan, thirdPartyRole, toEntryBody } from "../../src/domain/warehouse-entry.js";
import { UserInputError } from "../../src/errors/api-error.js";

const base = { document: "D-1", code_user: "HR-001" };
const body = (patch: Partial<WarehouseEntryBody>): WarehouseEntryBody => ({
  movement_type: "1",
  is_from_movement: false,
  ...base,
  ...patch,
});

describe("warehouse entry: plan and third party by kind", () => {
  it.each([
    [
      "new purchase with a supplier",
      body({ code_supplier: "SUP-1", items: [{ code: "A", qty: "1", unit_cost: 1 }] }),
      "supplier",
      "create a new purchase of 1 item into warehouse W; third party: supplier SUP-1",
    ],
    [
      "new purchase without one",
      body({ items: [{ code: "A", qty: "1", unit_cost: 1 }] }),
      "supplier",
      "create a new purchase of 1 item into warehouse W; third party: none (no code_supplier)",
    ],
    [
      "total receipt of an order",
      body({ is_from_movement: true, document: "5001" }),
      "supplier",
      "create a receipt of purchase order 5001 into warehouse W, total (all still pending); third party: the order's supplier",
    ],
    [
      "total return of an exit",
      body({ movement_type: "2", document: "EX-1" }),
      "customer",
      "create a return of exit EX-1 into warehouse W, total (all not yet returned); third party: the exit's customer",
    ],
    [
      "partial return with code_supplier",
      body({
        movement_type: "2",
        document: "EX-1",
        code_supplier: "SUP-2",
        items: [{ code: "A", qty: "2" }],
      }),
      "supplier",
      "create a return of exit EX-1 into warehouse W, partial (1 item); third party: supplier SUP-2 (in place of the source's)",
    ],
  ] as const)("%s", (_, b, role, plan) => {
    expect(thirdPartyRole(b)).toBe(role);
    expect(entryPlan("W", b)).toBe(plan);
  });

  it("lists every upstream-only fact the body touches, and only those", () => {
    const checks = entryChecks(
      "W",
      body({
        is_from_movement: true,
        document: "5001",
        code_supplier: "SUP-2",
        value_cost_center: "CC-1",
        description_cost_center: "Ops",
        items: [
          { code: "A", qty: "1", tax_name: "IVA 19%" },
          { code: "B", qty: "1", serial_numbers: ["S1"] },
        ],
      }),
    );
    expect(checks).toEqual({
      checked: [
        "document and code_user given",
        "warehouse_code W is one path segment",
        "2 items: qty above 0, at most 6 decimals",
        "one serial number per unit, none twice",
      ],
      not_checked: [
        "warehouse W exists and is not integrated, and has A, B",
        "purchase order 5001 is for W and has A, B still pending, in that quantity",
        "user HR-001 exists and has a user account",
        "SUP-2 exists and is a supplier",
        "cost center CC-1 / Ops exists (both name the same one)",
        "tax IVA 19% exists",
        "the serial numbers fit their items",
        "the credential may create warehouse entries",
      ],
    });
  });

  it("refuses one serial number under two items, naming both", () => {
    expect(() =>
      toEntryBody({
        movement_type: "return",
        ...base,
        items: [
          { code: "A", qty: 1, serial_numbers: ["S1"] },
          { code: "B", qty: 2, serial_numbers: ["S2", "S1"] },
        ],
      }),
    ).toThrow(/\[1\] item B: serial number S1 is also on item 0; each unit once/);
  });
});

describe("task resources: what only the API can judge", () => {
  it("groups the references by kind, in request order", () => {
    expect(
      taskResourceChecks(1, 101, [
        { type_description: "SERVICES", id_service_type: 31 },
        { type_description: "INVENTORY", id_item: 1001 },
        { type_description: "SERVICES", id_service_type: 33 },
      ]).not_checked,
    ).toEqual([
      "task plan 1 exists and task 101 is in it",
      "id_item 1001 is a tool or spare part",
      "id_service_type 31, 33 exist",
      "none is on the task already",
      "the credential may edit task plans and the company has the advanced-APIs add-on",
    ]);
  });
});

describe("list_warehouse_groups_1: state", () => {
  it.each([
    [{}, { state: "enabled", walk: false }],
    [
      { state: "enabled", all: true },
      { state: "enabled", walk: false },
    ],
    [{ state: "disabled" }, { state: "disabled", walk: true }],
    [
      { state: "all", all: true, only_enabled: false },
      { state: "all", walk: true },
    ],
    [
      { only_enabled: false, limit: 10 },
      { state: "all", walk: false },
    ],
    [{ only_enabled: true }, { state: "enabled", walk: false }],
  ] as const)("%j resolves to %j", (input, expected) => {
    expect(resolveState(input)).toEqual(expected);
  });

  it.each([
    [{ only_enabled: true, state: "all" }, /only_enabled=true .* send state alone/],
    [{ only_enabled: false, state: "enabled" }, /only_enabled=false .* send state alone/],
    [{ state: "disabled", limit: 5 }, /limit does not apply to state="disabled"/],
    [{ state: "disabled", all: false }, /drop all=false/],
  ] as const)("%j is refused", (input, message) => {
    expect(() => resolveState(input)).toThrow(UserInputError);
    expect(() => resolveState(input)).toThrow(message);
  });

  it("sorts by id and counts both kinds", () => {
    const g = (id: number, enabled: boolean) => ({ id, id_company: 1, description: `G${id}`, enabled });
    const read = [g(3, false), g(1, true), g(2, false)];
    expect(byState(read, "disabled")).toEqual({
      groups: [g(2, false), g(3, false)],
      enabled: 1,
      disabled: 2,
    });
    expect(byState(read, "all").groups.map((x) => x.id)).toEqual([1, 2, 3]);
  });
});
