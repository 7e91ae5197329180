/**
 * bench:check's HTTP figure (interface.md 9c): the HTTP edge at HTTP_CLIENTS clients, ours against the
 * relay floor over the same stateless transport (bench/sections/http-edge.mjs), calls per second.
 */
import { httpEdgeLevel, startHttpPair } from "../sections/http-edge.mjs";

export const HTTP_CLIENTS = 32;

/** ours / relay floor in calls per second at HTTP_CLIENTS clients, and the failed calls of either. */
export async function httpFigure(sb, { rounds = 5 } = {}) {
  const pair = await startHttpPair(sb);
  try {
    // Four warm-up rounds (1,280 calls): a fresh server of ours has far more code to compile than the
    // floor's constant relay; its CPU a call settles only after ~1,600 calls (docs/quality.md, issue 43),
    // and with two rounds one calm CI run read 0.74 on its first measure and 0.99 on its second.
    const level = await httpEdgeLevel(pair, HTTP_CLIENTS, { rounds, callsPerClient: 10, warmup: 4 });
    return { ratio: level.ratio, perSecond: [level.ours, level.relay], errors: level.errors, rounds };
  } finally {
    await pair.stop();
  }
}
