/** Tool `list_dags`: GET {hub}/hub/api/v1/dags (api-spec §4.2), always OAuth Bearer. */
import { z } from "zod";
import { defineTool } from "../src/tool.js";

export const ListDagsInput = z.strictObject({});

export const ListDagsOutput = z.object({
  id_company: z.string(),
  total: z.number().int(),
  dags: z.array(
    z.object({
      dag_id: z.string(),
      description: z.string(),
      last_run: z.string().nullable(),
    }),
  ),
});

export default defineTool({
  name: "list_dags",
  title: "List ETL integrations (DAGs)",
  description: [
    "List the company's ETL pipelines (DAGs) on the integration hub, with their last run date.",
    "Use this tool to check which integrations exist and whether they ran recently.",
    "Example: {}",
  ].join("\n"),
  inputSchema: ListDagsInput,
  outputSchema: ListDagsOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  requires: "hub",
  async handler(_input, ctx) {
    return ctx.hub.listDags({ signal: ctx.signal });
  },
  toText: (out) =>
    [
      `${out.total} DAG(s) for company ${out.id_company}:`,
      ...out.dags.map((d) => `- ${d.dag_id} ${d.description} (last run ${d.last_run ?? "never"})`),
    ].join("\n"),
});
