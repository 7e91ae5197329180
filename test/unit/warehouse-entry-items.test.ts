/**
 * itemErrors (src/domain/warehouse-entry.ts), the local checks of an entry's items that toEntryBody
 * runs before anything is sent; test/tools/create-warehouse-entry.test.ts runs them through the tool.
 */
import { describe, expect, it } from "vitest";
import { itemErrors } from "../../src/domain/warehouse-entry.js";

describe("itemErrors", () => {
  it("passes items that keep every rule", () => {
    const items = [
      { code: "SP-1", qty: 2, unit_cost: 10, serial_numbers: ["A", "B"] },
      { code: "SP-2", qty: 1.5, unit_cost: 3 },
    ];
    expect(itemErrors(items, true)).toEqual([]);
  });

  it("needs unit_cost on a new purchase only", () => {
    const items = [{ code: "SP-1", qty: 1 }];
    expect(itemErrors(items, true)).toEqual([
      { index: 0, error: "item SP-1: unit_cost is required on a new purchase" },
    ]);
    expect(itemErrors(items, false)).toEqual([]);
  });

  it("needs one serial per unit, none repeated within an item or across items", () => {
    const items = [
      { code: "SP-1", qty: 2, serial_numbers: ["A"] },
      { code: "SP-2", qty: 2, serial_numbers: ["B", "B"] },
      { code: "SP-3", qty: 1, serial_numbers: ["C"] },
      { code: "SP-4", qty: 1, serial_numbers: ["C"] },
      { code: "SP-5", qty: 1.5, serial_numbers: ["D"] },
    ];
    expect(itemErrors(items, false)).toEqual([
      { index: 0, error: "item SP-1: 1 serial number(s) for qty 2; send exactly one serial per unit" },
      { index: 1, error: "item SP-2: serial numbers repeat" },
      { index: 3, error: "item SP-4: serial number C is also on item 2; each unit once" },
      { index: 4, error: "item SP-5: 1 serial number(s) for qty 1.5; send exactly one serial per unit" },
    ]);
  });

  it("reports every failing item at once, in order", () => {
    const items = [
      { code: "SP-1", qty: 1 },
      { code: "SP-2", qty: 1, unit_cost: 1 },
      { code: "SP-3", qty: 1, serial_numbers: ["X", "Y"] },
    ];
    expect(itemErrors(items, true).map((e) => e.index)).toEqual([0, 2, 2]);
  });
});
