/**
 * 2. Cold start: spawn to `tools/list` answered, over stdio, ours in real-upstream mode (MMS_*
 * pointing at the benchmark's sandbox, so no sandbox start is counted) against the floor.
 * Target: ours <= 1.15 x the v2 floor (the same SDK as ours) at the median of 10; the 1.x floor's ratio
 * is shown beside it.
 * The same spawns then make their first tool call (ours: list_warehouse_groups_1, the floors: their
 * constant tool): spawn to the first result, target <= 1.3 x the v2 floor (what an agent waits for
 * after starting the server).
 */
import { interleave, now, summarize } from "../lib/measure.mjs";
import { callOk, childEnv, connectStdio, FLOOR_BIN, FLOOR_V2_BIN, OURS_BIN } from "../lib/servers.mjs";

const RUNS = 10;

const firstCall = { ours: [], floor: [], floorV2: [] };

/**
 * Spawn, initialize, list tools, then call `tool`; returns the time until the list arrived (ms)
 * and pushes the time until the first call's result onto `into`. Closing is not counted.
 * Also used by the regression check (bench/check.mjs).
 */
export async function coldStart(bin, env, tool, into) {
  const t0 = now();
  const server = await connectStdio(bin, env);
  const { tools } = await server.client.listTools();
  const ms = now() - t0;
  if (tools.length === 0) throw new Error(`${bin}: empty tools/list`);
  await callOk(server.client, tool);
  into.push(now() - t0);
  await server.close();
  return ms;
}

export default async function coldStartSection({ sb }) {
  const oursEnv = childEnv(sb.env());
  const samples = await interleave(
    {
      ours: () => coldStart(OURS_BIN, oursEnv, "list_warehouse_groups_1", firstCall.ours),
      floor: () => coldStart(FLOOR_BIN, childEnv(), "constant", firstCall.floor),
      floorV2: () => coldStart(FLOOR_V2_BIN, childEnv(), "constant", firstCall.floorV2),
    },
    { rounds: RUNS, warmup: 1, label: "cold start", progressEvery: 5 },
  );
  const ours = summarize(samples.ours);
  const floor = summarize(samples.floor);
  const floorV2 = summarize(samples.floorV2);
  // Targets against the v2 floor (same SDK as ours); the 1.x floor's ratios are reported beside them.
  const ratio = ours.median / floorV2.median;
  const ratio1x = ours.median / floor.median;
  // The warm-up round's first calls are not recorded, like its tools/list times.
  const oursFirst = summarize(firstCall.ours.slice(-RUNS));
  const floorFirst = summarize(firstCall.floor.slice(-RUNS));
  const floorV2First = summarize(firstCall.floorV2.slice(-RUNS));
  const firstRatio = oursFirst.median / floorV2First.median;
  const firstRatio1x = oursFirst.median / floorFirst.median;
  return {
    rows: [
      {
        bench: "2. cold start (ms)",
        series: "ours: spawn → tools/list, stdio",
        ...ours,
        ratio,
        note: "ratio = ours / floor v2",
      },
      {
        bench: "2. cold start (ms)",
        series: "floor (SDK 1.32): spawn → tools/list, stdio",
        ...floor,
        ratio: ratio1x,
        note: "ratio = ours / floor 1.x",
      },
      { bench: "2. cold start (ms)", series: "floor v2 (SDK 2.4): spawn → tools/list, stdio", ...floorV2 },
      {
        bench: "2. cold start (ms)",
        series: "ours: spawn → first list_warehouse_groups_1 result",
        ...oursFirst,
        ratio: firstRatio,
        note: "ratio = ours / floor v2",
      },
      {
        bench: "2. cold start (ms)",
        series: "floor (SDK 1.32): spawn → first constant result",
        ...floorFirst,
        ratio: firstRatio1x,
        note: "ratio = ours / floor 1.x",
      },
      {
        bench: "2. cold start (ms)",
        series: "floor v2 (SDK 2.4): spawn → first constant result",
        ...floorV2First,
      },
    ],
    targets: [
      {
        name: "2. cold start: ours / floor v2, median",
        figure: `${ratio.toFixed(2)} (1.x floor: ${ratio1x.toFixed(2)})`,
        target: "<= 1.15",
        met: ratio <= 1.15,
      },
      {
        name: "2. first call after spawn: ours / floor v2, median",
        figure: `${firstRatio.toFixed(2)} (1.x floor: ${firstRatio1x.toFixed(2)})`,
        target: "<= 1.3",
        met: firstRatio <= 1.3,
      },
    ],
  };
}
