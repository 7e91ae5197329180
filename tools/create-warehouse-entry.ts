/** Tool `create_warehouse_entry`: POST warehouse_entries_orders/{code} (api-spec §4.3), with dry run and idempotency. */
import { z } from "zod";
import type { WarehouseEntryBody, WarehouseMovement } from "../src/client/types.js";
import { MOVEMENT_TYPE } from "../src/domain/labels.js";
import { currencyLabel, currencyOf, formatMoney } from "../src/domain/money.js";
import { quoted, quotedFields } from "../src/domain/prompt-text.js";
import { shown } from "../src/domain/upstream-text.js";
import {
  entryChecks,
  entryPlan,
  movementTotals,
  type ThirdPartyRole,
  taxLabel,
  thirdPartyRole,
  toEntryBody,
} from "../src/domain/warehouse-entry.js";
import { defineTool } from "./define.js";
import { checkKey, dryRunOutput, dryRunResult, dryRunText } from "./dry-run.js";
import { decimal, dryRun, idempotencyKey, note, text } from "./params.js";

const Item = z.strictObject({
  code: text(100),
  qty: decimal(z.number().positive()).describe("In the item's unit; < 10^12, 6 decimals."),
  unit_cost: decimal(z.number().min(0)).optional().describe("Required on a new purchase."),
  tax_name: text(100, "Default: company tax.").optional(),
  serial_numbers: z.array(text(200)).optional().describe("Serial items: one per unit."),
});

export const CreateWarehouseEntryInput = z.strictObject({
  // "." and ".." would name another route once in the path; apiPath refuses them too.
  warehouse_code: text(100, "Non-integrated warehouse.").refine((code) => code !== "." && code !== "..", {
    error: 'must be a warehouse code, not "." or ".."',
  }),
  movement_type: z.literal(["purchase", "return", 1, 2]).describe("purchase (1) or return (2)."),
  // Explained in the description (from an order or exit); a second text here would cost context.
  is_from_movement: z.boolean().optional(),
  document: text(200, "Order folio_target, exit document, or invoice ref."),
  code_user: text(100, "Responsible human resource (a user)."),
  code_supplier: text(100).optional(),
  value_cost_center: text(100).optional(),
  description_cost_center: text(200).optional(),
  note,
  items: z.array(Item).min(1).max(500).optional(),
  dry_run: dryRun,
  idempotency_key: idempotencyKey,
});

/** api-spec §2.2; every other field of the movement (movement_details included) comes along. */
const Movement = z.looseObject({ id: z.number(), folio_target: z.string() });

export const CreateWarehouseEntryOutput = z.object({
  dry_run: z.boolean(),
  ...dryRunOutput,
  movement: Movement.optional(),
  /** The role of movement.third_parties_name/code: supplier, or customer on a return; absent when it has none. */
  third_party_role: z.enum(["supplier", "customer"]).optional(),
  replayed: z.boolean().optional(),
});

const SCOPE = "create_warehouse_entry";
/** Names a kept result in one line (a dry run's replay, an oversized record). */
const entryName = (m: Pick<WarehouseMovement, "folio_target" | "id">) =>
  `entry ${shown(m.folio_target)} (id ${m.id})`;

/** Whether the movement names a third party at all (a return of an exit may have none). */
const hasThirdParty = (m: WarehouseMovement) => Boolean(m.third_parties_code || m.third_parties_name);

/** The movement as a plain record for structuredContent, with its ISO 4217 code (null when the name maps to none). */
const asRecord = (m: WarehouseMovement) => {
  const currency = currencyOf(m.currency_description);
  return {
    ...m,
    currency_code: currency.mapped ? currency.code : null,
    movement_details: m.movement_details.map((d) => ({ ...d })),
  };
};

type Input = z.output<typeof CreateWarehouseEntryInput>;

/**
 * The --confirm-writes question: quantities, costs and the target first, in the server's words; every
 * text the agent chose quoted on one line and cut (src/domain/prompt-text.ts).
 */
function summarize(input: Input, body: WarehouseEntryBody): string {
  const kind = MOVEMENT_TYPE[body.movement_type];
  const items = body.items
    ? body.items
        .map(
          (i) =>
            `${i.qty} x ${quoted(i.code)}${i.unit_cost === undefined ? "" : ` at unit cost ${i.unit_cost}`}${i.serial_numbers ? ` (${i.serial_numbers.length} serial numbers)` : ""}`,
        )
        .join(", ")
    : "every item still pending on the source document";
  const costs = body.items?.some((i) => i.unit_cost !== undefined)
    ? " (costs in the company's currency)"
    : "";
  const text = quotedFields([
    ["document", body.document],
    ["user", body.code_user],
    ["supplier", body.code_supplier],
    ["cost center", body.value_cost_center],
    ["cost center description", body.description_cost_center],
    ["note", body.note],
    ...(body.items ?? []).flatMap((i) => (i.tax_name === undefined ? [] : [["tax", i.tax_name] as const])),
  ]);
  return `Write now (not a dry run): ${items} into warehouse ${quoted(input.warehouse_code)} as a ${kind} entry${costs}. Text from the agent, quoted: ${text}.`;
}

/** "customer Andes Mining (CUS-001)": the third party by its role, never a customer called supplier. */
function party(m: WarehouseMovement, role: ThirdPartyRole | undefined): string {
  if (role === undefined) return "no third party";
  return `${role} ${m.third_parties_name ? shown(m.third_parties_name) : "(no name)"}${m.third_parties_code ? ` (${shown(m.third_parties_code)})` : ""}`;
}

export default defineTool({
  name: "create_warehouse_entry",
  title: "Register a warehouse stock entry",
  description: [
    "Register stock arriving in a warehouse: a new purchase, a receipt from a purchase order, or a return of an exit.",
    "Use this tool when goods arrive.",
    "From an order or exit: is_from_movement=true and its folio/document; omit items to receive all pending.",
    'Example: {"warehouse_code": "WH-MAIN", "movement_type": "purchase", "document": "INV-118", "code_user": "HR-001", "items": [{"code": "SP-1003", "qty": 4, "unit_cost": 12.5}]}',
  ].join("\n"),
  inputSchema: CreateWarehouseEntryInput,
  outputSchema: CreateWarehouseEntryOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  auditTarget: (input) => `warehouse ${input.warehouse_code} (document ${input.document})`,
  async handler(input, ctx) {
    const body = toEntryBody(input);
    // Throws on a path that is not one safe segment, before anything is sent.
    const request = ctx.api.prepareWarehouseEntry(input.warehouse_code, body);
    if (input.dry_run) {
      const key = await checkKey(ctx, SCOPE, input.idempotency_key, request, entryName);
      const checks = entryChecks(input.warehouse_code, body);
      // A third party comes from code_supplier or from the order or exit; a new purchase may have none.
      const named = body.code_supplier !== undefined || body.movement_type === "2" || body.is_from_movement;
      return {
        ...dryRunResult(request, entryPlan(input.warehouse_code, body), checks, key, ctx.confirmation()),
        ...(named ? { third_party_role: thirdPartyRole(body) } : {}),
      };
    }

    const write = async () => {
      await ctx.confirmWrite(summarize(input, body));
      return ctx.api.createWarehouseEntry(input.warehouse_code, body, { signal: ctx.signal });
    };
    const role = thirdPartyRole(body);
    const done = (m: WarehouseMovement, replayed?: boolean) => ({
      dry_run: false,
      movement: asRecord(m),
      ...(hasThirdParty(m) ? { third_party_role: role } : {}),
      ...(replayed === undefined ? {} : { replayed }),
    });
    if (input.idempotency_key === undefined) return done(await write());
    const { value, replayed } = await ctx.idempotency.run(
      SCOPE,
      input.idempotency_key,
      request,
      write,
      entryName,
    );
    return done(value, replayed);
  },
  toText(out) {
    if (out.dry_run) return dryRunText(out);
    const m = out.movement as WarehouseMovement | undefined;
    if (!m) return "No movement was returned.";
    const t = movementTotals(m.movement_details);
    // interface.md §6: an ISO code beside every amount, never the bare symbol the API sends.
    const currency = currencyOf(m.currency_description);
    const money = (n: number) => formatMoney(n, currency);
    const totals =
      t.basis === "before_tax"
        ? `total ${money(t.total)} before tax (tax ${money(t.tax ?? 0)} from the line rates)`
        : t.basis === "with_tax"
          ? `total ${money(t.total)} with tax (of which tax ${money(t.tax ?? 0)})`
          : `total ${money(t.total)} (the API does not say whether it includes tax)`;
    return [
      `${out.replayed ? "Already created earlier (idempotency_key replay, nothing new written)" : "Created"}: ${entryName(m)} ${shown(m.movements_states_description)} on ${shown(m.date)}, document ${shown(m.document)}${m.folio_source ? `, from ${shown(m.folio_source)}` : ""}; ${party(m, out.third_party_role)}; ${m.movement_details.length} item(s), ${totals}.`,
      ...m.movement_details.map(
        (d) =>
          `- ${shown(d.code)} ${shown(d.items_description)}: ${shown(d.qty)} ${shown(d.units_description)} x ${currencyLabel(currency)} ${shown(d.unit_cost)} (${shown(taxLabel(d.tax_name, d.tax_rate))})`,
      ),
    ].join("\n");
  },
});
