/** Tool `add_task_resources`: POST group_tasks/{id}/tasks/{id}/resources (api-spec §4.1). */
import { z } from "zod";
import type { TaskResourceInput } from "../src/client/types.js";
import { UserInputError } from "../src/errors/api-error.js";
import { defineTool } from "../src/tool.js";
import { positiveId } from "./params.js";

const note = z.string().max(2000).optional();

const Resource = z.discriminatedUnion("type_description", [
  z.strictObject({
    type_description: z.literal("INVENTORY"),
    id_item: positiveId("A tool or spare part."),
    note,
  }),
  z.strictObject({
    type_description: z.literal("HUMAN_RESOURCES"),
    id_hourly_rate: positiveId(),
    note,
  }),
  z.strictObject({
    type_description: z.literal("SERVICES"),
    id_service_type: positiveId(),
    note,
  }),
]);

export const AddTaskResourcesInput = z.strictObject({
  id_group_task: positiveId("Task plan id."),
  id_task: positiveId("Task id in that plan."),
  resources: z.array(Resource).min(1).max(50),
});

/** api-spec §2.1; the reference (id_item, id_hourly_rate or id_service_type) and note come along. */
const CreatedResource = z.looseObject({
  id: z.number(),
  type_description: z.string(),
  unit_cost: z.number(),
});

export const AddTaskResourcesOutput = z.object({
  id_group_task: z.number(),
  id_task: z.number(),
  total: z.number(),
  resources: z.array(CreatedResource),
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
    "Add tools/spare parts (INVENTORY), labour (HUMAN_RESOURCES) or services (SERVICES) to a task of a task plan.",
    "Use this tool when planning what a task needs. All-or-nothing: errors list every failing index.",
    "Quantity is always 1; unit_cost comes from the source record (0 if none).",
    'Example: {"id_group_task": 1, "id_task": 101, "resources": [{"type_description": "INVENTORY", "id_item": 1001}]}',
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
      resources: created.map((r) => ({ ...r })),
    };
  },
  toText: (out) =>
    [
      `Added ${out.total} resource(s) to task ${out.id_task} of plan ${out.id_group_task} (quantity 1 each):`,
      ...out.resources.map(
        (r) =>
          `- #${r.id} ${r.type_description} ${String(r.id_item ?? r.id_hourly_rate ?? r.id_service_type)} unit_cost ${r.unit_cost}`,
      ),
    ].join("\n"),
});
