/**
 * GET /api/warehouses_groups_1 (api-spec §4.5): id, only_enabled (default true), start, limit
 * (max 100). `total` counts the matches in the company; no match is `data: null`, not an error.
 */
import { errorItem, ok, type Reply } from "../responses.js";
import { type Ctx, type Env, positiveInt, queryInt } from "./common.js";

const MAX_LIMIT = 100;

export function listWarehouseGroups1(env: Env) {
  return (ctx: Ctx): Reply => {
    const q = ctx.query;
    const idRaw = q.get("id");
    let id: number | undefined;
    if (idRaw !== null && idRaw !== "") {
      id = positiveInt(idRaw);
      if (id === undefined) return errorItem(422, "id must be a positive integer");
    }
    const enabledRaw = q.get("only_enabled");
    let onlyEnabled = true;
    if (enabledRaw !== null && enabledRaw !== "") {
      const v = enabledRaw.trim().toLowerCase();
      if (v === "true" || v === "1") onlyEnabled = true;
      else if (v === "false" || v === "0") onlyEnabled = false;
      else return errorItem(422, "only_enabled must be true or false");
    }
    const start = queryInt(q, "start", 0);
    const limit = queryInt(q, "limit", MAX_LIMIT);
    if (start === undefined) return errorItem(422, "start must be a non-negative integer");
    if (limit === undefined || limit < 1) return errorItem(422, "limit must be an integer from 1 to 100");
    if (limit > MAX_LIMIT) return errorItem(422, `limit must be at most ${MAX_LIMIT}`);

    const matches = env
      .state()
      .warehouseGroups1.filter(
        (g) =>
          g.id_company === ctx.auth.companyId &&
          (id === undefined || g.id === id) &&
          (!onlyEnabled || g.enabled),
      )
      .sort((a, b) => a.id - b.id);
    const page = matches.slice(start, start + limit).map((g) => ({ ...g }));
    // api-spec §4.5: nothing matches → success true, total 0, data null. A page past the end of
    // a non-empty result is also null (same "no records" answer).
    return ok(page.length === 0 ? null : page, matches.length);
  };
}
