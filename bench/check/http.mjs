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
    // Two warm-up rounds: a fresh server of ours has far more code to compile than the floor's
    // constant relay, and one round (320 calls) left ours' first measured rounds still warming.
    const level = await httpEdgeLevel(pair, HTTP_CLIENTS, { rounds, callsPerClient: 10, warmup: 2 });
    return { ratio: level.ratio, perSecond: [level.ours, level.relay], errors: level.errors, rounds };
  } finally {
    await pair.stop();
  }
}
