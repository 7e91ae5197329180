/**
 * 7. Cost per extra record: `query_budgets` (default compact view) for pages of 10 and 100
 * budgets through ours, beside the same two pages fetched directly with undici (JSON.parse only).
 * The slope (t100 - t10) / 90 is what one more record costs; the fixed per-call cost cancels out.
 * Target: ours' slope <= 1.2 x the direct request's. A diagnostic series, the relay floor (the v2 SDK
 * floor making the same two requests and returning ours' recorded answers, bench/floor-relay.mjs),
 * gives the slope of carrying our answer with no work of ours: relay / direct is what the target
 * leaves for our own work, ours / relay what it costs.
 */
import { interleave, summarize } from "../lib/measure.mjs";
import { callOk, childEnv, connectRelay, connectStdio, OURS_BIN } from "../lib/servers.mjs";
import { daysAgo, directClient } from "../lib/upstream.mjs";

const CALLS = 200;
const WARMUP = 20;
const SMALL = 10;
const LARGE = 100;

export default async function records({ sb }) {
  await sb.addBudgets(LARGE + 20);
  const since = daysAgo(400);
  const ours = await connectStdio(OURS_BIN, childEnv(sb.env()));
  const get = await directClient(sb);
  const recorded = (limit) => ({
    tool: "query_budgets",
    args: { since, limit },
    path: "/wo_budget",
    query: { since, start: 0, limit },
  });
  const relayServer = await connectRelay(sb, ours, { small: recorded(SMALL), large: recorded(LARGE) });
  const relay = (key) => () => callOk(relayServer.client, "relay", { key });
  const tool = (limit) => async () => {
    const r = await callOk(ours.client, "query_budgets", { since, limit });
    if (r.structuredContent.budgets.length !== limit)
      throw new Error(`query_budgets: expected ${limit} budgets`);
  };
  const direct = (limit) => async () => {
    const { data } = await get("/wo_budget", { since, start: 0, limit });
    if (data.length !== limit) throw new Error(`direct: expected ${limit} budgets`);
  };
  try {
    const samples = await interleave(
      {
        oursSmall: tool(SMALL),
        oursLarge: tool(LARGE),
        directSmall: direct(SMALL),
        directLarge: direct(LARGE),
        relaySmall: relay("small"),
        relayLarge: relay("large"),
      },
      { rounds: CALLS, warmup: WARMUP, label: "records", progressEvery: 50 },
    );
    const s = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)]));
    const extra = LARGE - SMALL;
    const oursPer = ((s.oursLarge.median - s.oursSmall.median) / extra) * 1000;
    const directPer = ((s.directLarge.median - s.directSmall.median) / extra) * 1000;
    const relayPer = ((s.relayLarge.median - s.relaySmall.median) / extra) * 1000;
    const ratio = oursPer / directPer;
    const bench = "7. cost per extra budget";
    return {
      rows: [
        { bench: `${bench} (ms)`, series: `ours: query_budgets limit ${SMALL}, stdio`, ...s.oursSmall },
        { bench: `${bench} (ms)`, series: `ours: query_budgets limit ${LARGE}, stdio`, ...s.oursLarge },
        { bench: `${bench} (ms)`, series: `direct: undici GET wo_budget limit ${SMALL}`, ...s.directSmall },
        { bench: `${bench} (ms)`, series: `direct: undici GET wo_budget limit ${LARGE}`, ...s.directLarge },
        { bench: `${bench} (µs)`, series: "ours: slope per extra budget", median: oursPer, ratio },
        { bench: `${bench} (µs)`, series: "direct: slope per extra budget", median: directPer },
        {
          bench: `${bench} (µs)`,
          series: "relay floor v2: same requests, returns ours' answers (diagnostic)",
          median: relayPer,
          ratio: relayPer / directPer,
          note: `ratio = relay / direct; ours / relay ${(oursPer / relayPer).toFixed(2)}`,
        },
      ],
      targets: [
        {
          name: "7. cost per extra budget: ours / direct, medians' slope",
          figure: `${ratio.toFixed(2)} (${oursPer.toFixed(1)} vs ${directPer.toFixed(1)} µs; relay floor ${(relayPer / directPer).toFixed(2)}, ours / relay ${(oursPer / relayPer).toFixed(2)})`,
          target: "<= 1.2",
          met: ratio <= 1.2,
        },
      ],
    };
  } finally {
    await relayServer.close();
    await ours.close();
  }
}
