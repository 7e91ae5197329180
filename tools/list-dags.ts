/** Tool `list_dags`: GET {hub}/hub/api/v1/dags (api-spec §4.2), always OAuth Bearer. */
import { z } from "zod";
import { daysSince, ranAgo } from "../src/domain/age.js";
import { defineTool } from "./define.js";

export const ListDagsInput = z.strictObject({});

export const ListDagsOutput = z.object({
  id_company: z.string(),
  total: z.number(),
  returned: z.number(),
  dags: z.array(
    z.object({
      dag_id: z.string(),
      description: z.string(),
      last_run: z.string().nullable(),
      /** Whole UTC days since last_run (0 = today); null when it never ran. */
      age_days: z.number().nullable(),
    }),
  ),
});

export default defineTool({
  name: "list_dags",
  title: "List ETL integrations (DAGs)",
  description: [
    "List the company's ETL pipelines (DAGs) on the integration hub, with their last run date.",
    "Use this tool to check whether integrations exist and ran recently.",
    "Example: {}",
  ].join("\n"),
  inputSchema: ListDagsInput,
  outputSchema: ListDagsOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  requires: "hub",
  async handler(_input, ctx) {
    const list = await ctx.hub.listDags({ signal: ctx.signal });
    const now = ctx.now();
    return {
      id_company: list.id_company,
      total: list.total,
      returned: list.dags.length,
      dags: list.dags.map((d) => ({
        ...d,
        age_days: d.last_run === null ? null : (daysSince(d.last_run, now) ?? null),
      })),
    };
  },
  toText: (out) =>
    [
      `Company ${out.id_company} has ${out.total} DAG(s); ${out.returned} returned${out.returned < out.total ? " (the hub sent no more; it has no paging)" : ""}:`,
      ...out.dags.map((d) => {
        const age = d.age_days === null ? "" : `, ${ranAgo(d.age_days)}`;
        return `- ${d.dag_id} ${d.description} (last run ${d.last_run ?? "never"}${age})`;
      }),
    ].join("\n"),
});
