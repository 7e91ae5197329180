/**
 * 3. Memory: RSS (VmRSS of the child) of ours and of the floors after 1,000 calls over stdio, and
 * again after 5,000. Targets: ours <= 1.3 x the v2 floor (same SDK) at 1,000 (the 1.x floor's ratio
 * beside it); no growth from 1,000 to 5,000 (taken as: at most +5 %). A third series, ours with V8's old space capped at 48 MiB, tells
 * retention from heap sizing: a leak grows (or crashes) under the cap, lazy heap growth does not. A
 * fourth, ours with V8's semi-spaces capped at 2 MiB, shows how much of the gap is the young
 * generation V8 grows for a server that allocates per call (see docs/quality.md).
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
const SEMI = ["--max-semi-space-size=2"];

export default async function memory({ sb }) {
  const procs = {
    ours: await connectStdio(OURS_BIN, childEnv(sb.env())),
    floor: await connectStdio(FLOOR_BIN),
    floorV2: await connectStdio(FLOOR_V2_BIN),
    oursCapped: await connectStdio(OURS_BIN, childEnv(sb.env()), CAP),
    oursSemi: await connectStdio(OURS_BIN, childEnv(sb.env()), SEMI),
  };
  const rss = () => Object.fromEntries(Object.entries(procs).map(([k, p]) => [k, rssMiB(p.pid)]));
  try {
    const groups = (p) => () => callOk(p.client, "list_warehouse_groups_1", { limit: 100 });
    const series = {
      ours: groups(procs.ours),
      floor: () => callOk(procs.floor.client, "constant"),
      floorV2: () => callOk(procs.floorV2.client, "constant"),
      oursCapped: groups(procs.oursCapped),
      oursSemi: groups(procs.oursSemi),
    };
    const atStart = rss();
    await interleave(series, { rounds: FIRST, label: "memory", progressEvery: 500 });
    const at1k = rss();
    await interleave(series, { rounds: SECOND - FIRST, label: "memory (to 5,000)", progressEvery: 1000 });
    const at5k = rss();

    // Target against the v2 floor (same SDK as ours); the 1.x floor's ratio beside it.
    const ratio = at1k.ours / at1k.floorV2;
    const ratio1x = at1k.ours / at1k.floor;
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
        row("ours: list_warehouse_groups_1, stdio", "ours", {
          ratio,
          note: `ratio = ours / floor v2; start ${atStart.ours.toFixed(1)}, after 5,000: ${at5k.ours.toFixed(1)} (${(growth("ours") * 100).toFixed(1)} %)`,
        }),
        row("floor (SDK 1.32): constant tool, stdio", "floor", {
          ratio: ratio1x,
          note: `ratio = ours / floor 1.x; start ${atStart.floor.toFixed(1)}, after 5,000: ${at5k.floor.toFixed(1)}`,
        }),
        row("floor v2 (SDK 2.4): constant tool, stdio", "floorV2"),
        row(`ours with ${CAP[0]} (diagnostic)`, "oursCapped"),
        row(`ours with ${SEMI[0]} (diagnostic: young generation held small)`, "oursSemi", {
          ratio: at1k.oursSemi / at1k.floorV2,
          note: `ratio = / floor v2; start ${atStart.oursSemi.toFixed(1)}, after 5,000: ${at5k.oursSemi.toFixed(1)}`,
        }),
      ],
      targets: [
        {
          name: "3. RSS after 1,000 calls: ours / floor v2",
          figure: `${ratio.toFixed(2)} (1.x floor: ${ratio1x.toFixed(2)})`,
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
