/**
 * `createLazyClients`: the same `Clients` interface, but undici, hawk and zod are loaded by
 * `import("./index.js")` on the first upstream call, so starting the server and answering
 * `tools/list` stay fast (importing undici alone costs ~80 ms). `prepareWarehouseEntry` is
 * synchronous and built from the pure request builders, so a dry run never loads them either.
 * IMPORTANT: no static value import of undici, hawk, zod or ./index.js here (type-only is fine).
 */
import type { Config } from "../config.js";
import { parseBaseUrl } from "./api-path.js";
import type { ClientDeps } from "./index.js";
import { taskResourcesRequest, warehouseEntryRequest } from "./requests.js";
import type { Clients, HubApi, MaintenanceApi } from "./types.js";

export function createLazyClients(config: Config, deps: ClientDeps): Clients {
  let loading: Promise<Clients> | undefined;
  const load = (): Promise<Clients> => {
    loading ??= import("./index.js").then(
      (m) => m.createClients(config, deps),
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  const base = parseBaseUrl(config.baseUrl);

  const api: MaintenanceApi = {
    addTaskResources: async (...args) => (await load()).api.addTaskResources(...args),
    prepareTaskResources: (group, task, resources) => taskResourcesRequest(base, group, task, resources),
    prepareWarehouseEntry: (code, body) => warehouseEntryRequest(base, code, body),
    createWarehouseEntry: async (...args) => (await load()).api.createWarehouseEntry(...args),
    queryBudgets: async (...args) => (await load()).api.queryBudgets(...args),
    listWarehouseGroups1: async (...args) => (await load()).api.listWarehouseGroups1(...args),
  };

  const hub: HubApi | undefined =
    config.oauth !== undefined && config.hubUrl !== undefined
      ? { listDags: async (...args) => (await load()).hub!.listDags(...args) }
      : undefined;

  return {
    api,
    hub,
    close: async () => {
      if (loading !== undefined) await (await loading).close();
    },
  };
}
