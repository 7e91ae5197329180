/**
 * Input of `create_warehouse_entry` → the wire body of api-spec §4.3, with the local checks
 * the API would otherwise answer after a round trip (items needed, serial count, unit cost),
 * what a dry run could and could not check, the role of the entry's third party, and the
 * reading of a returned movement's totals and taxes.
 */
import type { MovementDetail, WarehouseEntryBody } from "../client/types.js";
import { type IndexedError, UserInputError } from "../errors/api-error.js";
import { ENTRY_THIRD_PARTY_ROLE } from "./labels.js";
import { plainDecimal } from "./plain-decimal.js";
import type { WriteChecks } from "./write-checks.js";

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
  const errors = itemErrors(input.items ?? [], newPurchase);
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

/**
 * The items' local checks, each failure in the API's `{index, error}` shape: unit_cost on a new
 * purchase, one serial per unit, no serial twice in the entry.
 */
export function itemErrors(items: NonNullable<EntryInput["items"]>, newPurchase: boolean): IndexedError[] {
  const errors: IndexedError[] = [];
  // A serial number names one unit: it cannot arrive twice in one entry, even under two items.
  const serialAt = new Map<string, number>();
  for (const [index, item] of items.entries()) {
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
      } else {
        const taken = item.serial_numbers.find((sn) => serialAt.has(sn));
        if (taken !== undefined) {
          errors.push({
            index,
            error: `item ${item.code}: serial number ${taken} is also on item ${serialAt.get(taken)}; each unit once`,
          });
        }
        for (const sn of item.serial_numbers) if (!serialAt.has(sn)) serialAt.set(sn, index);
      }
    }
  }
  return errors;
}

export type ThirdPartyRole = "supplier" | "customer";

/**
 * The role of the entry's third party: the supplier of a purchase; on a return, the customer of
 * the exit, unless code_supplier names a supplier in its place (api-spec §4.3 rule 4).
 */
export function thirdPartyRole(body: WarehouseEntryBody): ThirdPartyRole {
  return body.code_supplier === undefined ? ENTRY_THIRD_PARTY_ROLE[body.movement_type] : "supplier";
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** The source a body points at: "purchase order 5001", "exit EX-7001", or none (a new purchase). */
function sourceOf(body: WarehouseEntryBody): string | undefined {
  if (body.movement_type === "2") return `exit ${body.document}`;
  return body.is_from_movement ? `purchase order ${body.document}` : undefined;
}

/** Who the entry's third party will be, with its role. */
function partyOf(body: WarehouseEntryBody): string {
  if (body.code_supplier !== undefined) {
    return `supplier ${body.code_supplier}${sourceOf(body) ? " (in place of the source's)" : ""}`;
  }
  if (body.movement_type === "2") return "the exit's customer";
  return body.is_from_movement ? "the order's supplier" : "none (no code_supplier)";
}

/** What the real call would do, as a verb phrase: kind, source, total or partial, and its third party by role. */
export function entryPlan(warehouseCode: string, body: WarehouseEntryBody): string {
  const source = sourceOf(body);
  const items = body.items ? count(body.items.length, "item") : undefined;
  const party = `third party: ${partyOf(body)}`;
  if (source === undefined)
    return `create a new purchase of ${items} into warehouse ${warehouseCode}; ${party}`;
  const isReturn = body.movement_type === "2";
  const extent = items
    ? `partial (${items})`
    : `total (all ${isReturn ? "not yet returned" : "still pending"})`;
  return `create ${isReturn ? "a return" : "a receipt"} of ${source} into warehouse ${warehouseCode}, ${extent}; ${party}`;
}

/** "exit EX-7001 is from WH-MAIN and has TL-1001 not yet returned, in that quantity". */
function sourceRule(source: string, warehouseCode: string, codes: string[]): string {
  const exit = source.startsWith("exit");
  const where = `${source} is ${exit ? "from" : "for"} ${warehouseCode}`;
  const left = exit ? "not yet returned" : "still pending";
  return codes.length === 0
    ? `${where} and has items ${left}`
    : `${where} and has ${codes.join(", ")} ${left}, in that quantity`;
}

/** What a dry run of this body checked here (it passed toEntryBody), and what only the API can judge. */
export function entryChecks(warehouseCode: string, body: WarehouseEntryBody): WriteChecks {
  const items = body.items ?? [];
  const source = sourceOf(body);
  const checked = ["document and code_user given", `warehouse_code ${warehouseCode} is one path segment`];
  if (source === undefined) checked.push("items given, each with unit_cost (a new purchase)");
  if (items.length > 0) checked.push(`${count(items.length, "item")}: qty above 0, at most 6 decimals`);
  const serials = items.some((i) => i.serial_numbers !== undefined);
  if (serials) checked.push("one serial number per unit, none twice");

  const codes = items.map((i) => i.code);
  const taxes = [...new Set(items.flatMap((i) => (i.tax_name === undefined ? [] : [i.tax_name])))];
  const center = [body.value_cost_center, body.description_cost_center].filter((c) => c !== undefined);
  const notChecked = [
    `warehouse ${warehouseCode} exists and is not integrated${codes.length > 0 ? `, and has ${codes.join(", ")}` : ""}`,
    ...(source === undefined ? [] : [sourceRule(source, warehouseCode, codes)]),
    `user ${body.code_user} exists and has a user account`,
    ...(body.code_supplier === undefined ? [] : [`${body.code_supplier} exists and is a supplier`]),
    ...(center.length === 0
      ? []
      : [
          `cost center ${center.join(" / ")} exists${center.length === 2 ? " (both name the same one)" : ""}`,
        ]),
    ...(taxes.length === 0 ? [] : [`tax ${taxes.join(", ")} exists`]),
    ...(serials ? ["the serial numbers fit their items"] : []),
    "the credential may create warehouse entries",
  ];
  return { checked, not_checked: notChecked };
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
