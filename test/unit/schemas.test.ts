import { describe, expect, it } from "vitest";
import {
  BudgetSchema,
  DagListSchema,
  parseOne,
  parsePage,
  parseWith,
  WarehouseGroup1Schema,
  WarehouseMovementSchema,
} from "../../src/client/schemas.js";
import { ApiError } from "../../src/errors/api-error.js";

const budget = {
  id: 22,
  id_company: "3",
  id_work_order: 9,
  folio: 22,
  id_currency: 1,
  date_create: "2019-05-07T14:15:24.607382+00:00",
  status: "2",
  discount: "12.50",
  list_items: null,
  custom_extra: { kept: true },
};

describe("lenient schemas", () => {
  it("accepts numbers as text, folio as number, null lists, missing nullables; keeps extra budget fields", () => {
    const page = parsePage(BudgetSchema, { success: true, message: "200", data: [budget], total: "1" });
    expect(page.total).toBe(1);
    const b = page.data[0]!;
    expect(b).toMatchObject({
      id_company: 3,
      folio: "22",
      status: 2,
      discount: 12.5,
      list_items: [],
      approved_by: null,
      custom_extra: { kept: true },
    });
  });

  it("turns data: null into an empty page and a single object into one element", () => {
    expect(parsePage(WarehouseGroup1Schema, { success: true, message: "200", data: null, total: 0 })).toEqual(
      { data: [], total: 0 },
    );
    const one = parsePage(BudgetSchema, { success: true, message: "200", data: budget });
    expect(one.data).toHaveLength(1);
    expect(one.total).toBe(1);
  });

  it("accepts booleans as text and 0/1", () => {
    const page = parsePage(WarehouseGroup1Schema, {
      success: true,
      data: [
        { id: 1, id_company: 1, description: "a", enabled: "false" },
        { id: 2, id_company: 1, description: "b", enabled: 1 },
      ],
    });
    expect(page.data.map((g) => g.enabled)).toEqual([false, true]);
  });

  it("normalises a warehouse movement (folio_target number → text, id_third_party kept)", () => {
    const m = parseOne(WarehouseMovementSchema, {
      success: true,
      message: "200",
      data: {
        id: 5,
        folio_target: 1001,
        date: "2024-05-01",
        description: null,
        document: "PO-1",
        id_third_party: "17",
        date_create: "2024-05-01T10:00:00+00:00",
        id_currency: "1",
        currency_description: "Peso",
        currency_symbol: "$",
        movements_states_description: "IN",
        movement_details: [
          {
            id_item: 3,
            items_description: "Bolt",
            code: "B-1",
            units_description: "pc",
            qty: "2",
            unit_cost: "1.25",
            total_cost: 2.5,
            tax_name: "VAT",
            tax_rate: "19",
          },
        ],
      },
      total: 1,
    });
    expect(m).toMatchObject({
      folio_target: "1001",
      id_third_party: "17",
      id_currency: 1,
      third_parties_name: null,
    });
    expect(m.movement_details[0]).toMatchObject({ qty: 2, unit_cost: 1.25, tax_rate: 19 });
  });

  it("defaults the DAG total to the list length", () => {
    expect(
      DagListSchema.parse({
        id_company: 12,
        dags: [{ dag_id: "u", description: "d", last_run: "2024-01-01" }],
      }),
    ).toEqual({
      id_company: "12",
      total: 1,
      dags: [{ dag_id: "u", description: "d", last_run: "2024-01-01" }],
    });
  });

  it("rejects a body that does not fit as BAD_RESPONSE with the zod path, never a ZodError", () => {
    let error: unknown;
    try {
      parsePage(
        BudgetSchema,
        { success: true, data: [{ ...budget, folio: { nested: true } }] },
        { method: "GET", path: "/api/wo_budget" },
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "BAD_RESPONSE", request: { method: "GET", path: "/api/wo_budget" } });
    expect((error as ApiError).message).toContain("data.0.folio");
    expect((error as ApiError).details).toMatchObject({ issues: [{ path: "data.0.folio" }] });
  });

  it("names the failing element of a list, not just the list", () => {
    const body = {
      id_company: "1",
      total: 2,
      dags: [{ dag_id: "a", description: "x", last_run: null }, { dag_id: {} }],
    };
    let error: unknown;
    try {
      parseWith(DagListSchema, body);
    } catch (e) {
      error = e;
    }
    expect((error as ApiError).message).toContain("dags.1.dag_id");
  });
});
