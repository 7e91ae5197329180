/** Tool `add_task_resources`: POST group_tasks/{id}/tasks/{id}/resources (api-spec §4.1). */
import { z } from "zod";
import type { TaskResourceInput } from "../src/client/types.js";
import { UserInputError } from "../src/errors/api-error.js";
import { defineTool } from "../src/tool.js";
import { positiveId } from "./params.js";

const note = z.string().max(2000).optional().describe("Optional note stored on the resource.");

const Resource = z.discriminatedUnion("type_description", [
  z.strictObject({
    type_description: z.literal("INVENTORY"),
    id_item: positiveId("Inventory item id; the item must be a tool or a spare part."),
    note,
  }),
  z.strictObject({
    type_description: z.literal("HUMAN_RESOURCES"),
    id_hourly_rate: positiveId("Hourly rate id (labour)."),
    note,
  }),
  z.strictObject({
    type_description: z.literal("SERVICES"),
    id_service_type: positiveId("Service type id."),
    note,
  }),
]);

export const AddTaskResourcesInput = z.strictObject({
  id_group_task: positiveId("Task plan id."),
  id_task: positiveId("Task id; must belong to the plan id_group_task."),
  resources: z
    .array(Resource)
    .min(1)
    .max(50)
    .describe("1 to 50 resources; each reference at most once per task."),
});

const CreatedResource = z.object({
  id: z.number().int(),
  type_description: z.enum(["INVENTORY", "HUMAN_RESOURCES", "SERVICES"]),
  quantity: z.number().describe("Always 1: the API fixes the quantity of task resources."),
  unit_cost: z
    .number()
    .describe("Taken from the source record (item average cost, hourly rate, service cost); 0 when none."),
  id_item: z.number().int().optional(),
  id_hourly_rate: z.number().int().optional(),
  id_service_type: z.number().int().optional(),
  note: z.string().nullable().optional(),
});

export const AddTaskResourcesOutput = z.object({
  id_group_task: z.number().int(),
  id_task: z.number().int(),
  total: z.number().int().describe("Resources created."),
  resources: z.array(CreatedResource).describe("Created resources, in request order."),
});

function reference(r: TaskResourceInput): string {
  switch (r.type_description) {
    case "INVENTORY":
      return `id_item ${r.id_item}`;
    case "HUMAN_RESOURCES":
      return `id_hourly_rate ${r.id_hourly_rate}`;
    case "SERVICES":
      return `id_service_type ${r.id_service_type}`;
  }
}

/** The API rejects the same resource twice in one request (§4.1 rule 3): say so before calling. */
function rejectDuplicates(resources: TaskResourceInput[]): void {
  const firstSeen = new Map<string, number>();
  const errors: { index: number; error: string }[] = [];
  resources.forEach((r, index) => {
    const key = `${r.type_description} ${reference(r)}`;
    const first = firstSeen.get(key);
    if (first === undefined) firstSeen.set(key, index);
    else errors.push({ index, error: `duplicate of resource ${first} (${key})` });
  });
  if (errors.length > 0) {
    throw new UserInputError(
      `resources: ${errors.map((e) => `[${e.index}] ${e.error}`).join("; ")}; send each resource once`,
      errors,
    );
  }
}

export default defineTool({
  name: "add_task_resources",
  title: "Add resources to a task-plan task",
  description: [
    "Add inventory items (tools, spare parts), labour (hourly rates) or services to a task of a maintenance task plan.",
    "Use this tool when planning what a task will need. All-or-nothing: if any resource is invalid, none is added and every failing index is reported.",
    "type_description: INVENTORY needs id_item (a tool or spare part), HUMAN_RESOURCES needs id_hourly_rate, SERVICES needs id_service_type.",
    "Quantity is always 1 and unit_cost comes from the source record (0 when it has none); a resource already on the task is rejected.",
    'Example: {"id_group_task": 1, "id_task": 101, "resources": [{"type_description": "INVENTORY", "id_item": 2001}, {"type_description": "SERVICES", "id_service_type": 5, "note": "external"}]}',
  ].join("\n"),
  inputSchema: AddTaskResourcesInput,
  outputSchema: AddTaskResourcesOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  auditTarget: (input) =>
    `plan ${input.id_group_task} / task ${input.id_task} (${input.resources.length} resources)`,
  async handler(input, ctx) {
    rejectDuplicates(input.resources);
    await ctx.confirmWrite(
      `Add ${input.resources.length} resource(s) to task ${input.id_task} of task plan ${input.id_group_task}: ${input.resources
        .map((r) => `${r.type_description} ${reference(r)}`)
        .join(", ")}.`,
    );
    const created = await ctx.api.addTaskResources(input.id_group_task, input.id_task, input.resources, {
      signal: ctx.signal,
    });
    return {
      id_group_task: input.id_group_task,
      id_task: input.id_task,
      total: created.length,
      resources: created,
    };
  },
  toText: (out) =>
    [
      `Added ${out.total} resource(s) to task ${out.id_task} of plan ${out.id_group_task} (quantity 1 each):`,
      ...out.resources.map(
        (r) =>
          `- #${r.id} ${r.type_description} ${r.id_item ?? r.id_hourly_rate ?? r.id_service_type} unit_cost ${r.unit_cost}`,
      ),
    ].join("\n"),
});
