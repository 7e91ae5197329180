/**
 * 9. Tenants under hostile load (interface.md §7b): two tenants on one replica (`--http` with a
 * tenants file, the default MCP_TENANT_MAX_IN_FLIGHT), one well behaved, one misbehaving, each with
 * its own upstream (the shared sandbox, and a second sandbox for the bad tenant). The good tenant
 * makes CALLS sequential `list_warehouse_groups_1` calls per round; rounds alternate "alone", "beside
 * the bad tenant" and a diagnostic, side by side in one run. The bad tenant, during its rounds:
 * 24 requests whose body never completes, a loop of JSON-RPC batches, and a flood of concurrent
 * calls kept past its own limit (a 429 is retried after 50 ms) whose upstream answers in 300 ms, so
 * the flood holds its slots. Targets: the good tenant's p95 beside it / alone <= 1.2 (the issue's
 * figure), and beside it / beside a polite tenant using the same allowance (16 calls in flight on the
 * same slow upstream, nothing else) <= 1.2: what the misbehaviour adds beyond a legitimate peer.
 * Diagnostic: the same attack with a fast upstream, so the flood's admitted calls are CPU work on the
 * same cores; fairness bounds the bad tenant's slots, not its share of the CPU.
 */
import { fork } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { setPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { tokenSha256 } from "../../dist/src/hosting/tenants.js";
import { interleave, median, now, p95 } from "../lib/measure.mjs";
import { callOk, childEnv, OURS_BIN, startHttpServer } from "../lib/servers.mjs";
import { startSandbox } from "../lib/upstream.mjs";

const ATTACKER = fileURLToPath(new URL("../tenant-attacker.mjs", import.meta.url));
const ROUNDS = 8;
const SLOW_UPSTREAM_MS = 300;
const CALLS = 25;
/** The default MCP_TENANT_MAX_IN_FLIGHT (the attacker's flood keeps it full, and tries 8 more). */
const TENANT_LIMIT = 16;
const TOKENS = { good: "good-tenant-token-0123456789abcdef", bad: "bad-tenant-token-0123456789abcdef" };

function tenantsFile(good, bad) {
  const dir = mkdtempSync(join(tmpdir(), "bench-tenants-"));
  const tenant = (name, sb) => ({
    name,
    token_sha256: tokenSha256(TOKENS[name]),
    upstream: {
      MMS_BASE_URL: sb.baseUrl,
      MMS_AUTH_URL: sb.authUrl,
      MMS_CLIENT_ID: sb.env().MMS_CLIENT_ID,
      MMS_CLIENT_SECRET: { env: "BENCH_CLIENT_SECRET" },
    },
  });
  const file = join(dir, "tenants.json");
  writeFileSync(file, JSON.stringify({ tenants: [tenant("good", good), tenant("bad", bad)] }));
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The bad tenant runs in its own process (bench/tenant-attacker.mjs): its client work is not timed with ours. */
function startAttacker() {
  const child = fork(ATTACKER, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const ask = (message) =>
    new Promise((resolve) => {
      child.once("message", resolve);
      child.send(message);
    });
  return {
    pid: child.pid,
    /** Start misbehaving against `url`; resolves once it is under way. */
    start: (url, polite) => ask({ cmd: "start", url, token: TOKENS.bad, polite }),
    /** Stop; resolves with what the server answered it. */
    stop: () => ask({ cmd: "stop" }),
    async close() {
      child.disconnect();
      await exited;
    },
  };
}

export default async function tenants({ sb }) {
  const badUpstream = await startSandbox();
  const file = tenantsFile(sb, badUpstream);
  const server = await startHttpServer(
    OURS_BIN,
    ["--http", "--port", "0"],
    childEnv({ MCP_TENANTS_FILE: file.file, BENCH_CLIENT_SECRET: sb.env().MMS_CLIENT_SECRET }),
  );
  const client = new Client({ name: "bench-good", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${TOKENS.good}` } },
    }),
  );
  const samples = { alone: [], polite: [], beside: [], busy: [] };
  const attack = { served: 0, limited: 0, batchRefused: 0, other: 0, stalled: 0 };
  const busyAttack = { ...attack };
  const politeUse = { ...attack };
  let errors = 0;
  const goodCalls = async (into) => {
    for (let i = 0; i < CALLS; i++) {
      const t0 = now();
      await callOk(client, "list_warehouse_groups_1").catch(() => {
        errors++;
      });
      into.push(now() - t0);
    }
  };
  let recording = false;
  const attacker = startAttacker();
  // IMPORTANT: on one 2-core machine the bad tenant's own client and upstream compete for the CPU
  // with everything measured, which would not happen where they run on other machines. At the
  // lowest priority they take only idle CPU, so what remains is what our server lets one tenant do
  // to another.
  for (const pid of [attacker.pid, badUpstream.pid]) setPriority(pid, 19);
  const besideBad =
    (series, upstreamMs, into, polite = false) =>
    async () => {
      await badUpstream.latency(upstreamMs);
      await attacker.start(server.url, polite);
      // Let the stalled bodies and the flood take hold before the good tenant calls.
      await new Promise((r) => setTimeout(r, 200));
      await goodCalls(recording ? samples[series] : []);
      const counts = await attacker.stop();
      if (recording) for (const k of Object.keys(into)) into[k] += counts[k];
    };
  try {
    await interleave(
      {
        alone: () => goodCalls(recording ? samples.alone : []),
        polite: besideBad("polite", SLOW_UPSTREAM_MS, politeUse, true),
        beside: besideBad("beside", SLOW_UPSTREAM_MS, attack),
        busy: async () => {
          await besideBad("busy", 0, busyAttack)();
          recording = true;
        },
      },
      { rounds: ROUNDS, warmup: 1, label: "tenants", progressEvery: 2 },
    );
  } finally {
    await client.close();
    await attacker.close();
    await server.stop();
    await badUpstream.close();
    file.remove();
  }
  const bench = "9. Tenants (ms per call)";
  const ratio = p95(samples.beside) / p95(samples.alone);
  const beyondPolite = p95(samples.beside) / p95(samples.polite);
  const said = (c) =>
    `bad tenant: ${c.served} served, ${c.limited} x 429, ${c.batchRefused} batches refused, ${c.other} other, ${c.stalled} stalled bodies`;
  const rows = [
    {
      bench,
      series: "good tenant alone",
      n: samples.alone.length,
      median: median(samples.alone),
      p95: p95(samples.alone),
    },
    {
      bench,
      series: "good tenant beside a polite one using its allowance",
      n: samples.polite.length,
      median: median(samples.polite),
      p95: p95(samples.polite),
      ratio: p95(samples.polite) / p95(samples.alone),
      note: `ratio = p95 / alone; ${TENANT_LIMIT} calls in flight, upstream ${SLOW_UPSTREAM_MS} ms; ${politeUse.served} served`,
    },
    {
      bench,
      series: "good tenant beside a misbehaving one",
      n: samples.beside.length,
      median: median(samples.beside),
      p95: p95(samples.beside),
      ratio,
      note: `ratio = p95 / alone; upstream of the bad tenant ${SLOW_UPSTREAM_MS} ms; ${said(attack)}`,
    },
    {
      bench,
      series: "diagnostic: beside a misbehaving one with a fast upstream (CPU-bound flood)",
      n: samples.busy.length,
      median: median(samples.busy),
      p95: p95(samples.busy),
      ratio: p95(samples.busy) / p95(samples.alone),
      note: `ratio = p95 / alone; ${said(busyAttack)}`,
    },
  ];
  const targets = [
    {
      name: "9. Tenants: good tenant's p95 beside a misbehaving one / alone",
      figure: `${ratio.toFixed(2)} (${p95(samples.beside).toFixed(1)} vs ${p95(samples.alone).toFixed(1)} ms)`,
      target: "<= 1.2",
      met: ratio <= 1.2,
    },
    {
      name: "9. Tenants: good tenant's p95 beside a misbehaving one / beside a polite one at the same allowance",
      figure: `${beyondPolite.toFixed(2)} (${p95(samples.beside).toFixed(1)} vs ${p95(samples.polite).toFixed(1)} ms)`,
      target: "<= 1.2",
      met: beyondPolite <= 1.2,
    },
    { name: "9. Tenants: good tenant's errors", figure: String(errors), target: "0", met: errors === 0 },
  ];
  return { rows, targets };
}
