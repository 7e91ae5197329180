/**
 * The upstream side of the benchmarks: the sandbox in a child process (bench/sandbox-child.mjs),
 * a direct undici client of it (the "direct request" baseline, and the source of raw JSON), and
 * the date helper shared by the series.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { request } from "undici";

/** The second integration of company 1 (sandbox demo credentials: read only, same company as "demo"). */
const READONLY_ENV = (sb) => ({
  ...sb.env(),
  MMS_CLIENT_ID: "readonly-client",
  MMS_CLIENT_SECRET: "readonly-secret",
});

const CHILD = fileURLToPath(new URL("../sandbox-child.mjs", import.meta.url));

/**
 * Start the sandbox process; `options.rateLimit` ({perMinute, windowMs}) makes it play the platform's
 * request limit (headers on every answer, 406 past it), see startRateLimitedUpstream.
 * @returns {Promise<{url, baseUrl, authUrl, env: () => Record<string,string>,
 *   latency: (ms: number, route: string) => Promise<void>, addBudgets: (total: number) => Promise<number>,
 *   setBudgets: (total: number) => Promise<number>,
 *   rateStats: () => Promise<{perMinute, windowMs, clients: Record<string, {accepted, maxInWindow, refused}>} | undefined>,
 *   close: () => Promise<void>}>}
 */
export function startSandbox(options = {}) {
  const args = options.rateLimit === undefined ? [] : [JSON.stringify(options.rateLimit)];
  const child = fork(CHILD, args, { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const pending = new Map();
  let nextId = 1;
  const send = (cmd, args) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ id, cmd, ...args });
    });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`sandbox exited with ${code}`)));
    child.on("message", (msg) => {
      if (msg.ready) {
        resolve({
          pid: child.pid,
          url: msg.url,
          baseUrl: msg.baseUrl,
          authUrl: msg.authUrl,
          env: () => ({ ...msg.env }),
          latency: (ms, route) => send("latency", { ms, route }),
          addBudgets: (total) => send("addBudgets", { total }),
          setBudgets: (total) => send("setBudgets", { total }),
          rateStats: () => send("rateStats", {}),
          close: async () => {
            child.disconnect();
            await exited;
          },
        });
        return;
      }
      const waiter = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.ok) waiter?.resolve(msg.result);
      else waiter?.reject(new Error(msg.error));
    });
  });
}

/** The bench's "minute": the platform's 200 requests per minute, played ten times faster. */
export const BENCH_RATE_LIMIT = Object.freeze({ perMinute: 200, windowMs: 6_000 });

/**
 * A sandbox process that plays the platform's request limit (`perMinute` per company per `windowMs`,
 * both header spellings, 406 past it). A server under test gets the same window through
 * MMS_RATE_WINDOW_MS (see rateLimitedEnv), so its budget of L x MMS_RATE_SHARE per window is the real
 * one, only faster. `rateStats()` tells, per client id, the most requests accepted in any rolling
 * window and the 406s given.
 */
export function startRateLimitedUpstream(rateLimit = BENCH_RATE_LIMIT) {
  return startSandbox({ rateLimit });
}

/** The environment of a server that talks to a rate-limited upstream with the bench's short window. */
export function rateLimitedEnv(sb, rateLimit = BENCH_RATE_LIMIT, extra = {}) {
  return { ...sb.env(), MMS_RATE_WINDOW_MS: String(rateLimit.windowMs), ...extra };
}

/**
 * A direct client of the sandbox API: one OAuth token, then plain GETs with Bearer. `client`:
 * "demo" (default) or "readonly" (the same company, another integration), from DEMO_CREDENTIALS.
 * With `{status: true}` a GET answers {status, body} instead of throwing on a non-2xx answer.
 */
export async function directClient(sb, { client = "demo", status = false } = {}) {
  const env = client === "demo" ? sb.env() : READONLY_ENV(sb);
  const basic = Buffer.from(`${env.MMS_CLIENT_ID}:${env.MMS_CLIENT_SECRET}`).toString("base64");
  const tokenRes = await request(`${sb.authUrl}/oauth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  const { access_token: token } = await tokenRes.body.json();
  if (!token) throw new Error(`no token (HTTP ${tokenRes.statusCode})`);

  /** GET {baseUrl}{path}?{query}; returns the parsed envelope, throws on a non-2xx answer. */
  return async function get(path, query = {}) {
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
    const res = await request(`${sb.baseUrl}${path}${qs ? `?${qs}` : ""}`, {
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    });
    const body = await res.body.json();
    if (status) return { status: res.statusCode, body };
    if (res.statusCode >= 300) throw new Error(`GET ${path}: HTTP ${res.statusCode}`);
    return body;
  };
}

/**
 * Another integration of the same company (readonly-client) reading one warehouse group every
 * `limit.windowMs / 5` (50 of the platform's 200 a minute, evenly) until `stop()`, which resolves with
 * the number of requests it sent. An answer other than 200 or 406 fails the walk (and `stop()`).
 * Sections 9 and 10 run it beside our server against the rate-limited upstream.
 */
export async function otherIntegration(sb, limit = BENCH_RATE_LIMIT) {
  const other = await directClient(sb, { client: "readonly", status: true });
  let walking = true;
  let sent = 0;
  const runs = (async () => {
    while (walking) {
      const answer = await other("/warehouses_groups_1", { limit: 1 });
      if (answer.status !== 200 && answer.status !== 406)
        throw new Error(`other client: HTTP ${answer.status}`);
      sent += 1;
      await new Promise((r) => setTimeout(r, limit.windowMs / 5));
    }
  })();
  return {
    stop: async () => {
      walking = false;
      await runs;
      return sent;
    },
  };
}

/** One client's figures from the rate-limited upstream's rateStats(), zeros when it sent nothing. */
export const clientStats = (stats, clientId) =>
  stats?.clients[clientId] ?? { accepted: 0, maxInWindow: 0, refused: 0 };

/** `YYYY-MM-DDTHH:MM:SSZ` for `days` days before now (accepted by the tool and the API alike). */
export const daysAgo = (days) => `${new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 19)}Z`;
