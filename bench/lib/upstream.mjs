/**
 * The upstream side of the benchmarks: the embedded sandbox (from dist/) in the benchmark process,
 * a direct undici client of it (the "direct request" baseline, and the source of raw JSON), and
 * extra budgets inserted into its live state for the pagination series.
 */
import { request } from "undici";
import { startSandbox } from "../../dist/src/sandbox/index.js";

export { startSandbox };

/** A direct client of the sandbox API: one OAuth token, then plain GETs with Bearer. */
export async function directClient(sb) {
  const env = sb.env();
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
    if (res.statusCode >= 300) throw new Error(`GET ${path}: HTTP ${res.statusCode}`);
    return body;
  };
}

/**
 * Grow company 1's budgets to `total` by cloning seeded ones under new ids and folios (ids from
 * 30001, clear of the seed's 7001-8012). The clones keep the originals' dates, so every seeded
 * period filter still matches them.
 */
export function addBudgets(sb, total) {
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

/** `YYYY-MM-DDTHH:MM:SSZ` for `days` days before now (accepted by the tool and the API alike). */
export const daysAgo = (days) => `${new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 19)}Z`;
