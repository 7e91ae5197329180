/** Tool `add_task_resources`: POST group_tasks/{id}/tasks/{id}/resources (api-spec §4.1), with dry run and idempotency. */
import { z } from "zod";
import type { TaskResourceInput } from "../src/client/types.js";
import { quotedFields } from "../src/domain/prompt-text.js";
import { rejectDuplicates, resourceRef, taskResourceChecks } from "../src/domain/task-resources.js";
import { shown } from "../src/domain/upstream-text.js";
import { defineTool } from "./define.js";
import { checkKey, dryRunOutput, dryRunResult, dryRunText } from "./dry-run.js";
import { dryRun, idempotencyKey, note, positiveId } from "./params.js";

const Resource = z.discriminatedUnion("type_description", [
  z.strictObject({
    type_description: z.literal("INVENTORY"),
    id_item: positiveId(),
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
  dry_run: dryRun,
  idempotency_key: idempotencyKey,
});

/** api-spec §2.1; the reference (id_item, id_hourly_rate or id_service_type) and note come along. */
const CreatedResource = z.looseObject({
  id: z.number(),
  type_description: z.string(),
  unit_cost: z.number(),
});

export const AddTaskResourcesOutput = z.object({
  dry_run: z.boolean(),
  ...dryRunOutput,
  id_group_task: z.number(),
  id_task: z.number(),
  total: z.number().optional(),
  resources: z.array(CreatedResource).optional(),
  replayed: z.boolean().optional(),
});

type Created = { id: number }[];
const SCOPE = "add_task_resources";
/** Names a kept result in one line (a dry run's replay, an oversized record). */
const createdIds = (created: Created) => `resource ids ${created.map((r) => r.id).join(", ")}`;

/**
 * The --confirm-writes question: counts, references and the target first, in the server's words; the
 * agent's notes quoted on one line and cut (src/domain/prompt-text.ts).
 */
function question(group: number, task: number, resources: TaskResourceInput[]): string {
  const what = resources.map((r) => `${r.type_description} ${resourceRef(r)}`).join(", ");
  const notes = quotedFields(resources.map((r, i) => [`note of resource ${i}`, r.note] as const));
  return `Write now (not a dry run): add ${resources.length} resource(s), quantity 1 each at the unit cost of its record, to task ${task} of task plan ${group}: ${what}.${notes === "" ? "" : ` Text from the agent, quoted: ${notes}.`}`;
}

export default defineTool({
  name: "add_task_resources",
  title: "Add resources to a task-plan task",
  description: [
    "Add tools/spare parts (INVENTORY), labour (HUMAN_RESOURCES) or services (SERVICES) to a task of a task plan.",
    "Use this tool when planning what a task needs. All-or-nothing.",
    "Quantity is always 1; unit_cost comes from the source record (else 0).",
    'Example: {"id_group_task": 1, "id_task": 101, "resources": [{"type_description": "INVENTORY", "id_item": 1001}]}',
  ].join("\n"),
  inputSchema: AddTaskResourcesInput,
  outputSchema: AddTaskResourcesOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  auditTarget: (input) =>
    `plan ${input.id_group_task} / task ${input.id_task} (${input.resources.length} resources)`,
  async handler(input, ctx) {
    rejectDuplicates(input.resources);
    const { id_group_task: group, id_task: task, resources } = input;
    const request = ctx.api.prepareTaskResources(group, task, resources);
    if (input.dry_run) {
      const key = await checkKey(ctx, SCOPE, input.idempotency_key, request, createdIds);
      const plan = `add ${resources.length} resource(s) to task ${task} of task plan ${group}`;
      const checks = taskResourceChecks(group, task, resources);
      return {
        ...dryRunResult(request, plan, checks, key, ctx.confirmation()),
        id_group_task: group,
        id_task: task,
      };
    }

    const write = async () => {
      await ctx.confirmWrite(question(group, task, resources));
      const created = await ctx.api.addTaskResources(group, task, resources, { signal: ctx.signal });
      return created.map((r) => ({ ...r }));
    };
    const done = (created: Awaited<ReturnType<typeof write>>, replayed?: boolean) => ({
      dry_run: false,
      id_group_task: group,
      id_task: task,
      total: created.length,
      resources: created,
      ...(replayed === undefined ? {} : { replayed }),
    });
    if (input.idempotency_key === undefined) return done(await write());
    const { value, replayed } = await ctx.idempotency.run(
      SCOPE,
      input.idempotency_key,
      request,
      write,
      createdIds,
    );
    return done(value, replayed);
  },
  toText: (out) =>
    out.dry_run
      ? dryRunText(out)
      : [
          `${out.replayed ? "Already added earlier (idempotency_key replay, nothing new written): " : "Added "}${out.total} resource(s) to task ${out.id_task} of plan ${out.id_group_task} (quantity 1 each; unit costs from the source records, in the company currency (the API names none), no tax stated):`,
          ...(out.resources ?? []).map(
            (r) =>
              `- #${r.id} ${shown(r.type_description)} ${shown(String(r.id_item ?? r.id_hourly_rate ?? r.id_service_type))} unit_cost ${r.unit_cost}`,
          ),
        ].join("\n"),
});
