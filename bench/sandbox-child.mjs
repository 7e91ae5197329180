#!/usr/bin/env node
/**
 * The benchmarks' upstream: the embedded sandbox (from dist/) in a process of its own, so that
 * every series pays the same process hops (bench → sandbox → bench for the direct request,
 * bench → server → sandbox → server → bench for ours) and the sandbox's CPU is not the
 * benchmark's. Controlled over the IPC channel: it sends {ready, url, env}, then answers
 * {cmd: "latency", ms, route} and {cmd: "addBudgets", total} with {ok, result}.
 */
import { startSandbox } from "../dist/src/sandbox/index.js";

const sb = await startSandbox({ port: 0 });

/**
 * Grow company 1's budgets to `total` by cloning seeded ones under new ids and folios (ids from
 * 30001, clear of the seed's 7001-8012). Clones keep the originals' dates, so period filters
 * that match the seed match them too. Returns company 1's budget count.
 */
function addBudgets(total) {
  const own = sb.state.budgets.filter((b) => b.companyId === 1);
  for (let i = 0; own.length + i < total; i++) {
    const source = own[i % own.length];
    const id = 30_001 + i;
    sb.state.budgets.push({
      ...structuredClone(source),
      record: { ...structuredClone(source.record), id, folio: String(id) },
    });
  }
  return sb.state.budgets.filter((b) => b.companyId === 1).length;
}

const commands = {
  latency: ({ ms, route }) => sb.faults.latency(ms, route),
  addBudgets: ({ total }) => addBudgets(total),
};

process.on("message", (msg) => {
  try {
    process.send({ id: msg.id, ok: true, result: commands[msg.cmd](msg) });
  } catch (error) {
    process.send({ id: msg.id, ok: false, error: String(error) });
  }
});
process.once("disconnect", () => void sb.close().then(() => process.exit(0)));
process.send({ ready: true, url: sb.url, baseUrl: sb.baseUrl, authUrl: sb.authUrl, env: sb.env() });
