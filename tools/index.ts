/** Every tool the server offers, in the order `tools/list` shows them. No logic here. */

import addTaskResources from "./add-task-resources.js";
import createWarehouseEntry from "./create-warehouse-entry.js";
import type { AnyTool } from "./define.js";
import listDags from "./list-dags.js";
import listWarehouseGroups1 from "./list-warehouse-groups-1.js";
import queryBudgets from "./query-budgets.js";

export const ALL_TOOLS: readonly AnyTool[] = [
  addTaskResources,
  createWarehouseEntry,
  queryBudgets,
  listWarehouseGroups1,
  listDags,
];
