/**
 * 3. Memory: RSS (VmRSS of the child) of ours and of the floor after 1,000 calls over stdio, and
 * again after 5,000. Targets: ours <= 1.3 x the floor at 1,000; no growth from 1,000 to 5,000
 * (taken as: at most +5 %). A third series, ours with V8's old space capped at 48 MiB, tells
 * retention from heap sizing: a leak grows (or crashes) under the cap, lazy heap growth does not.
 */
import { interleave } from "../lib/measure.mjs";
import {
  callOk,
  childEnv,
  connectStdio,
  FLOOR_BIN,
  FLOOR_V2_BIN,
  OURS_BIN,
  rssMiB,
} from "../lib/servers.mjs";

const FIRST = 1_000;
const SECOND = 5_000;
const GROWTH_TOLERANCE = 0.05;
const CAP = ["--max-old-space-size=48"];

export default async function memory({ sb }) {
  const procs = {
    ours: await connectStdio(OURS_BIN, childEnv(sb.env())),
    floor: await connectStdio(FLOOR_BIN),
    floorV2: await connectStdio(FLOOR_V2_BIN),
    oursCapped: await connectStdio(OURS_BIN, childEnv(sb.env()), CAP),
  };
  const rss = () => Object.fromEntries(Object.entries(procs).map(([k, p]) => [k, rssMiB(p.pid)]));
  try {
    const groups = (p) => () => callOk(p.client, "list_warehouse_groups_1", { limit: 100 });
    const series = {
      ours: groups(procs.ours),
      floor: () => callOk(procs.floor.client, "constant"),
      floorV2: () => callOk(procs.floorV2.client, "constant"),
      oursCapped: groups(procs.oursCapped),
    };
    const atStart = rss();
    await interleave(series, { rounds: FIRST, label: "memory", progressEvery: 500 });
    const at1k = rss();
    await interleave(series, { rounds: SECOND - FIRST, label: "memory (to 5,000)", progressEvery: 1000 });
    const at5k = rss();

    const ratio = at1k.ours / at1k.floor;
    const growth = (key) => at5k[key] / at1k[key] - 1;
    const row = (series, key, extra = {}) => ({
      bench: "3. RSS (MiB) after 1,000 calls",
      series,
      median: at1k[key],
      note: `start ${atStart[key].toFixed(1)}, after 5,000: ${at5k[key].toFixed(1)} (${(growth(key) * 100).toFixed(1)} %)`,
      ...extra,
    });
    return {
      rows: [
        row("ours: list_warehouse_groups_1, stdio", "ours", { ratio }),
        row("floor (SDK 1.32): constant tool, stdio", "floor"),
        row("floor v2 (SDK 2.4): constant tool, stdio", "floorV2", {
          ratio: at1k.ours / at1k.floorV2,
          note: `ratio = ours / floor v2; start ${atStart.floorV2.toFixed(1)}, after 5,000: ${at5k.floorV2.toFixed(1)}`,
        }),
        row(`ours with ${CAP[0]} (diagnostic)`, "oursCapped"),
      ],
      targets: [
        {
          name: "3. RSS after 1,000 calls: ours / floor",
          figure: ratio.toFixed(2),
          target: "<= 1.3",
          met: ratio <= 1.3,
        },
        {
          name: "3. RSS growth of ours, 1,000 → 5,000 calls",
          figure: `${at1k.ours.toFixed(1)} → ${at5k.ours.toFixed(1)} MiB (${(growth("ours") * 100).toFixed(1)} %); capped heap ${(growth("oursCapped") * 100).toFixed(1)} %`,
          target: "no growth (<= +5 %)",
          met: growth("ours") <= GROWTH_TOLERANCE,
        },
      ],
    };
  } finally {
    for (const p of Object.values(procs)) await p.close();
  }
}
