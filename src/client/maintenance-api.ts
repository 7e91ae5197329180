/**
 * The main API's endpoint methods (api-spec §4.1, §4.3–4.5): build the request with the pure
 * builders of requests.ts, send it through HttpClient, zod-parse the answer into domain types.
 * No retries, headers or status codes here: those live in http.ts.
 */
import type { BaseUrl } from "./api-path.js";
import type { HttpClient } from "./http.js";
import {
  budgetsRequest,
  taskResourcesRequest,
  warehouseEntryRequest,
  warehouseGroups1Request,
} from "./requests.js";
import {
  BudgetSchema,
  parseOne,
  parsePage,
  TaskResourceSchema,
  WarehouseGroup1Schema,
  WarehouseMovementSchema,
} from "./schemas.js";
import type { CallOptions, MaintenanceApi, PreparedRequest } from "./types.js";

export function createMaintenanceApi(http: HttpClient, base: BaseUrl): MaintenanceApi {
  const summary = (req: PreparedRequest) => http.summary(req.method, req.path);
  const send = (req: PreparedRequest, options?: CallOptions) =>
    http.json({
      method: req.method,
      path: req.path,
      body: req.body,
      signal: options?.signal,
      deadline: options?.deadline,
    });

  return {
    async addTaskResources(idGroupTask, idTask, resources, options) {
      const req = taskResourcesRequest(base, idGroupTask, idTask, resources);
      return parsePage(TaskResourceSchema, await send(req, options), summary(req)).data;
    },

    prepareTaskResources(idGroupTask, idTask, resources) {
      return taskResourcesRequest(base, idGroupTask, idTask, resources);
    },

    prepareWarehouseEntry(warehouseCode, body) {
      return warehouseEntryRequest(base, warehouseCode, body);
    },

    async createWarehouseEntry(warehouseCode, body, options) {
      const req = warehouseEntryRequest(base, warehouseCode, body);
      return parseOne(WarehouseMovementSchema, await send(req, options), summary(req));
    },

    async queryBudgets(query, options) {
      const req = budgetsRequest(base, query);
      return parsePage(BudgetSchema, await send(req, options), summary(req));
    },

    async listWarehouseGroups1(query, options) {
      const req = warehouseGroups1Request(base, query);
      return parsePage(WarehouseGroup1Schema, await send(req, options), summary(req));
    },
  };
}
