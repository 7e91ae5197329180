/**
 * 6. HTTP transport: calls per second with 1, 8 and 32 concurrent clients (one SDK session
 * each) over Streamable HTTP, ours (`--http --port 0`, `list_warehouse_groups_1` default page of
 * 100 against the sandbox) against the floor on the same transport (its constant tool).
 * Rounds alternate ours / floor / ours-dry-run; in a round every client makes CALLS_PER_CLIENT
 * sequential calls. The dry-run series (`create_warehouse_entry` with `dry_run: true`: input
 * validation and a result, no upstream request) is a diagnostic separating our transport and
 * wrapper from the upstream work. The relay floor over HTTP (bench/floor-relay.mjs --http: the bare v2
 * server making the same upstream request and returning ours' answer) is what the HTTP edge is held to
 * (interface.md 9c). Targets: ours >= 0.8 x the floor and >= 0.9 x the relay floor at 32 clients, zero errors.
 */
import { SEED } from "../../dist/src/sandbox/index.js";
import { interleave, median } from "../lib/measure.mjs";
import {
  callOk,
  childEnv,
  connectHttp,
  FLOOR_BIN,
  FLOOR_V2_BIN,
  OURS_BIN,
  startHttpServer,
  startRelayHttp,
} from "../lib/servers.mjs";

const LEVELS = [1, 8, 32];
const ROUNDS = 5;
const CALLS_PER_CLIENT = 10;
const DRY_RUN = {
  warehouse_code: SEED.warehouses.main,
  movement_type: "purchase",
  document: "BENCH-DRY",
  code_user: SEED.users.withAccount,
  items: [{ code: SEED.itemCodes.sparePart, qty: 1, unit_cost: 11 }],
  dry_run: true,
};

export default async function httpTransport({ sb }) {
  const ours = await startHttpServer(OURS_BIN, ["--http", "--port", "0"], childEnv(sb.env()));
  const floor = await startHttpServer(FLOOR_BIN, ["--http", "--port", "0"]);
  const floorV2 = await startHttpServer(FLOOR_V2_BIN, ["--http", "--port", "0"]);
  const recorder = await connectHttp(ours.url);
  const relay = await startRelayHttp(sb, recorder.client, {
    page: {
      tool: "list_warehouse_groups_1",
      args: {},
      path: "/warehouses_groups_1",
      query: { start: 0, limit: 100 },
    },
  }).finally(() => recorder.close());
  const rows = [];
  const targets = [];
  let errors = 0;
  try {
    for (const clients of LEVELS) {
      const connect = (url) => Promise.all(Array.from({ length: clients }, () => connectHttp(url)));
      const pools = {
        ours: await connect(ours.url),
        floor: await connect(floor.url),
        floorV2: await connect(floorV2.url),
        relay: await connect(relay.url),
        oursDry: await connect(ours.url),
      };
      const call = {
        ours: (c) => callOk(c, "list_warehouse_groups_1"),
        floor: (c) => callOk(c, "constant"),
        floorV2: (c) => callOk(c, "constant"),
        relay: (c) => callOk(c, "relay", { key: "page" }),
        oursDry: (c) => callOk(c, "create_warehouse_entry", DRY_RUN),
      };
      const round = (name) => async () => {
        await Promise.all(
          pools[name].map(async ({ client }) => {
            for (let i = 0; i < CALLS_PER_CLIENT; i++) {
              await call[name](client).catch(() => {
                errors++;
              });
            }
          }),
        );
      };
      const samples = await interleave(
        {
          ours: round("ours"),
          floor: round("floor"),
          floorV2: round("floorV2"),
          relay: round("relay"),
          oursDry: round("oursDry"),
        },
        { rounds: ROUNDS, warmup: 1, label: `http ${clients} client(s)` },
      );
      const perSecond = (ms) => (clients * CALLS_PER_CLIENT * 1000) / ms;
      const ops = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, perSecond(median(v))]));
      const ratio = ops.ours / ops.floor;
      const bench = "6. HTTP (calls/s)";
      rows.push({
        bench,
        series: `ours, list_warehouse_groups_1, ${clients} client(s)`,
        median: ops.ours,
        ratio,
        note: "ratio = / floor",
      });
      rows.push({ bench, series: `floor (SDK 1.32, sessions), ${clients} client(s)`, median: ops.floor });
      rows.push({
        bench,
        series: `floor v2 (SDK 2.4, stateless), ${clients} client(s)`,
        median: ops.floorV2,
        ratio: ops.ours / ops.floorV2,
        note: "ratio = ours / floor v2",
      });
      rows.push({
        bench,
        series: `relay floor v2 (SDK 2.4, stateless, same upstream request), ${clients} client(s)`,
        median: ops.relay,
        ratio: ops.ours / ops.relay,
        note: "ratio = ours / relay floor",
      });
      rows.push({
        bench,
        series: `ours, dry run (no upstream), ${clients} client(s)`,
        median: ops.oursDry,
        ratio: ops.oursDry / ops.floor,
        note: "diagnostic",
      });
      if (clients === 32) {
        targets.push({
          name: "6. HTTP calls/s at 32 clients: ours / floor",
          figure: `${ratio.toFixed(2)} (${ops.ours.toFixed(0)} vs ${ops.floor.toFixed(0)} calls/s)`,
          target: ">= 0.8",
          met: ratio >= 0.8,
        });
        targets.push({
          name: "6. HTTP calls/s at 32 clients: ours / relay floor over HTTP",
          figure: `${(ops.ours / ops.relay).toFixed(2)} (${ops.ours.toFixed(0)} vs ${ops.relay.toFixed(0)} calls/s)`,
          target: ">= 0.9",
          met: ops.ours / ops.relay >= 0.9,
        });
      }
      process.stderr.write(
        `  http ${clients}: ours ${ops.ours.toFixed(0)}/s, floor ${ops.floor.toFixed(0)}/s\n`,
      );
      for (const c of Object.values(pools).flat()) await c.close();
    }
    targets.push({ name: "6. HTTP errors", figure: String(errors), target: "0", met: errors === 0 });
    return { rows, targets };
  } finally {
    await ours.stop();
    await floor.stop();
    await floorV2.stop();
    await relay.stop();
  }
}
