/**
 * GET /hub/api/v1/dags (api-spec §4.2): no envelope; `id_company` is text. Authentication
 * (Bearer only, problem+json errors) happens before this handler runs.
 */
import { json, type Reply } from "../responses.js";
import type { Ctx, Env } from "./common.js";

export function listDags(env: Env) {
  return (ctx: Ctx): Reply => {
    const dags = env
      .state()
      .dags.filter((d) => d.companyId === ctx.auth.companyId)
      .map(({ dag_id, description, last_run }) => ({ dag_id, description, last_run }));
    return json(200, { id_company: String(ctx.auth.companyId), total: dags.length, dags });
  };
}
