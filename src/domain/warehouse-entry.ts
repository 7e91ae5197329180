/**
 * Input of `create_warehouse_entry` → the wire body of api-spec §4.3, with the local checks
 * the API would otherwise answer after a round trip (items needed, serial count, unit cost),
 * and the reading of a returned movement's totals and taxes.
 */
import type { MovementDetail, WarehouseEntryBody } from "../client/types.js";
import { type IndexedError, UserInputError } from "../errors/api-error.js";
import { plainDecimal } from "./plain-decimal.js";

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
      // api-spec §4.3: qty is text; a plain decimal, never "1e-7" (bounds: src/domain/plain-decimal.ts).
      qty: plainDecimal(i.qty),
      unit_cost: i.unit_cost,
      tax_name: i.tax_name,
      serial_numbers: i.serial_numbers,
    })),
  };
}

/** "IVA 19%" for tax_name "IVA 19%" and tax_rate 19 (the name often carries the rate already). */
export function taxLabel(name: string, rate: number): string {
  const percent = `${plainDecimal(rate)}%`;
  return name.replace(/\s+/g, "").includes(percent) ? name : `${name} ${percent}`.trim();
}

export interface MovementTotals {
  /** Sum of the lines' total_cost as the API sent them. */
  total: number;
  /** Whether total_cost is qty x unit_cost ("before_tax"), that plus the line's tax ("with_tax"), or neither. */
  basis: "before_tax" | "with_tax" | "unknown";
  /** Tax from the lines' tax_rate, when the basis is known. */
  tax: number | undefined;
}

const near = (a: number, b: number) => Math.abs(a - b) <= 0.01 + 1e-9 * Math.abs(b);
const cents = (n: number) => Math.round(n * 100) / 100;

/**
 * Totals of a movement. api-spec §2.2 gives qty, unit_cost, total_cost and tax_rate per line but
 * does not say whether total_cost includes tax: each line is checked against both readings.
 */
export function movementTotals(details: readonly MovementDetail[]): MovementTotals {
  const total = cents(details.reduce((sum, d) => sum + d.total_cost, 0));
  const net = (d: MovementDetail) => d.qty * d.unit_cost;
  if (details.every((d) => near(d.total_cost, net(d)))) {
    return {
      total,
      basis: "before_tax",
      tax: cents(details.reduce((s, d) => s + (net(d) * d.tax_rate) / 100, 0)),
    };
  }
  if (details.every((d) => near(d.total_cost, net(d) * (1 + d.tax_rate / 100)))) {
    return {
      total,
      basis: "with_tax",
      tax: cents(details.reduce((s, d) => s + d.total_cost - d.total_cost / (1 + d.tax_rate / 100), 0)),
    };
  }
  return { total, basis: "unknown", tax: undefined };
}
