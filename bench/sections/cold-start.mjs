/**
 * 2. Cold start: spawn to `tools/list` answered, over stdio, ours in real-upstream mode (MMS_*
 * pointing at the benchmark's sandbox, so no sandbox start is counted) against the floor.
 * Target: ours <= 1.15 x the floor at the median of 10. The v2 floor (same SDK as ours) is shown beside it.
 */
import { interleave, now, summarize } from "../lib/measure.mjs";
import { childEnv, connectStdio, FLOOR_BIN, FLOOR_V2_BIN, OURS_BIN } from "../lib/servers.mjs";

const RUNS = 10;

/** Spawn, initialize, list tools; the time until the list arrives (ms). Closing is not counted. */
async function coldStart(bin, env) {
  const t0 = now();
  const server = await connectStdio(bin, env);
  const { tools } = await server.client.listTools();
  const ms = now() - t0;
  if (tools.length === 0) throw new Error(`${bin}: empty tools/list`);
  await server.close();
  return ms;
}

export default async function coldStartSection({ sb }) {
  const oursEnv = childEnv(sb.env());
  const samples = await interleave(
    {
      ours: () => coldStart(OURS_BIN, oursEnv),
      floor: () => coldStart(FLOOR_BIN, childEnv()),
      floorV2: () => coldStart(FLOOR_V2_BIN, childEnv()),
    },
    { rounds: RUNS, warmup: 1, label: "cold start", progressEvery: 5 },
  );
  const ours = summarize(samples.ours);
  const floor = summarize(samples.floor);
  const floorV2 = summarize(samples.floorV2);
  const ratio = ours.median / floor.median;
  return {
    rows: [
      { bench: "2. cold start (ms)", series: "ours: spawn → tools/list, stdio", ...ours, ratio },
      { bench: "2. cold start (ms)", series: "floor (SDK 1.32): spawn → tools/list, stdio", ...floor },
      {
        bench: "2. cold start (ms)",
        series: "floor v2 (SDK 2.4): spawn → tools/list, stdio",
        ...floorV2,
        ratio: ours.median / floorV2.median,
        note: "ratio = ours / floor v2",
      },
    ],
    targets: [
      {
        name: "2. cold start: ours / floor, median",
        figure: ratio.toFixed(2),
        target: "<= 1.15",
        met: ratio <= 1.15,
      },
    ],
  };
}
