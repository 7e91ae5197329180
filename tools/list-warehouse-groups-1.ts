/** Tool `list_warehouse_groups_1`: GET warehouses_groups_1 (api-spec §4.5). */
import { z } from "zod";
import { defineTool } from "./define.js";
import { all, fetchPaged, limit, maxRecords, pageInfo, pagingHint, positiveId, start } from "./params.js";

const DEFAULT_LIMIT = 100;

export const ListWarehouseGroups1Input = z.strictObject({
  id: positiveId("This classification only.").optional(),
  only_enabled: z
    .boolean()
    .optional()
    .describe("Default true: enabled classifications only; false includes disabled ones."),
  start,
  limit: limit(DEFAULT_LIMIT),
  all,
  max_records: maxRecords,
});

export const ListWarehouseGroups1Output = z.object({
  ...pageInfo,
  groups: z.array(z.object({ id: z.number(), description: z.string(), enabled: z.boolean() })),
});

export default defineTool({
  name: "list_warehouse_groups_1",
  title: "List warehouse classification 1",
  description: [
    "List the company's warehouse classification 1 catalogue.",
    "Use this tool to find a classification id or name.",
    `Pages of up to 100 (default ${DEFAULT_LIMIT}).`,
    'Example: {"only_enabled": false, "all": true}',
  ].join("\n"),
  inputSchema: ListWarehouseGroups1Input,
  outputSchema: ListWarehouseGroups1Output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async handler(input, ctx) {
    const query = { id: input.id, only_enabled: input.only_enabled };
    const { items, page } = await fetchPaged(
      input,
      { defaultLimit: DEFAULT_LIMIT, noun: "classifications", ctx },
      (start, limit) => ctx.api.listWarehouseGroups1({ ...query, start, limit }, { signal: ctx.signal }),
    );
    return {
      ...page,
      groups: items.map((g) => ({ id: g.id, description: g.description, enabled: g.enabled })),
    };
  },
  toText: (out) =>
    [
      `${out.returned} of ${out.total} classification(s) from start=${out.start}:`,
      ...out.groups.map((g) => `${g.id} ${g.description}${g.enabled ? "" : " (disabled)"}`),
      out.total === 0
        ? "No classification matches; disabled ones are listed only with only_enabled=false."
        : "",
      pagingHint(out),
    ]
      .filter((l) => l !== "")
      .join("\n"),
});
