/**
 * The rules of api-spec §4.1 this server can check before anything is sent (1 to 50 resources,
 * the reference each type needs, no resource twice), and the list of those only the API can
 * judge: the API has no endpoint to ask whether a plan, task or reference exists.
 */
import type { TaskResourceInput } from "../client/types.js";
import { type IndexedError, UserInputError } from "../errors/api-error.js";
import type { WriteChecks } from "./write-checks.js";

/** "id_item 1001": the reference a resource's type needs. */
export function resourceRef(r: TaskResourceInput): string {
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
export function rejectDuplicates(resources: readonly TaskResourceInput[]): void {
  const firstSeen = new Map<string, number>();
  const errors: IndexedError[] = [];
  resources.forEach((r, index) => {
    const key = `${r.type_description} ${resourceRef(r)}`;
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

/** What only the API can judge, per reference kind: "id_item 1001, 1003 are tools or spare parts". */
const REFERENCE_RULE = {
  INVENTORY: ["id_item", "is a tool or spare part", "are tools or spare parts"],
  HUMAN_RESOURCES: ["id_hourly_rate", "exists", "exist"],
  SERVICES: ["id_service_type", "exists", "exist"],
} as const;

const idOf = (r: TaskResourceInput): number =>
  r.type_description === "INVENTORY"
    ? r.id_item
    : r.type_description === "HUMAN_RESOURCES"
      ? r.id_hourly_rate
      : r.id_service_type;

/** The checks of a request that passed `rejectDuplicates` and the input schema. */
export function taskResourceChecks(
  idGroupTask: number,
  idTask: number,
  resources: readonly TaskResourceInput[],
): WriteChecks {
  const references = (Object.keys(REFERENCE_RULE) as (keyof typeof REFERENCE_RULE)[]).flatMap((type) => {
    const ids = resources.filter((r) => r.type_description === type).map(idOf);
    if (ids.length === 0) return [];
    const [field, one, many] = REFERENCE_RULE[type];
    return [`${field} ${ids.join(", ")} ${ids.length === 1 ? one : many}`];
  });
  return {
    checked: [
      `${resources.length} resource(s), within 1 to 50`,
      "each has the reference its type needs",
      "no resource twice",
    ],
    not_checked: [
      `task plan ${idGroupTask} exists and task ${idTask} is in it`,
      ...references,
      "none is on the task already",
      "the credential may edit task plans and the company has the advanced-APIs add-on",
    ],
  };
}
