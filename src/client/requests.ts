/**
 * Pure builders of the exact upstream requests (method, full path with base prefix and query,
 * JSON body). Shared by the endpoint methods and by dry runs, so a dry run shows byte for byte
 * what a real call sends. No undici, no zod: `lazy.ts` imports this on the cold-start path.
 */

import { apiPath, type BaseUrl, withQuery } from "./api-path.js";
import type {
  BudgetQuery,
  PreparedRequest,
  TaskResourceInput,
  WarehouseEntryBody,
  WarehouseGroups1Query,
} from "./types.js";

function build(base: BaseUrl, method: "GET" | "POST", endpoint: string, body?: unknown): PreparedRequest {
  const path = base.prefix + endpoint;
  return body === undefined ? { method, path } : { method, path, body };
}

/** Only the documented fields of each resource are sent (api-spec §4.1), in a stable order. */
function resourceBody(r: TaskResourceInput): Record<string, unknown> {
  const note = r.note === undefined ? {} : { note: r.note };
  switch (r.type_description) {
    case "INVENTORY":
      return { type_description: r.type_description, id_item: r.id_item, ...note };
    case "HUMAN_RESOURCES":
      return { type_description: r.type_description, id_hourly_rate: r.id_hourly_rate, ...note };
    case "SERVICES":
      return { type_description: r.type_description, id_service_type: r.id_service_type, ...note };
  }
}

/** POST {base}/group_tasks/{id_group_task}/tasks/{id_task}/resources (api-spec §4.1). */
export function taskResourcesRequest(
  base: BaseUrl,
  idGroupTask: number,
  idTask: number,
  resources: TaskResourceInput[],
): PreparedRequest {
  return build(base, "POST", apiPath`/group_tasks/${idGroupTask}/tasks/${idTask}/resources`, {
    resources: resources.map(resourceBody),
  });
}

/** POST {base}/warehouse_entries_orders/{warehouse_code} (api-spec §4.3). The body is sent as given. */
export function warehouseEntryRequest(
  base: BaseUrl,
  warehouseCode: string,
  body: WarehouseEntryBody,
): PreparedRequest {
  return build(base, "POST", apiPath`/warehouse_entries_orders/${warehouseCode}`, body);
}

/** GET {base}/wo_budget/{id} when `id` is set, else GET {base}/wo_budget?... (api-spec §4.4). */
export function budgetsRequest(base: BaseUrl, query: BudgetQuery): PreparedRequest {
  const path = query.id === undefined ? "/wo_budget" : apiPath`/wo_budget/${query.id}`;
  return build(
    base,
    "GET",
    withQuery(path, [
      ["status", query.status],
      ["wo_folio", query.wo_folio],
      ["since", query.since],
      ["until", query.until],
      ["type_date", query.type_date],
      ["start", query.start],
      ["limit", query.limit],
    ]),
  );
}

/** GET {base}/warehouses_groups_1 (api-spec §4.5). */
export function warehouseGroups1Request(base: BaseUrl, query: WarehouseGroups1Query): PreparedRequest {
  return build(
    base,
    "GET",
    withQuery("/warehouses_groups_1", [
      ["id", query.id],
      ["only_enabled", query.only_enabled],
      ["start", query.start],
      ["limit", query.limit],
    ]),
  );
}

/** GET {hub}/hub/api/v1/dags (api-spec §4.2). */
export function dagsRequest(hub: BaseUrl): PreparedRequest {
  return build(hub, "GET", "/hub/api/v1/dags");
}
