/** Tool `create_warehouse_entry`: POST warehouse_entries_orders/{code} (api-spec §4.3), with dry run and idempotency. */
import { z } from "zod";
import type { WarehouseEntryBody } from "../src/client/types.js";
import { MOVEMENT_TYPE } from "../src/labels.js";
import { defineTool } from "../src/tool.js";
import { toEntryBody } from "../src/warehouse-entry.js";

const text = (max: number, what: string) => z.string().min(1).max(max).describe(what);

const Item = z.strictObject({
  code: text(
    100,
    "Item code (field `code` of the items query); the item must be associated with the warehouse.",
  ),
  qty: z.number().positive().max(1e9).describe("Quantity, > 0, in the item's unit."),
  unit_cost: z
    .number()
    .min(0)
    .optional()
    .describe(
      "Unit cost in the entry currency. Required on a new purchase; from a purchase order or exit it defaults to the source's cost.",
    ),
  tax_name: text(100, "Tax name; default: the company's default tax.").optional(),
  serial_numbers: z
    .array(text(200, "Serial number"))
    .optional()
    .describe("Only for serial-controlled items: exactly qty serials."),
});

export const CreateWarehouseEntryInput = z.strictObject({
  warehouse_code: text(100, "Code of a non-integrated warehouse (field `code` of the warehouses query)."),
  movement_type: z
    .union([z.enum(["purchase", "return"]), z.literal([1, 2])])
    .describe('"purchase" (1): stock bought; "return" (2): stock coming back from an exit.'),
  is_from_movement: z
    .boolean()
    .optional()
    .describe(
      "true: create from an existing purchase order or exit named by `document`. Default false (items entered manually).",
    ),
  document: text(
    200,
    "Reference. From a purchase order: its folio_target. A return: the exit's document. Otherwise free text (invoice number).",
  ),
  code_user: text(
    100,
    "Code of the responsible human resource (field `code` of the human resources query); that user needs an account.",
  ),
  code_supplier: text(
    100,
    "Supplier third-party code; from a movement it defaults to the source's supplier.",
  ).optional(),
  value_cost_center: text(
    100,
    "Cost center code (field `value`); or use description_cost_center.",
  ).optional(),
  description_cost_center: text(200, "Cost center description; alternative to value_cost_center.").optional(),
  note: z.string().max(2000).optional().describe("Notes of the entry."),
  items: z
    .array(Item)
    .min(1)
    .max(500)
    .optional()
    .describe(
      "Items entered. Omit only for a total entry from a movement (is_from_movement=true): everything pending is received.",
    ),
  dry_run: z
    .boolean()
    .optional()
    .describe("true: validate and return the exact request (method, path, body) without sending anything."),
  idempotency_key: text(
    200,
    "Any unique string; a retried call with the same key returns the first result instead of creating a second entry (kept 24 h).",
  ).optional(),
});

const MovementDetail = z.object({
  id_item: z.number(),
  items_description: z.string(),
  code: z.string(),
  units_description: z.string(),
  qty: z.number(),
  unit_cost: z.number(),
  total_cost: z.number(),
  tax_name: z.string(),
  tax_rate: z.number(),
});

const idLike = z.union([z.number(), z.string()]).nullable();
const Movement = z.object({
  id: z.number(),
  folio_target: z.string(),
  date: z.string(),
  description: z.string().nullable(),
  document: z.string(),
  id_third_party: idLike,
  third_parties_name: z.string().nullable(),
  third_parties_code: z.string().nullable(),
  id_cost_center: idLike,
  costs_center_value: z.string().nullable(),
  costs_center_description: z.string().nullable(),
  folio_source: z.string().nullable(),
  date_create: z.string(),
  id_priority: z.string().nullable(),
  priorities_description: z.string().nullable(),
  id_currency: z.number(),
  currency_description: z.string(),
  currency_symbol: z.string(),
  movements_states_description: z.string(),
  movement_details: z.array(MovementDetail),
});

export const CreateWarehouseEntryOutput = z.object({
  dry_run: z.boolean(),
  request: z
    .object({ method: z.string(), path: z.string(), body: z.unknown().optional() })
    .optional()
    .describe("Dry run only: the exact request that would be sent."),
  movement: Movement.optional().describe("The created movement (absent on a dry run)."),
  replayed: z
    .boolean()
    .optional()
    .describe("true when idempotency_key matched an earlier call: nothing new was written."),
});

type Input = z.output<typeof CreateWarehouseEntryInput>;

function summarize(input: Input, body: WarehouseEntryBody): string {
  const kind = MOVEMENT_TYPE[body.movement_type];
  const items = body.items
    ? body.items
        .map((i) => `${i.code} x${i.qty}${i.unit_cost === undefined ? "" : ` @ ${i.unit_cost}`}`)
        .join(", ")
    : "everything pending on the source";
  return `Create a ${kind} entry in warehouse ${input.warehouse_code} (document ${body.document}, user ${body.code_user}): ${items}.`;
}

export default defineTool({
  name: "create_warehouse_entry",
  title: "Register a warehouse stock entry",
  description: [
    "Register stock coming into a non-integrated warehouse: a new purchase, a receipt from a purchase order (total or partial), or a return of an exit (total or partial).",
    "Use this tool when goods arrive. It adds stock and never overwrites; use dry_run first when unsure, and an idempotency_key so a retry cannot enter the goods twice.",
    'movement_type: "purchase" (1) or "return" (2). From a purchase order: is_from_movement=true and document=the order folio_target. A return: movement_type "return", is_from_movement=true, document=the exit document.',
    "Omit items for a total entry from a movement; list code+qty for a partial one. qty is in the item's unit; unit_cost in the entry currency (required on a new purchase). Supplier, cost center and currency come from the source movement unless given.",
    'Example: {"warehouse_code": "WH-MAIN", "movement_type": "purchase", "document": "INV-2024-118", "code_user": "HR-001", "code_supplier": "SUP-01", "items": [{"code": "SP-100", "qty": 4, "unit_cost": 12.5}], "idempotency_key": "inv-2024-118"}',
  ].join("\n"),
  inputSchema: CreateWarehouseEntryInput,
  outputSchema: CreateWarehouseEntryOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  auditTarget: (input) => `warehouse ${input.warehouse_code} (document ${input.document})`,
  async handler(input, ctx) {
    const body = toEntryBody(input);
    // Throws on a path that is not one safe segment, before anything is sent.
    const request = ctx.api.prepareWarehouseEntry(input.warehouse_code, body);
    if (input.dry_run) return { dry_run: true, request };

    const write = async () => {
      await ctx.confirmWrite(summarize(input, body));
      return ctx.api.createWarehouseEntry(input.warehouse_code, body, { signal: ctx.signal });
    };
    if (input.idempotency_key === undefined) return { dry_run: false, movement: await write() };
    const { value, replayed } = await ctx.idempotency.run(
      "create_warehouse_entry",
      input.idempotency_key,
      JSON.stringify(request),
      write,
    );
    return { dry_run: false, movement: value, replayed };
  },
  toText(out) {
    if (out.request) {
      return `Dry run, nothing sent. Would send ${out.request.method} ${out.request.path} with body ${JSON.stringify(out.request.body)}`;
    }
    const m = out.movement;
    if (!m) return "No movement was returned.";
    const total = m.movement_details.reduce((sum, d) => sum + d.total_cost, 0);
    return [
      `${out.replayed ? "Already created earlier (idempotency_key replay, nothing new written)" : "Created"}: entry ${m.folio_target} (id ${m.id}) ${m.movements_states_description} on ${m.date}, document ${m.document}${m.folio_source ? `, from ${m.folio_source}` : ""}; supplier ${m.third_parties_name ?? "-"}; ${m.movement_details.length} item(s), total ${m.currency_symbol}${total.toFixed(2)} ${m.currency_description}.`,
      ...m.movement_details.map(
        (d) =>
          `- ${d.code} ${d.items_description}: ${d.qty} ${d.units_description} x ${d.unit_cost} (${d.tax_name} ${d.tax_rate}%)`,
      ),
    ].join("\n");
  },
});
