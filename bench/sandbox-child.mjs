#!/usr/bin/env node
/**
 * The benchmarks' upstream: the embedded sandbox (from dist/) in a process of its own, so that
 * every series pays the same process hops (bench → sandbox → bench for the direct request,
 * bench → server → sandbox → server → bench for ours) and the sandbox's CPU is not the
 * benchmark's. Controlled over the IPC channel: it sends {ready, url, env}, then answers
 * {cmd: "latency", ms, route}, {cmd: "addBudgets", total}, {cmd: "setBudgets", total} and
 * {cmd: "rateStats"} with {ok, result}. Its one optional argument is the JSON of the sandbox's
 * `rateLimit` option ({perMinute, windowMs}): the platform's request limit, played with a short "minute".
 */
import { startSandbox } from "../dist/src/sandbox/index.js";

const rateLimit = process.argv[2] ? JSON.parse(process.argv[2]) : undefined;
const sb = await startSandbox({ port: 0, rateLimit });

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

const DAY = 86_400_000;
/** Each round of clones sits this much further back, so 30,000 budgets spread over a year (the seed spans ~90 days). */
const SHIFT_DAYS = 88;

/**
 * Make company 1 hold exactly `total` budgets (the scale section): clones of the seed as in
 * addBudgets, but each round of clones moved back SHIFT_DAYS more (all four dates and date_create),
 * so the budgets of a large site spread over the last year; fewer than now drops the newest ids.
 * Returns company 1's budget count.
 */
function setBudgets(total) {
  const mine = sb.state.budgets.filter((b) => b.companyId === 1);
  if (mine.length > total) {
    const drop = new Set(mine.slice(total));
    const keep = sb.state.budgets.filter((b) => !drop.has(b));
    sb.state.budgets.length = 0;
    for (const b of keep) sb.state.budgets.push(b);
    return total;
  }
  const seed = mine.filter((b) => b.record.id < 30_001);
  const shift = (ms, by) => (ms === null ? null : ms - by);
  for (let i = mine.length - seed.length; seed.length + i < total; i++) {
    const source = seed[i % seed.length];
    const by = (Math.floor(i / seed.length) % 4) * SHIFT_DAYS * DAY;
    const id = 30_001 + i;
    const dates = Object.fromEntries(Object.entries(source.dates).map(([k, v]) => [k, shift(v, by)]));
    const created = new Date(Date.parse(source.record.date_create) - by)
      .toISOString()
      .replace("Z", "000+00:00");
    sb.state.budgets.push({
      ...structuredClone(source),
      dates,
      record: { ...structuredClone(source.record), id, folio: String(id), date_create: created },
    });
  }
  return sb.state.budgets.filter((b) => b.companyId === 1).length;
}

const commands = {
  latency: ({ ms, route }) => sb.faults.latency(ms, route),
  addBudgets: ({ total }) => addBudgets(total),
  setBudgets: ({ total }) => setBudgets(total),
  rateStats: () => sb.rateLimitStats(),
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
