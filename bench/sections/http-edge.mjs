/**
 * The HTTP edge against its floor: calls per second with N concurrent clients (one SDK client
 * each, sequential calls) over stateless Streamable HTTP, ours (`--http --port 0`,
 * `list_warehouse_groups_1` page of 100 against the sandbox) against the relay floor on the same
 * transport (bench/floor-relay.mjs --http: the bare v2 SDK server making the same upstream request and
 * returning ours' recorded answer). Rounds alternate ours / relay; in a round every client makes
 * `callsPerClient` calls. `ours / relay` is what our edge and our work cost (interface.md 9c).
 */
import { interleave, median } from "../lib/measure.mjs";
import { callOk, childEnv, connectHttp, OURS_BIN, startHttpServer, startRelayHttp } from "../lib/servers.mjs";

const TOOL = "list_warehouse_groups_1";
const PAGE = 100;
const RELAY_CALLS = {
  page: { tool: TOOL, args: { limit: PAGE }, path: "/warehouses_groups_1", query: { start: 0, limit: PAGE } },
};

/** Start ours and the relay floor over HTTP; `stop()` ends both. */
export async function startHttpPair(sb, env = {}) {
  const ours = await startHttpServer(OURS_BIN, ["--http", "--port", "0"], childEnv({ ...sb.env(), ...env }));
  let relay;
  try {
    const recorder = await connectHttp(ours.url);
    try {
      relay = await startRelayHttp(sb, recorder.client, RELAY_CALLS);
    } finally {
      await recorder.close();
    }
  } catch (error) {
    await ours.stop();
    throw error;
  }
  return {
    ours,
    relay,
    stop: async () => {
      await ours.stop();
      await relay.stop();
    },
  };
}

/**
 * Calls per second of ours and of the relay floor at `clients` clients, medians of `rounds`
 * interleaved rounds (after `warmup` more), and of their fastest rounds; `errors` counts failed calls of
 * either (never timed as calls).
 */
export async function httpEdgeLevel(pair, clients, { rounds = 5, callsPerClient = 10, warmup = 1 } = {}) {
  const connect = (url) => Promise.all(Array.from({ length: clients }, () => connectHttp(url)));
  const pools = { ours: await connect(pair.ours.url), relay: await connect(pair.relay.url) };
  const call = {
    ours: (c) => callOk(c, TOOL, { limit: PAGE }),
    relay: (c) => callOk(c, "relay", { key: "page" }),
  };
  let errors = 0;
  const round = (name) => () =>
    Promise.all(
      pools[name].map(async ({ client }) => {
        for (let i = 0; i < callsPerClient; i++) {
          await call[name](client).catch(() => {
            errors++;
          });
        }
      }),
    );
  try {
    const samples = await interleave({ ours: round("ours"), relay: round("relay") }, { rounds, warmup });
    const perSecond = (ms) => (clients * callsPerClient * 1000) / ms;
    const ours = perSecond(median(samples.ours));
    const relay = perSecond(median(samples.relay));
    // The fastest rounds too: load from other processes only slows a round down (bench/check/review.mjs).
    const fastest = {
      ours: perSecond(Math.min(...samples.ours)),
      relay: perSecond(Math.min(...samples.relay)),
    };
    return {
      clients,
      ours,
      relay,
      ratio: ours / relay,
      fastest,
      fastestRatio: fastest.ours / fastest.relay,
      errors,
    };
  } finally {
    for (const c of Object.values(pools).flat()) await c.close();
  }
}
