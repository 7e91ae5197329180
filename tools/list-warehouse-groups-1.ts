/** Tool `list_warehouse_groups_1`: GET warehouses_groups_1 (api-spec §4.5), by state, in id order. */
import { z } from "zod";
import { byState, resolveState } from "../src/domain/classifications.js";
import { shown } from "../src/domain/upstream-text.js";
import { defineTool } from "./define.js";
import { all, fetchPaged, limit, maxRecords, pageInfo, positiveId, start } from "./params.js";

const DEFAULT_LIMIT = 100;

export const ListWarehouseGroups1Input = z.strictObject({
  id: positiveId("This classification only.").optional(),
  state: z
    .enum(["enabled", "disabled", "all"])
    .optional()
    .describe("enabled (default), disabled or all (read every page, count both)."),
  only_enabled: z.boolean().optional().describe("Legacy; use state."),
  start,
  limit: limit(DEFAULT_LIMIT),
  all,
  max_records: maxRecords,
});

export const ListWarehouseGroups1Output = z.object({
  ...pageInfo,
  /** True when `groups` holds every classification of the state asked for. */
  complete: z.boolean(),
  /** With state disabled or all: how many of those read are enabled and disabled. */
  enabled_count: z.number().optional(),
  disabled_count: z.number().optional(),
  groups: z.array(z.object({ id: z.number(), description: z.string(), enabled: z.boolean() })),
});

type Output = z.output<typeof ListWarehouseGroups1Output>;

const classifications = (n: number) => `${n} classification${n === 1 ? "" : "s"}`;

/** What an incomplete result lacks, and the one argument that gets it. */
function missing(out: Output, read: number): string {
  if (out.next_start === null) return `the first ${out.start}: start=0`;
  const left = out.total - out.start - read;
  const what = left > 0 ? `the other ${left}` : "there may be more (the API's total equals this page)";
  return `${what}: start=${out.next_start} (${out.omitted > 0 ? "or a larger max_records" : "or all: true"})`;
}

/** The first line: how many, of which state, and complete or what is missing. */
function headline(out: Output): string {
  if (out.enabled_count !== undefined) {
    const read = out.enabled_count + (out.disabled_count ?? 0);
    const split = `${out.enabled_count} enabled, ${out.disabled_count} disabled`;
    if (out.complete) return `${classifications(out.total)}: ${split} (every page read).`;
    return `${read} of ${classifications(out.total)} read, from start=${out.start}: ${split} among them; ${missing(out, read)}.`;
  }
  const n = out.returned;
  if (out.complete) {
    return n === 0
      ? `No enabled classification matches; disabled ones show with state "disabled" or "all".`
      : `All ${n} enabled classification${n === 1 ? "" : "s"}, in id order (disabled ones: state "disabled"):`;
  }
  const these = `${n} of ${out.total} enabled classifications from start=${out.start}, in id order`;
  return out.next_start === null
    ? `${these}, the last ones; ${missing(out, n)}.`
    : `${these}; ${missing(out, n)}.`;
}

/** The second line of a counted result: which of those read follow. */
function listLine(out: Output): string {
  // State "all" lists every classification read; state "disabled" only the disabled ones.
  const everyOne = out.returned === (out.enabled_count ?? 0) + (out.disabled_count ?? 0);
  if (out.returned === 0) return out.complete ? "None is disabled." : "None of those read is disabled.";
  if (everyOne) return out.complete ? `All ${out.returned}, in id order:` : "These, in id order:";
  return `The ${out.returned} disabled${out.complete ? "" : " among them"}, in id order:`;
}

export default defineTool({
  name: "list_warehouse_groups_1",
  title: "List warehouse classification 1",
  description: [
    "List the company's warehouse classification 1 catalogue, in id order.",
    "Use this tool to find a classification id or name, or the disabled ones.",
    'Example: {"state": "disabled"}',
  ].join("\n"),
  inputSchema: ListWarehouseGroups1Input,
  outputSchema: ListWarehouseGroups1Output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async handler(input, ctx) {
    const { state, walk } = resolveState(input);
    const counted = state !== "enabled";
    // api-spec §4.5: only_enabled=false returns enabled and disabled; the API cannot filter disabled ones.
    const query = { id: input.id, only_enabled: counted ? false : input.only_enabled };
    const { items, page } = await fetchPaged(
      walk ? { ...input, all: true } : input,
      { defaultLimit: DEFAULT_LIMIT, noun: "classifications", ctx },
      (start, limit) =>
        ctx.api.listWarehouseGroups1(
          { ...query, start, limit },
          { signal: ctx.signal, deadline: ctx.deadline },
        ),
    );
    const { groups, enabled, disabled } = byState(items, state);
    // An id names one classification: its answer is whole even when it fills a page of one.
    const nextStart = input.id === undefined ? page.next_start : null;
    return {
      ...page,
      next_start: nextStart,
      returned: groups.length,
      complete: page.start === 0 && nextStart === null && page.omitted === 0,
      ...(counted ? { enabled_count: enabled, disabled_count: disabled } : {}),
      groups: groups.map((g) => ({ id: g.id, description: g.description, enabled: g.enabled })),
    };
  },
  toText: (out) =>
    [
      headline(out),
      ...(out.enabled_count === undefined ? [] : [listLine(out)]),
      ...out.groups.map((g) => `${g.id} ${shown(g.description)}${g.enabled ? "" : " (disabled)"}`),
    ].join("\n"),
});
