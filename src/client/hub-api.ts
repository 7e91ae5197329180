/**
 * The ETL hub (api-spec §4.2): always OAuth Bearer with `Accept: application/json`; answers
 * are not enveloped and errors are problem+json (normalised by http.ts).
 */
import type { BaseUrl } from "./api-path.js";
import type { HttpClient } from "./http.js";
import { dagsRequest } from "./requests.js";
import { DagListSchema, parseWith } from "./schemas.js";
import type { HubApi } from "./types.js";

export function createHubApi(http: HttpClient, hub: BaseUrl): HubApi {
  return {
    async listDags(options) {
      const req = dagsRequest(hub);
      const body = await http.json({
        method: req.method,
        path: req.path,
        signal: options?.signal,
        deadline: options?.deadline,
      });
      return parseWith(DagListSchema, body, { method: req.method, path: req.path });
    },
  };
}
