/**
 * The route template of an upstream path, for span names and `url.template`: the path with every
 * argument-carrying segment replaced by its parameter name and the query dropped, e.g.
 * `/api/warehouse_entries_orders/W%201?x=1` → `/warehouse_entries_orders/{warehouse_code}`.
 * IMPORTANT: only known routes keep their shape; any other path is `{other}`: a value never passes.
 */
const ROUTES: readonly (readonly [RegExp, string])[] = [
  [
    /\/group_tasks\/[^/]+\/tasks\/[^/]+\/resources$/,
    "/group_tasks/{id_group_task}/tasks/{id_task}/resources",
  ],
  [/\/warehouse_entries_orders\/[^/]+$/, "/warehouse_entries_orders/{warehouse_code}"],
  [/\/wo_budget\/[^/]+$/, "/wo_budget/{id}"],
  [/\/wo_budget$/, "/wo_budget"],
  [/\/warehouses_groups_1$/, "/warehouses_groups_1"],
  [/\/hub\/api\/v1\/dags$/, "/hub/api/v1/dags"],
];

export function routeTemplate(path: string): string {
  const q = path.indexOf("?");
  const bare = q === -1 ? path : path.slice(0, q);
  for (const [pattern, template] of ROUTES) if (pattern.test(bare)) return template;
  return "{other}";
}
