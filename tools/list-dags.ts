/** Tool `list_dags`: GET {hub}/hub/api/v1/dags (api-spec §4.2), always OAuth Bearer. */
import { z } from "zod";
import { defineTool } from "../src/tool.js";

export const ListDagsInput = z.strictObject({});

export const ListDagsOutput = z.object({
  id_company: z.string(),
  total: z.number().int(),
  dags: z.array(
    z.object({
      dag_id: z.string().describe("UUID of the pipeline."),
      description: z.string(),
      last_run: z.string().nullable().describe("Date of the last run, YYYY-MM-DD."),
    }),
  ),
});

export default defineTool({
  name: "list_dags",
  title: "List ETL integrations (DAGs)",
  description: [
    "List the company's ETL data pipelines (DAGs) on the integration hub, with the date of each one's last run.",
    "Use this tool to check which integrations exist and whether they ran recently. Needs the hub permission of the automation module.",
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
