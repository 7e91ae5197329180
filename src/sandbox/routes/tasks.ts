/**
 * POST /api/group_tasks/{id_group_task}/tasks/{id_task}/resources (api-spec §4.1, §7.1).
 * Order: permission and add-on (403), path ids and plan (422), task (404), task in plan (422),
 * body (422 listing every failing index). All-or-nothing: nothing is written unless all pass.
 */
import { errorItem, type IndexedError, indexed, ok, type Reply } from "../responses.js";
import type { ResourceType, SandboxState, TaskResource } from "../state.js";
import { type Ctx, type Env, isRecord, parseBody, positiveInt } from "./common.js";

const TYPES: readonly ResourceType[] = ["INVENTORY", "HUMAN_RESOURCES", "SERVICES"];
const REF: Record<ResourceType, "id_item" | "id_hourly_rate" | "id_service_type"> = {
  INVENTORY: "id_item",
  HUMAN_RESOURCES: "id_hourly_rate",
  SERVICES: "id_service_type",
};
const MAX_RESOURCES = 50;

interface Candidate {
  type: ResourceType;
  ref: number;
  unitCost: number;
  note?: string;
}

/** Validate one element; returns the candidate or an English error text. */
function checkElement(state: SandboxState, companyId: number, el: unknown): Candidate | string {
  if (!isRecord(el)) return "resource must be an object";
  const type = el.type_description;
  if (typeof type !== "string" || !TYPES.includes(type as ResourceType)) {
    return `type_description must be one of ${TYPES.join(", ")}`;
  }
  const t = type as ResourceType;
  const field = REF[t];
  if (el[field] === undefined || el[field] === null)
    return `${field} is required when type_description is ${t}`;
  const ref = positiveInt(el[field]);
  if (ref === undefined) return `${field} must be a positive integer`;
  if (el.note !== undefined && el.note !== null && typeof el.note !== "string") return "note must be text";
  const note = typeof el.note === "string" ? el.note : undefined;
  if (t === "INVENTORY") {
    const item = state.items.find((i) => i.id === ref && i.companyId === companyId);
    if (!item) return `id_item ${ref} does not exist`;
    if (item.kind !== "TOOL" && item.kind !== "SPARE_PART")
      return `id_item ${ref} is not a tool or spare part`;
    return { type: t, ref, unitCost: item.averageCost ?? 0, note };
  }
  if (t === "HUMAN_RESOURCES") {
    const rate = state.hourlyRates.find((r) => r.id === ref && r.companyId === companyId);
    if (!rate) return `id_hourly_rate ${ref} does not exist`;
    return { type: t, ref, unitCost: rate.value ?? 0, note };
  }
  const service = state.serviceTypes.find((s) => s.id === ref && s.companyId === companyId);
  if (!service) return `id_service_type ${ref} does not exist`;
  return { type: t, ref, unitCost: service.cost ?? 0, note };
}

function refOf(r: TaskResource): number | undefined {
  return r.id_item ?? r.id_hourly_rate ?? r.id_service_type;
}

export function createTaskResources(env: Env) {
  return (ctx: Ctx): Reply => {
    const p = ctx.auth;
    if (!p.editTaskPlans) return errorItem(403, "The credential lacks edit permission on task plans");
    const state = env.state();
    const company = state.companies.find((c) => c.id === p.companyId);
    if (!company?.advancedApis) return errorItem(403, "The company does not have the advanced APIs add-on");

    const planId = positiveInt(ctx.params.id_group_task);
    const taskId = positiveInt(ctx.params.id_task);
    if (planId === undefined) return errorItem(422, "id_group_task must be a positive integer");
    if (taskId === undefined) return errorItem(422, "id_task must be a positive integer");
    const plan = state.taskPlans.find((tp) => tp.id === planId && tp.companyId === p.companyId);
    if (!plan) return errorItem(422, `Task plan ${planId} does not exist`);
    const task = state.tasks.find((t) => t.id === taskId && t.companyId === p.companyId);
    if (!task) return errorItem(404, `Task ${taskId} does not exist`);
    if (task.planId !== planId)
      return errorItem(422, `Task ${taskId} does not belong to task plan ${planId}`);

    const body = parseBody(ctx);
    if (!body.ok) return body.reply;
    const resources = isRecord(body.value) ? body.value.resources : undefined;
    if (resources === undefined || resources === null) return errorItem(422, "resources is required");
    if (!Array.isArray(resources)) return errorItem(422, "resources must be an array");
    if (resources.length === 0) return errorItem(422, "resources must contain at least 1 element");
    if (resources.length > MAX_RESOURCES) {
      return errorItem(
        422,
        `resources must contain at most ${MAX_RESOURCES} elements (got ${resources.length})`,
      );
    }

    const existing = new Set(
      state.taskResources.filter((r) => r.taskId === taskId).map((r) => `${r.type_description}:${refOf(r)}`),
    );
    const seen = new Map<string, number>();
    const errors: IndexedError[] = [];
    const candidates: Candidate[] = [];
    resources.forEach((el, index) => {
      const c = checkElement(state, p.companyId, el);
      if (typeof c === "string") {
        errors.push({ index, error: c });
        return;
      }
      const key = `${c.type}:${c.ref}`;
      if (existing.has(key)) {
        errors.push({ index, error: `${REF[c.type]} ${c.ref} already exists on task ${taskId}` });
      } else if (seen.has(key)) {
        errors.push({
          index,
          error: `${REF[c.type]} ${c.ref} is repeated in this request (index ${seen.get(key)})`,
        });
      } else {
        seen.set(key, index);
      }
      candidates.push(c);
    });
    // api-spec §4.1 rule 4: atomic, nothing is created when any element fails.
    if (errors.length > 0) return indexed(errors);

    const created = candidates.map((c) => {
      state.counters.taskResource += 1;
      const r: TaskResource = {
        id: state.counters.taskResource,
        taskId,
        type_description: c.type,
        quantity: 1,
        unit_cost: c.unitCost,
        [REF[c.type]]: c.ref,
      };
      if (c.note !== undefined) r.note = c.note;
      return r;
    });
    state.taskResources.push(...created);
    env.changed();
    return ok(
      created.map(({ taskId: _t, ...out }) => out),
      created.length,
      201,
    );
  };
}
