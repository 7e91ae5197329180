#!/usr/bin/env node
// Figures for docs/sandbox.md "Persistence": the cost of a write with a small and a large state
// file (default ~150 MB), the journal bytes per write, start and close times, and what one
// full rewrite of the state costs (what every write cost before the journal).
// Needs dist/ (npm run build). Usage: node scripts/sandbox-state-bench.mjs [targetMB] [writes]
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { DEMO_CREDENTIALS, startSandbox } from "../dist/src/sandbox/index.js";

const targetMb = Number(process.argv[2] ?? 150);
const writes = Number(process.argv[3] ?? 200);
const dir = mkdtempSync(join(tmpdir(), "sandbox-state-bench-"));

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = (x) => `${x.toFixed(2)} ms`;

async function token(sb) {
  const c = DEMO_CREDENTIALS.oauth.demo;
  const res = await fetch(`${sb.authUrl}/oauth/token`, {
    method: "POST",
    headers: {
      Authorization: `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret}`).toString("base64")}`,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: "grant_type=client_credentials",
  });
  return (await res.json()).access_token;
}

async function measure(label, file) {
  let t = performance.now();
  const sb = await startSandbox({ stateFile: file });
  const startMs = performance.now() - t;
  const tok = await token(sb);
  const post = (document) =>
    fetch(`${sb.baseUrl}/warehouse_entries_orders/WH-MAIN`, {
      method: "POST",
      headers: { Authorization: `Bearer ${tok}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        movement_type: 1,
        document,
        code_user: "HR-001",
        items: [{ code: "SP-1003", qty: 1, unit_cost: 2 }],
      }),
    }).then((r) => r.text());
  for (let i = 0; i < 20; i++) await post(`WARM-${i}`);
  const journal = `${file}.journal`;
  const before = statSync(journal).size;
  const lat = [];
  // A read running alongside the writes: its worst latency shows whether writes stall others.
  const reads = [];
  let writing = true;
  const reader = (async () => {
    while (writing) {
      const r = performance.now();
      await fetch(`${sb.baseUrl}/warehouses_groups_1?limit=1`, {
        headers: { Authorization: `Bearer ${tok}` },
      }).then((x) => x.text());
      reads.push(performance.now() - r);
    }
  })();
  for (let i = 0; i < writes; i++) {
    const w = performance.now();
    await post(`BENCH-${i}`);
    lat.push(performance.now() - w);
  }
  writing = false;
  await reader;
  const perWrite = (statSync(journal).size - before) / writes;
  t = performance.now();
  await sb.close();
  const closeMs = performance.now() - t;
  const size = statSync(file).size;
  process.stdout.write(
    `${label}: state ${(size / 1e6).toFixed(1)} MB | write p50 ${ms(pct(lat, 0.5))}, p95 ${ms(pct(lat, 0.95))}, ` +
      `max ${ms(Math.max(...lat))} | concurrent read max ${ms(Math.max(...reads))} | ` +
      `journal ${perWrite.toFixed(0)} B/write | start ${ms(startMs)} | close ${ms(closeMs)}\n`,
  );
  return size;
}

try {
  const small = join(dir, "small.json");
  await (await startSandbox({ stateFile: small })).close();
  const state = JSON.parse(readFileSync(small, "utf8"));
  const base = state.budgets[0];
  const one = Buffer.byteLength(JSON.stringify(base));
  const copies = Math.ceil((targetMb * 1e6) / one);
  for (let i = 0; i < copies; i++)
    state.budgets.push({ ...base, record: { ...base.record, id: 1_000_000 + i } });
  const large = join(dir, "large.json");
  const text = JSON.stringify(state);
  let t = performance.now();
  writeFileSync(large, text);
  const rewriteMs = performance.now() - t;
  t = performance.now();
  JSON.stringify(state);
  const stringifyMs = performance.now() - t;

  await measure("small", small);
  await measure("large", large);
  process.stdout.write(
    `one full rewrite of the large state (every write's cost before the journal): ` +
      `stringify ${ms(stringifyMs)} + write ${ms(rewriteMs)}\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
