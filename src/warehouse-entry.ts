/**
 * Input of `create_warehouse_entry` → the wire body of api-spec §4.3, with the local checks
 * the API would otherwise answer after a round trip (items needed, serial count, unit cost).
 */
import type { WarehouseEntryBody } from "./client/types.js";
import { type IndexedError, UserInputError } from "./errors/api-error.js";

export interface EntryInput {
  movement_type: "purchase" | "return" | 1 | 2;
  is_from_movement?: boolean | undefined;
  document: string;
  code_user: string;
  code_supplier?: string | undefined;
  value_cost_center?: string | undefined;
  description_cost_center?: string | undefined;
  note?: string | undefined;
  items?:
    | {
        code: string;
        qty: number;
        unit_cost?: number | undefined;
        tax_name?: string | undefined;
        serial_numbers?: string[] | undefined;
      }[]
    | undefined;
}

/** Check the entry rules and build the body exactly as it will be sent. */
export function toEntryBody(input: EntryInput): WarehouseEntryBody {
  const movementType = input.movement_type === "purchase" || input.movement_type === 1 ? "1" : "2";
  const fromMovement = input.is_from_movement === true;
  const newPurchase = movementType === "1" && !fromMovement;

  // api-spec §4.3: items may be omitted only for a total entry from a purchase order or an exit.
  if (input.items === undefined && newPurchase) {
    throw new UserInputError(
      "items: required for a new purchase; omit items only for a total entry from a purchase order (is_from_movement=true) or a return of an exit",
      { field: "items" },
    );
  }
  const errors: IndexedError[] = [];
  for (const [index, item] of (input.items ?? []).entries()) {
    if (newPurchase && item.unit_cost === undefined) {
      errors.push({ index, error: `item ${item.code}: unit_cost is required on a new purchase` });
    }
    if (item.serial_numbers !== undefined) {
      if (!Number.isInteger(item.qty) || item.serial_numbers.length !== item.qty) {
        errors.push({
          index,
          error: `item ${item.code}: ${item.serial_numbers.length} serial number(s) for qty ${item.qty}; send exactly one serial per unit`,
        });
      } else if (new Set(item.serial_numbers).size !== item.serial_numbers.length) {
        errors.push({ index, error: `item ${item.code}: serial numbers repeat` });
      }
    }
  }
  if (errors.length > 0) {
    throw new UserInputError(`items: ${errors.map((e) => `[${e.index}] ${e.error}`).join("; ")}`, errors);
  }

  return {
    movement_type: movementType,
    is_from_movement: fromMovement,
    document: input.document,
    code_user: input.code_user,
    code_supplier: input.code_supplier,
    value_cost_center: input.value_cost_center,
    description_cost_center: input.description_cost_center,
    note: input.note,
    items: input.items?.map((i) => ({
      code: i.code,
      qty: String(i.qty),
      unit_cost: i.unit_cost,
      tax_name: i.tax_name,
      serial_numbers: i.serial_numbers,
    })),
  };
}
