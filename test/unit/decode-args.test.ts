import { describe, expect, it } from "vitest";
import { z } from "zod";
import { decodeArgs } from "../../src/mcp/decode-args.js";
import { AddTaskResourcesInput } from "../../tools/add-task-resources.js";
import { CreateWarehouseEntryInput } from "../../tools/create-warehouse-entry.js";
import { QueryBudgetsInput } from "../../tools/query-budgets.js";

const schemaOf = (s: z.ZodType) => z.toJSONSchema(s, { io: "input", target: "draft-7" }) as never;

describe("decodeArgs", () => {
  it("decodes nested arguments sent as JSON strings, and numbers sent as strings", () => {
    const args = {
      id_group_task: "1",
      id_task: 101,
      resources:
        '[{"type_description":"INVENTORY","id_item":"2001"},{"type_description":"SERVICES","id_service_type":5}]',
    };
    const decoded = decodeArgs(args, schemaOf(AddTaskResourcesInput));
    expect(AddTaskResourcesInput.parse(decoded)).toEqual({
      id_group_task: 1,
      id_task: 101,
      resources: [
        { type_description: "INVENTORY", id_item: 2001 },
        { type_description: "SERVICES", id_service_type: 5 },
      ],
    });
  });

  it("decodes booleans and numeric union members, keeps strings that are strings", () => {
    const decoded = decodeArgs(
      {
        warehouse_code: "123",
        movement_type: "2",
        document: "42",
        code_user: "U1",
        is_from_movement: "true",
        items: '[{"code":"7","qty":"3"}]',
      },
      schemaOf(CreateWarehouseEntryInput),
    );
    expect(decoded).toEqual({
      warehouse_code: "123",
      movement_type: 2,
      document: "42",
      code_user: "U1",
      is_from_movement: true,
      items: [{ code: "7", qty: 3 }],
    });
  });

  it("leaves undecodable values for the validator", () => {
    const decoded = decodeArgs(
      { limit: "ten", status: "pending", resources: "[not json" },
      schemaOf(QueryBudgetsInput),
    );
    expect(decoded).toEqual({ limit: "ten", status: "pending", resources: "[not json" });
    expect(QueryBudgetsInput.safeParse(decoded).success).toBe(false);
  });

  it("leaves text that only looks like JSON as text, without recursing", () => {
    const schema = schemaOf(AddTaskResourcesInput);
    expect(decodeArgs({ resources: "[garbage" }, schema)).toEqual({ resources: "[garbage" });
    expect(decodeArgs({ resources: '"[1]"' }, schema)).toEqual({ resources: '"[1]"' });
    expect(decodeArgs({ resources: [" {oops"] }, schema)).toEqual({ resources: [" {oops"] });
  });

  it("turns a prototype smuggled in as __proto__ back into a key the strict schema refuses", () => {
    const args = Object.assign(Object.create({ dry_run: true }), { warehouse_code: "WH" });
    const decoded = decodeArgs(args, schemaOf(CreateWarehouseEntryInput)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(Object.hasOwn(decoded, "__proto__")).toBe(true);
    const parsed = CreateWarehouseEntryInput.safeParse(decoded);
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain("__proto__");
  });

  it("reads a whole number as its digits where only text is expected (folios, codes), nothing else", () => {
    const schema = schemaOf(QueryBudgetsInput);
    expect(decodeArgs({ id: 109, wo_folio: 4001, cost_center: 701 }, schema)).toEqual({
      id: "109",
      wo_folio: "4001",
      cost_center: "701",
    });
    // Numbers stay numbers where the schema takes them, and odd numbers stay for the validator.
    expect(decodeArgs({ status: 1, limit: 5, min_total: 10 }, schema)).toEqual({
      status: 1,
      limit: 5,
      min_total: 10,
    });
    expect(decodeArgs({ id: -3, wo_folio: 1.5 }, schema)).toEqual({ id: -3, wo_folio: 1.5 });
  });
});
