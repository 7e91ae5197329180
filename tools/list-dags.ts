/** Tool `list_dags`: GET {hub}/hub/api/v1/dags (api-spec §4.2), always OAuth Bearer. */
import { z } from "zod";
import { daysSince, ranAgo } from "../src/domain/age.js";
import { shown } from "../src/domain/upstream-text.js";
import { defineTool } from "./define.js";

export const ListDagsInput = z.strictObject({});

export const ListDagsOutput = z.object({
  id_company: z.string(),
  total: z.number(),
  returned: z.number(),
  /** True when `dags` holds every DAG the hub counts in `total`. */
  complete: z.boolean(),
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

const dags = (n: number) => `${n} DAG${n === 1 ? "" : "s"}`;

/** Complete ("all 4 DAGs") or what is missing; the hub has no paging, so no argument gets the rest. */
function headline(out: z.output<typeof ListDagsOutput>): string {
  const company = shown(out.id_company);
  if (out.returned === 0 && out.complete) return `Company ${company} has no DAGs (the hub counts 0).`;
  if (!out.complete) {
    return `${out.returned} of the ${dags(out.total)} the hub counts for company ${company}: it sent no more and has no paging, so no argument gets the other ${out.total - out.returned}:`;
  }
  const all = out.returned === 1 ? "The only DAG" : `All ${dags(out.returned)}`;
  return `${all} of company ${company}${out.returned > out.total ? ` (the hub counts ${out.total})` : ""}:`;
}

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
    const list = await ctx.hub.listDags({ signal: ctx.signal, deadline: ctx.deadline });
    const now = ctx.now();
    return {
      id_company: list.id_company,
      total: list.total,
      returned: list.dags.length,
      complete: list.dags.length >= list.total,
      dags: list.dags.map((d) => ({
        ...d,
        age_days: d.last_run === null ? null : (daysSince(d.last_run, now) ?? null),
      })),
    };
  },
  toText: (out) =>
    [
      headline(out),
      ...out.dags.map((d) => {
        const age = d.age_days === null ? "" : `, ${ranAgo(d.age_days)}`;
        return `- ${shown(d.dag_id)} ${shown(d.description)} (last run ${shown(d.last_run, "never")}${age})`;
      }),
    ].join("\n"),
});
