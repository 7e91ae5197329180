/**
 * 4. Context cost: what the model reads. Bytes and ≈tokens (bytes / 4) of the `tools/list` result
 * and of each tool's result for a typical call. A result's size is its whole CallToolResult as JSON
 * (structuredContent + content text, as a client receives it). Budgets: 100 of the last 90 days in
 * the compact (default) and full views, against the same 100 as pretty-printed raw upstream JSON.
 * Targets: tools/list <= 3,000 tokens; compact budgets <= 20 % of the raw bytes.
 */
import { SEED } from "../../dist/src/sandbox/index.js";
import { callOk, childEnv, connectStdio, OURS_BIN } from "../lib/servers.mjs";
import { daysAgo, directClient } from "../lib/upstream.mjs";

const bytes = (value) => Buffer.byteLength(typeof value === "string" ? value : JSON.stringify(value));

/** Typical calls, one per tool (writes go to the benchmark's own sandbox). */
const since = daysAgo(90);
const CALLS = [
  ["list_warehouse_groups_1 {} (default page of 100)", "list_warehouse_groups_1", {}],
  ["query_budgets 100, compact (default view)", "query_budgets", { limit: 100, since }],
  // A full page holds at most 20 budgets (the tool refuses more): the same 100 take 5 pages.
  [
    "query_budgets 100, view: full (5 pages of 20, summed)",
    "query_budgets",
    { limit: 20, since, view: "full" },
    5,
  ],
  ["query_budgets {} (default page of 25, last 30 days)", "query_budgets", {}],
  ["list_dags {}", "list_dags", {}],
  [
    "add_task_resources, 3 resources",
    "add_task_resources",
    {
      id_group_task: SEED.taskPlans.main,
      id_task: SEED.tasks.main,
      resources: [
        { type_description: "INVENTORY", id_item: SEED.items.tool },
        { type_description: "HUMAN_RESOURCES", id_hourly_rate: SEED.hourlyRates.technician },
        { type_description: "SERVICES", id_service_type: SEED.serviceTypes.calibration },
      ],
    },
  ],
  [
    "create_warehouse_entry, purchase of 1 item",
    "create_warehouse_entry",
    {
      warehouse_code: SEED.warehouses.main,
      movement_type: "purchase",
      document: "BENCH-1",
      code_user: SEED.users.withAccount,
      code_supplier: SEED.suppliers.main,
      items: [{ code: SEED.itemCodes.sparePart, qty: 2, unit_cost: 11 }],
    },
  ],
];

export default async function context({ sb }) {
  const ours = await connectStdio(OURS_BIN, childEnv(sb.env()));
  const get = await directClient(sb);
  try {
    const row = (series, size, ratio, note) => ({
      bench: "4. context (bytes)",
      series,
      median: size,
      tokens: Math.round(size / 4),
      ratio,
      note,
    });
    const list = await ours.client.listTools();
    const listBytes = bytes(list);
    const rows = [row(`tools/list (${list.tools.length} tools)`, listBytes)];
    const sizes = {};
    for (const [label, name, args, pages = 1] of CALLS) {
      sizes[label] = 0;
      for (let page = 0; page < pages; page++) {
        const pageArgs = pages === 1 ? args : { ...args, start: page * args.limit };
        sizes[label] += bytes(await callOk(ours.client, name, pageArgs));
      }
      rows.push(row(label, sizes[label]));
    }
    const raw = await get("/wo_budget", { since, start: 0, limit: 100 });
    if (raw.data.length !== 100) throw new Error(`expected 100 raw budgets, got ${raw.data.length}`);
    const rawBytes = bytes(JSON.stringify(raw.data, null, 2));
    rows.push(row("raw upstream: same 100 budgets, JSON.stringify(data, null, 2)", rawBytes));

    const compact = sizes[CALLS[1][0]];
    const full = sizes[CALLS[2][0]];
    rows[2].ratio = compact / rawBytes;
    rows[2].note = "ratio = / raw";
    rows[3].ratio = full / rawBytes;
    rows[3].note = "ratio = / raw";
    const listTokens = Math.round(listBytes / 4);
    return {
      rows,
      targets: [
        {
          name: "4. tools/list size",
          figure: `${listTokens} tokens (${listBytes} B)`,
          target: "<= 3,000 tokens",
          met: listTokens <= 3_000,
        },
        {
          name: "4. 100 budgets, compact view / raw pretty JSON",
          figure: `${((compact / rawBytes) * 100).toFixed(1)} % (${compact} / ${rawBytes} B)`,
          target: "<= 20 %",
          met: compact / rawBytes <= 0.2,
        },
      ],
    };
  } finally {
    await ours.close();
  }
}
