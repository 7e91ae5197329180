/**
 * interface.md §6d "Successful results are scrubbed too": an upstream that echoes the tenant's client
 * secret in a note, and the live access token (the one this call was sent with) in a field the API
 * does not define, reaches the agent masked, in the text and in structuredContent, in any of the
 * encodings of §9; the same answer holding another tenant's secret is left alone (scope per tenant).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createClients } from "../../src/client/index.js";
import { loadConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/telemetry/logger.js";
import { envelope, type FakeUpstream, sendJson, startFake } from "../client/fake-upstream.js";
import { connect, textOf } from "../helpers/mcp.js";

const CLIENT_SECRET = "tenant-client-secret-93f1";
const LIVE_TOKEN = "live-access-token-5c2e77";
const OTHER_TENANTS = "another-tenant-secret-0420";

let fake: FakeUpstream | undefined;
let close: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of close) await c();
  close = [];
  await fake?.close();
});

/** A fake upstream issuing LIVE_TOKEN and echoing what it was sent with, as a careless API might. */
async function echoingUpstream() {
  const f = await startFake();
  fake = f;
  f.on("POST", "/oauth/token", (_r, res) =>
    sendJson(res, 200, { access_token: LIVE_TOKEN, token_type: "Bearer", expires_in: 3600 }),
  );
  const bearer = (headers: Record<string, unknown>) =>
    String(headers.authorization ?? "").replace(/^Bearer /, "");
  f.on("GET", /^\/api\/wo_budget\/7$/, (req, res) =>
    envelope(res, 200, "200", {
      ...BUDGET,
      note: `approved; debug client_secret=${CLIENT_SECRET} ${Buffer.from(CLIENT_SECRET).toString("hex").toUpperCase()}`,
      third_parties_name: `Andes &#${CLIENT_SECRET.codePointAt(0)};${CLIENT_SECRET.slice(1)} Mining`,
      debug_echo: `Authorization: Bearer ${bearer(req.headers)}`,
      debug_b64: Buffer.from(`Bearer ${bearer(req.headers)}`)
        .toString("base64")
        .replace(/(.{6})/g, "$1\n"),
      reference: `kept: ${OTHER_TENANTS}`,
    }),
  );
  f.on("POST", /^\/api\/group_tasks\/1\/tasks\/101\/resources$/, (req, res) =>
    envelope(res, 200, "200", [
      {
        id: 501,
        type_description: "INVENTORY",
        quantity: 1,
        unit_cost: 12.5,
        id_item: 1001,
        note: `${CLIENT_SECRET.toUpperCase()} / ${bearer(req.headers)}`,
      },
    ]),
  );
  return f;
}

const BUDGET = {
  id: 7,
  id_company: 1,
  id_work_order: 4118,
  folio: "247",
  id_currency: 1,
  date_create: "2026-11-01 10:00:00",
  status: 1,
  currency_description: "USD",
  symbol: "$",
  list_items: [],
};

async function tenantServer(f: FakeUpstream) {
  // The tenant's configuration: its scope holds its client secret and, once fetched, its live token.
  const config = loadConfig({
    MMS_BASE_URL: `${f.url}/api`,
    MMS_AUTH_URL: f.url,
    MMS_CLIENT_ID: "tenant-client",
    MMS_CLIENT_SECRET: CLIENT_SECRET,
  });
  // Another tenant's secret, known to the process but not to this tenant's scope.
  loadConfig({ MMS_BASE_URL: "https://other/api", MMS_HAWK_ID: "o", MMS_HAWK_KEY: OTHER_TENANTS });
  const clients = createClients(config, { logger: createLogger({ level: "error", sink: () => {} }) });
  const fixture = await connect({ clients, sandbox: false, secrets: config.secrets! });
  close.push(fixture.close, () => clients.close());
  return fixture.client;
}

describe("a successful result is scrubbed of the tenant's secrets", () => {
  it("query_budgets: a note, an escaped name and unknown fields echoing the secret and the live token", async () => {
    const client = await tenantServer(await echoingUpstream());
    const result = await client.callTool({ name: "query_budgets", arguments: { id: 7, view: "full" } });
    expect(result.isError).toBeFalsy();
    const seen = `${textOf(result)}\n${JSON.stringify(result.structuredContent)}`;
    expect(seen).toContain("[redacted]");
    expect(seen).not.toContain(CLIENT_SECRET);
    expect(seen).not.toContain(LIVE_TOKEN);
    expect(seen).not.toContain(Buffer.from(CLIENT_SECRET).toString("hex").toUpperCase());
    expect(seen).not.toMatch(/Bearer bGl2|ZS1hY2Nlc3M/); // base64 of the token, however it was wrapped
    expect(JSON.stringify(result.structuredContent)).toContain("debug_echo");
    // Another tenant's secret is no secret of this tenant's: its text is left as the upstream sent it.
    expect(seen).toContain(OTHER_TENANTS);
  });

  it("add_task_resources: the created resource's note echoing the upper-cased secret and the token", async () => {
    const client = await tenantServer(await echoingUpstream());
    const result = await client.callTool({
      name: "add_task_resources",
      arguments: {
        id_group_task: 1,
        id_task: 101,
        resources: [{ type_description: "INVENTORY", id_item: 1001 }],
      },
    });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { resources: { note: string }[] };
    expect(structured.resources[0]!.note).toBe("[redacted] / [redacted]");
    expect(textOf(result)).not.toContain(LIVE_TOKEN);
  });
});
