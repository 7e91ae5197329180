/**
 * POST /api/warehouse_entries_orders/{warehouse_code} (api-spec §4.3): new purchase, purchase
 * from a purchase order (total or partial), return of an exit (total or partial).
 * IMPORTANT: validation and the state update run synchronously (no await in between), so
 * parallel entries on the same source can never over-receive it.
 */

import { errorItem, indexed, ok, type Reply } from "../responses.js";
import { isoMicro, ymd } from "../seed-bulk.js";
import type { CostCenter, Movement, SandboxState, SourceMovement, ThirdParty } from "../state.js";
import { type Ctx, type Env, isRecord, numeric, parseBody, round2, round4 } from "./common.js";
import { checkLines, type EntryKind, type PlannedLine } from "./warehouse-lines.js";

interface Header {
  kind: EntryKind;
  document: string;
  note: string;
  supplier?: ThirdParty;
  costCenter?: CostCenter;
  items: unknown[] | undefined;
}

function text(v: unknown): string | undefined {
  if (typeof v === "string") return v.trim() === "" ? undefined : v.trim();
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return undefined;
}

/** Header-level checks; every problem is reported (as `[{ERROR}]` items). */
function checkHeader(state: SandboxState, companyId: number, b: Record<string, unknown>): Header | string[] {
  const errors: string[] = [];
  const mt = numeric(b.movement_type);
  if (b.movement_type === undefined || b.movement_type === null) errors.push("movement_type is required");
  else if (mt !== 1 && mt !== 2) errors.push("movement_type must be 1 (purchase) or 2 (return)");
  let fromMovement = false;
  const fm = b.is_from_movement;
  if (fm === true || fm === "true") fromMovement = true;
  else if (!(fm === undefined || fm === null || fm === false || fm === "false")) {
    errors.push("is_from_movement must be true or false");
  }
  const document = text(b.document);
  if (document === undefined) errors.push("document is required");
  const codeUser = text(b.code_user);
  if (codeUser === undefined) errors.push("code_user is required");
  else {
    const hr = state.humanResources.find((h) => h.companyId === companyId && h.code === codeUser);
    if (!hr) errors.push(`code_user ${codeUser} does not exist`);
    else if (hr.userAccount === null) errors.push(`code_user ${codeUser} has no user account`);
  }
  let supplier: ThirdParty | undefined;
  const codeSupplier = text(b.code_supplier);
  if (codeSupplier !== undefined) {
    supplier = state.thirdParties.find((t) => t.companyId === companyId && t.code === codeSupplier);
    if (!supplier) errors.push(`code_supplier ${codeSupplier} does not exist`);
    else if (!supplier.isSupplier) errors.push(`code_supplier ${codeSupplier} is not a supplier`);
  }
  const ccValue = text(b.value_cost_center);
  const ccDesc = text(b.description_cost_center);
  const centers = state.costCenters.filter((c) => c.companyId === companyId);
  const byValue = ccValue === undefined ? undefined : centers.find((c) => c.value === ccValue);
  const byDesc = ccDesc === undefined ? undefined : centers.find((c) => c.description === ccDesc);
  if (ccValue !== undefined && !byValue) errors.push(`value_cost_center ${ccValue} does not exist`);
  if (ccDesc !== undefined && !byDesc) errors.push(`description_cost_center ${ccDesc} does not exist`);
  if (byValue && byDesc && byValue.id !== byDesc.id) {
    errors.push("value_cost_center and description_cost_center name different cost centers");
  }
  const costCenter = byValue ?? byDesc;
  if (b.note !== undefined && b.note !== null && typeof b.note !== "string") errors.push("note must be text");
  const items = b.items;
  const itemsBad = items !== undefined && items !== null && !Array.isArray(items);
  if (itemsBad) errors.push("items must be an array");
  const kind: EntryKind = mt === 2 ? "RETURN" : fromMovement ? "PURCHASE_ORDER" : "PURCHASE";
  const list = Array.isArray(items) ? items : undefined;
  if (!itemsBad && kind === "PURCHASE" && (list === undefined || list.length === 0)) {
    errors.push("items is required for a new purchase (1 or more)");
  } else if (!itemsBad && list !== undefined && list.length === 0) {
    errors.push("items must not be empty (omit it for a total entry)");
  }
  if (errors.length > 0) return errors;
  return {
    kind,
    document: document!,
    note: typeof b.note === "string" ? b.note : "",
    supplier,
    costCenter,
    items: list,
  };
}

function findSource(state: SandboxState, companyId: number, h: Header): SourceMovement | undefined {
  if (h.kind === "PURCHASE_ORDER") {
    return state.sources.find(
      (s) => s.companyId === companyId && s.kind === "PURCHASE_ORDER" && s.folio === h.document,
    );
  }
  return state.sources.find(
    (s) => s.companyId === companyId && s.kind === "EXIT" && s.document === h.document,
  );
}

/** Apply the planned lines to stock, average costs and the source; build the movement. */
function apply(
  env: Env,
  companyId: number,
  warehouseCode: string,
  h: Header,
  lines: PlannedLine[],
  source?: SourceMovement,
): Movement {
  const state = env.state();
  const now = env.now();
  const company = state.companies.find((c) => c.id === companyId)!;
  const companyWarehouses = state.warehouses.filter((w) => w.companyId === companyId);
  const wh = companyWarehouses.find((w) => w.code === warehouseCode)!;
  for (const l of lines) {
    // Weighted average cost over the company's whole stock of the item.
    const stockBefore = companyWarehouses.reduce((sum, w) => sum + (w.stock[l.item.code] ?? 0), 0);
    const old = l.item.averageCost;
    l.item.averageCost =
      old === null || stockBefore <= 0
        ? l.unitCost
        : round4((stockBefore * old + l.qty * l.unitCost) / (stockBefore + l.qty));
    wh.stock[l.item.code] = (wh.stock[l.item.code] ?? 0) + l.qty;
    if (l.serials.length > 0) wh.serials[l.item.code] = [...(wh.serials[l.item.code] ?? []), ...l.serials];
    if (l.sourceLine) {
      l.sourceLine.done += l.qty;
      if (l.sourceLine.serials)
        l.sourceLine.returnedSerials = [...(l.sourceLine.returnedSerials ?? []), ...l.serials];
    }
  }
  const tp =
    h.supplier ??
    (source?.thirdPartyId ? state.thirdParties.find((t) => t.id === source.thirdPartyId) : undefined);
  const cc =
    h.costCenter ??
    (source?.costCenterId ? state.costCenters.find((c) => c.id === source.costCenterId) : undefined);
  const currency = state.currencies.find((c) => c.id === (source?.currencyId ?? company.defaultCurrencyId))!;
  state.counters.movement += 1;
  state.counters.movementFolio += 1;
  const movement: Movement = {
    id: state.counters.movement,
    // Upstream sends folio_target and the ids below as text (api-spec §2.2, upstream-notes).
    folio_target: String(state.counters.movementFolio),
    date: ymd(now),
    description: h.note,
    document: h.document,
    id_third_party: tp ? String(tp.id) : null,
    third_parties_name: tp?.name ?? "",
    third_parties_code: tp?.code ?? "",
    id_cost_center: cc ? String(cc.id) : null,
    costs_center_value: cc?.value ?? "",
    costs_center_description: cc?.description ?? "",
    folio_source: source?.folio ?? null,
    date_create: isoMicro(now),
    id_priority: null,
    priorities_description: null,
    id_currency: currency.id,
    currency_description: currency.description,
    currency_symbol: currency.symbol,
    movements_states_description: "IN",
    movement_details: lines.map((l) => ({
      id_item: l.item.id,
      items_description: l.item.description,
      code: l.item.code,
      units_description: l.item.unit,
      qty: l.qty,
      unit_cost: l.unitCost,
      total_cost: round2(l.qty * l.unitCost),
      tax_name: l.tax.name,
      tax_rate: l.tax.rate,
    })),
  };
  state.movements.push({ companyId, warehouseCode, movement });
  return movement;
}

export function createWarehouseEntry(env: Env) {
  return (ctx: Ctx): Reply => {
    const p = ctx.auth;
    if (!p.warehouseWrite)
      return errorItem(403, "The credential lacks permission to create warehouse entries");
    const state = env.state();
    const code = ctx.params.warehouse_code ?? "";
    const wh = state.warehouses.find((w) => w.companyId === p.companyId && w.code === code);
    if (!wh) return errorItem(404, `Warehouse ${code} does not exist`);
    if (wh.integrated) {
      return errorItem(
        422,
        `Warehouse ${code} is integrated with an external system: entries cannot be created here`,
      );
    }
    const body = parseBody(ctx);
    if (!body.ok) return body.reply;
    if (!isRecord(body.value)) return errorItem(422, "Request body must be a JSON object");
    const h = checkHeader(state, p.companyId, body.value);
    if (Array.isArray(h)) return errorItem(422, ...h);

    let source: SourceMovement | undefined;
    if (h.kind !== "PURCHASE") {
      source = findSource(state, p.companyId, h);
      const what = h.kind === "PURCHASE_ORDER" ? "Purchase order" : "Exit";
      if (!source) return errorItem(404, `${what} ${h.document} does not exist`);
      if (source.warehouseCode !== wh.code) {
        return errorItem(
          422,
          `${what} ${h.document} belongs to warehouse ${source.warehouseCode}, not ${wh.code}`,
        );
      }
    }
    const planned = checkLines(state, p.companyId, wh, h.kind, h.items, source);
    if (planned.kind === "errors") return indexed(planned.errors);
    if (planned.kind === "error") return errorItem(422, planned.message);
    const movement = apply(env, p.companyId, wh.code, h, planned.lines, source);
    env.changed();
    return ok(movement, 1, 200);
  };
}
