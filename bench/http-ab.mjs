#!/usr/bin/env node
/**
 * Two builds' HTTP edge side by side (issue 43): an earlier build (`--before <its dist/bin/maintenance-mcp.js>`),
 * this one (dist/, or BENCH_OURS_BIN) and the relay floor over HTTP (bench/floor-relay.mjs --http), each
 * `--http --port 0` against one sandbox, their rounds interleaved in one run: in a round every client
 * makes `--calls` sequential `list_warehouse_groups_1` calls. Prints, per level of clients, calls per
 * second from the median round and from the fastest (ratios to the relay floor), the server's CPU per
 * call (/proc/<pid>/stat: steadier than throughput on a shared machine) and the failed calls.
 * The sandbox's and the clients' CPU per call (the same work for every series) is printed beside.
 *   node bench/http-ab.mjs --before /tmp/old/dist/bin/maintenance-mcp.js [--clients 1,8,32] [--rounds 7] [--calls 10] [--warmup 1]
 */
import { parseArgs } from "node:util";
import { median } from "./lib/measure.mjs";
import {
  callOk,
  childEnv,
  connectHttp,
  cpuMs,
  OURS_BIN,
  startHttpServer,
  startRelayHttp,
} from "./lib/servers.mjs";
import { startSandbox } from "./lib/upstream.mjs";

const TOOL = "list_warehouse_groups_1";
const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const ARGS = { limit: 100 };

async function startServers(sb, before) {
  const env = childEnv(sb.env());
  const servers = {
    before: await startHttpServer(before, ["--http", "--port", "0"], env),
    after: await startHttpServer(OURS_BIN, ["--http", "--port", "0"], env),
  };
  const recorder = await connectHttp(servers.after.url);
  servers.relay = await startRelayHttp(sb, recorder.client, {
    page: { tool: TOOL, args: ARGS, path: "/warehouses_groups_1", query: { start: 0, limit: 100 } },
  }).finally(() => recorder.close());
  return servers;
}

/** One level: interleaved rounds, then the figures of each server. */
async function level(servers, clients, { rounds, calls, warmup }, sandboxPid) {
  const names = Object.keys(servers);
  const call = (name, c) => (name === "relay" ? callOk(c, "relay", { key: "page" }) : callOk(c, TOOL, ARGS));
  const pools = {};
  for (const name of names)
    pools[name] = await Promise.all(Array.from({ length: clients }, () => connectHttp(servers[name].url)));
  const ms = Object.fromEntries(names.map((n) => [n, []]));
  const cpu = Object.fromEntries(names.map((n) => [n, 0]));
  // The rest of each call's CPU: the sandbox's and this process's (the clients), the same work for each series.
  const rest = Object.fromEntries(names.map((n) => [n, 0]));
  let errors = 0;
  for (let r = -warmup; r < rounds; r++) {
    for (const name of names) {
      const c0 = cpuMs(servers[name].pid);
      const r0 = cpuMs(sandboxPid) + ownCpuMs();
      const t0 = performance.now();
      await Promise.all(
        pools[name].map(async ({ client }) => {
          for (let i = 0; i < calls; i++) await call(name, client).catch(() => errors++);
        }),
      );
      if (r < 0) continue;
      ms[name].push(performance.now() - t0);
      cpu[name] += cpuMs(servers[name].pid) - c0;
      rest[name] += cpuMs(sandboxPid) + ownCpuMs() - r0;
    }
  }
  for (const c of Object.values(pools).flat()) await c.close();
  const perSecond = (t) => (clients * calls * 1000) / t;
  const of = (name) => ({
    median: perSecond(median(ms[name])),
    fastest: perSecond(Math.min(...ms[name])),
    cpuPerCall: cpu[name] / (clients * calls * rounds),
    restPerCall: rest[name] / (clients * calls * rounds),
  });
  return { clients, before: of("before"), after: of("after"), relay: of("relay"), errors };
}

const { values } = parseArgs({
  options: {
    before: { type: "string" },
    clients: { type: "string", default: "1,8,32" },
    rounds: { type: "string", default: "7" },
    calls: { type: "string", default: "10" },
    // Rounds not counted at each level: ours has more code to compile than the floor, and its CPU per
    // call at 32 clients fell from ~1.5 to ~0.95 ms over its first few thousand calls.
    warmup: { type: "string", default: "1" },
  },
});
if (values.before === undefined) {
  process.stderr.write(
    "usage: node bench/http-ab.mjs --before <earlier build's dist/bin/maintenance-mcp.js>\n",
  );
  process.exit(2);
}
const sb = await startSandbox();
const servers = await startServers(sb, values.before);
try {
  for (const clients of values.clients.split(",").map(Number)) {
    const f = await level(
      servers,
      clients,
      { rounds: Number(values.rounds), calls: Number(values.calls), warmup: Number(values.warmup) },
      sb.pid,
    );
    const r = (k, x) => (f[x][k] / f.relay[k]).toFixed(2);
    process.stdout.write(
      `${clients} clients: calls/s before ${f.before.median.toFixed(0)} (${r("median", "before")} x relay), after ${f.after.median.toFixed(0)} (${r("median", "after")} x), relay ${f.relay.median.toFixed(0)}; fastest rounds before ${r("fastest", "before")} x, after ${r("fastest", "after")} x; server CPU ms/call before ${f.before.cpuPerCall.toFixed(2)}, after ${f.after.cpuPerCall.toFixed(2)}, relay ${f.relay.cpuPerCall.toFixed(2)}; sandbox + clients CPU ms/call before ${f.before.restPerCall.toFixed(2)}, after ${f.after.restPerCall.toFixed(2)}, relay ${f.relay.restPerCall.toFixed(2)}; ${f.errors} failed calls\n`,
    );
  }
} finally {
  for (const s of Object.values(servers)) await s.stop();
  await sb.close();
}
