/**
 * The item lines of a warehouse entry: a total entry takes everything pending on the source;
 * otherwise every element of `items` is checked and every failing index is reported
 * (`{index, error}`, as api-spec §4.1 does for task resources).
 */
import type { IndexedError } from "../responses.js";
import type { Item, SandboxState, SourceLine, SourceMovement, Tax, Warehouse } from "../state.js";
import { isRecord, numeric } from "./common.js";

export type EntryKind = "PURCHASE" | "PURCHASE_ORDER" | "RETURN";

export interface PlannedLine {
  item: Item;
  qty: number;
  unitCost: number;
  tax: Tax;
  serials: string[];
  sourceLine?: SourceLine;
}

export type LinesResult =
  | { kind: "ok"; lines: PlannedLine[] }
  | { kind: "errors"; errors: IndexedError[] }
  | { kind: "error"; message: string };

const remainingSerials = (l: SourceLine) =>
  (l.serials ?? []).filter((s) => !(l.returnedSerials ?? []).includes(s));

function sourceName(source: SourceMovement): string {
  return source.kind === "PURCHASE_ORDER" ? `purchase order ${source.folio}` : `exit ${source.document}`;
}

export function checkLines(
  state: SandboxState,
  companyId: number,
  wh: Warehouse,
  kind: EntryKind,
  items: unknown[] | undefined,
  source: SourceMovement | undefined,
): LinesResult {
  const taxes = state.taxes.filter((t) => t.companyId === companyId);
  const company = state.companies.find((c) => c.id === companyId)!;
  const defaultTax = taxes.find((t) => t.name === company.defaultTaxName)!;
  const itemByCode = (code: string) => state.items.find((i) => i.companyId === companyId && i.code === code);

  if (items === undefined) {
    // Total entry from a purchase order or an exit: everything still pending.
    const src = source!;
    const pending = src.lines.filter((l) => l.qty - l.done > 0);
    if (pending.length === 0) {
      return {
        kind: "error",
        message: `The ${sourceName(src)} has nothing left to ${src.kind === "EXIT" ? "return" : "receive"}`,
      };
    }
    const serialPo = pending.find((l) => src.kind === "PURCHASE_ORDER" && itemByCode(l.itemCode)?.serial);
    if (serialPo) {
      return {
        kind: "error",
        message: `Item ${serialPo.itemCode} is serial-controlled: send items with serial_numbers (partial entry)`,
      };
    }
    return {
      kind: "ok",
      lines: pending.map((l) => ({
        item: itemByCode(l.itemCode)!,
        qty: l.qty - l.done,
        unitCost: l.unitCost,
        tax: taxes.find((t) => t.name === l.taxName) ?? defaultTax,
        serials: remainingSerials(l),
        sourceLine: l,
      })),
    };
  }

  const errors: IndexedError[] = [];
  const lines: PlannedLine[] = [];
  const seenCodes = new Map<string, number>();
  const seenSerials = new Set<string>();
  const check = (el: unknown, index: number): PlannedLine | string => {
    if (!isRecord(el)) return "item must be an object";
    const code = typeof el.code === "string" ? el.code.trim() : "";
    if (code === "") return "code is required";
    if (seenCodes.has(code)) return `item ${code} is repeated in this request (index ${seenCodes.get(code)})`;
    seenCodes.set(code, index);
    const item = itemByCode(code);
    if (!item) return `item ${code} does not exist`;
    if (!(code in wh.stock)) return `item ${code} is not associated with warehouse ${wh.code}`;
    if (el.qty === undefined || el.qty === null) return "qty is required";
    const qty = numeric(el.qty);
    if (qty === undefined || qty <= 0) return "qty must be a number greater than 0";
    if (item.serial && !Number.isInteger(qty))
      return `qty must be a whole number for serial-controlled item ${code}`;
    let sourceLine: SourceLine | undefined;
    if (source) {
      sourceLine = source.lines.find((l) => l.itemCode === code);
      if (!sourceLine) return `item ${code} is not on the ${sourceName(source)}`;
      const left = sourceLine.qty - sourceLine.done;
      if (qty > left) {
        const what = source.kind === "EXIT" ? "returnable" : "pending";
        return `qty ${qty} of item ${code} exceeds the ${what} quantity ${left} on the ${sourceName(source)}`;
      }
    }
    let unitCost: number;
    if (kind === "RETURN") {
      unitCost = sourceLine!.unitCost; // a return enters at the cost it left with
    } else if (el.unit_cost === undefined || el.unit_cost === null) {
      if (kind === "PURCHASE") return "unit_cost is required";
      unitCost = sourceLine!.unitCost;
    } else {
      const uc = numeric(el.unit_cost);
      if (uc === undefined || uc < 0) return "unit_cost must be a number of 0 or more";
      unitCost = uc;
    }
    let tax = sourceLine ? (taxes.find((t) => t.name === sourceLine.taxName) ?? defaultTax) : defaultTax;
    if (el.tax_name !== undefined && el.tax_name !== null) {
      const found = typeof el.tax_name === "string" ? taxes.find((t) => t.name === el.tax_name) : undefined;
      if (!found) return `tax_name ${JSON.stringify(el.tax_name)} does not exist`;
      tax = found;
    }
    const serials = el.serial_numbers;
    const hasSerials = Array.isArray(serials)
      ? serials.length > 0
      : serials !== undefined && serials !== null;
    if (!item.serial) {
      if (hasSerials) return `item ${code} is not serial-controlled: serial_numbers are not allowed`;
      return { item, qty, unitCost, tax, serials: [], sourceLine };
    }
    if (!Array.isArray(serials) || serials.length === 0)
      return `serial_numbers are required for item ${code}`;
    if (!serials.every((s) => typeof s === "string" && s.trim() !== ""))
      return "serial_numbers must be texts";
    if (serials.length !== qty) return `item ${code} needs ${qty} serial numbers, got ${serials.length}`;
    for (const s of serials as string[]) {
      if (seenSerials.has(s)) return `serial number ${s} is repeated`;
      seenSerials.add(s);
      if (kind === "RETURN") {
        if (!remainingSerials(sourceLine!).includes(s))
          return `serial number ${s} is not returnable on the ${sourceName(source!)}`;
      } else if (
        state.warehouses.some((w) => w.companyId === companyId && (w.serials[code] ?? []).includes(s))
      ) {
        return `serial number ${s} of item ${code} is already in stock`;
      }
    }
    return { item, qty, unitCost, tax, serials: [...(serials as string[])], sourceLine };
  };
  items.forEach((el, index) => {
    const r = check(el, index);
    if (typeof r === "string") errors.push({ index, error: r });
    else lines.push(r);
  });
  return errors.length > 0 ? { kind: "errors", errors } : { kind: "ok", lines };
}
