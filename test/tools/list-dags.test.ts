import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClients } from "../../src/client/index.js";
import { loadConfig } from "../../src/config/config.js";
import { IdempotencyStore } from "../../src/idempotency/store.js";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { createLogger } from "../../src/telemetry/logger.js";
import type { ToolContext } from "../../tools/define.js";
import listDags, { ListDagsOutput } from "../../tools/list-dags.js";
import { connect, textOf } from "../helpers/mcp.js";
import { firstLine } from "../helpers/results.js";
import { useSandbox } from "../helpers/sandbox.js";

// One clock for the server and the sandbox, which dates its DAG runs from it.
const NOW_MS = Date.parse("2026-12-01T12:00:00Z");
const fx = useSandbox({ clock: { now: () => NOW_MS } });

async function callWith(client: "demo" | "readonly") {
  const mcp = await connect({ clients: fx.clients({ client }), now: () => new Date(NOW_MS) });
  try {
    return await mcp.client.callTool({ name: "list_dags", arguments: {} });
  } finally {
    await mcp.close();
  }
}

describe("list_dags", () => {
  it("lists the company's pipelines from the hub", async () => {
    const result = await callWith("demo");
    const out = ListDagsOutput.parse(result.structuredContent);
    expect(out.id_company).toBe("1");
    expect(out.total).toBe(out.dags.length);
    expect(
      out.dags.every((d) => /^[0-9a-f-]{36}$/.test(d.dag_id) && /^\d{4}-\d{2}-\d{2}$/.test(d.last_run ?? "")),
    ).toBe(true);
    expect(out.returned).toBe(out.dags.length);
    const today = Date.parse(new Date(NOW_MS).toISOString().slice(0, 10));
    for (const d of out.dags) {
      expect(d.age_days).toBe(Math.round((today - Date.parse(d.last_run!)) / 86_400_000));
    }
    expect(out.complete).toBe(true);
    expect(textOf(result).split("\n")[0]).toBe(`[sandbox] All ${out.total} DAGs of company 1:`);
  });

  it("says when the hub sent fewer DAGs than it counts, and that no argument gets the rest", async () => {
    const dag = {
      dag_id: "0b9f7f52-2f0e-4f57-9d43-8f3c1c1b2a10",
      description: "ERP sync",
      last_run: "2026-03-01",
    };
    fx.sb.faults.failNext("/hub", 1, { status: 200, body: { id_company: "1", total: 3, dags: [dag] } });
    const short = await callWith("demo");
    expect(short.structuredContent).toMatchObject({ total: 3, returned: 1, complete: false });
    expect(firstLine(short)).toBe(
      "[sandbox] 1 of the 3 DAGs the hub counts for company 1: it sent no more and has no paging, so no argument gets the other 2:",
    );
    fx.sb.faults.failNext("/hub", 1, { status: 200, body: { id_company: "1", total: 0, dags: [] } });
    const none = await callWith("demo");
    expect(none.structuredContent).toMatchObject({ total: 0, returned: 0, complete: true, dags: [] });
    expect(textOf(none)).toBe("[sandbox] Company 1 has no DAGs (the hub counts 0).");
  });

  it("explains a missing hub permission (403 OAUTH2_ETL_ACCESS_DENIED)", async () => {
    const result = await callWith("readonly");
    expect(result.isError).toBe(true);
    expect(firstLine(result)).toMatch(/403/);
  });

  it("is not offered when only Hawk credentials are configured (the hub takes Bearer only)", async () => {
    const { client: _ignored, ...env } = { client: 0, ...fx.sb.env({ auth: "hawk" }) };
    const clients = fx.clients({ auth: "hawk", env: { ...env, MMS_CLIENT_ID: "", MMS_CLIENT_SECRET: "" } });
    expect(clients.hub).toBeUndefined();
    const mcp = await connect({ clients });
    try {
      const names = (await mcp.client.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain("list_dags");
      await expect(mcp.client.callTool({ name: "list_dags", arguments: {} })).rejects.toThrow(
        /Unknown tool: list_dags/,
      );
    } finally {
      await mcp.close();
    }
  });
});

describe("list_dags on a fixed date", () => {
  // The sandbox dates its DAG runs from its own clock; the tool measures ages from ctx.now().
  const NOW = Date.parse("2026-03-10T08:00:00Z");
  let sb: SandboxHandle;
  let clients: ReturnType<typeof createClients>;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, clock: { now: () => NOW } });
    clients = createClients(loadConfig(sb.env()), {
      logger: createLogger({ level: "error", sink: () => {} }),
    });
  });
  afterAll(async () => {
    await clients.close();
    await sb.close();
  });

  it("states total and returned, and how many UTC days ago each DAG ran", async () => {
    const ctx: ToolContext = {
      api: clients.api,
      hub: clients.hub!,
      log: createLogger({ level: "error", sink: () => {} }),
      signal: new AbortController().signal,
      progress: async () => {},
      confirmWrite: async () => {},
      confirmation: () => ({ state: "not_asked" }),
      idempotency: new IdempotencyStore(),
      now: () => new Date(NOW),
    };
    const out = ListDagsOutput.parse(await listDags.handler({}, ctx));
    expect(out).toMatchInlineSnapshot(`
      {
        "complete": true,
        "dags": [
          {
            "age_days": 6,
            "dag_id": "f5d5d136-ddb9-44b2-aab3-d380fedc6c5a",
            "description": "Nightly ERP purchase-order sync",
            "last_run": "2026-03-04",
          },
          {
            "age_days": 1,
            "dag_id": "166e3e6a-aa79-4a21-824a-01064d419a43",
            "description": "Work-order costs export to data warehouse",
            "last_run": "2026-03-09",
          },
          {
            "age_days": 7,
            "dag_id": "a4bb2a2a-1800-41f0-b7b8-f5beeb8ca8eb",
            "description": "IoT sensor readings import",
            "last_run": "2026-03-03",
          },
          {
            "age_days": 8,
            "dag_id": "d726151b-0d8a-467c-84d1-bf6f59327e82",
            "description": "Weekly spare-parts stock reconciliation",
            "last_run": "2026-03-02",
          },
        ],
        "id_company": "1",
        "returned": 4,
        "total": 4,
      }
    `);
    expect(listDags.toText(out)).toMatchInlineSnapshot(`
      "All 4 DAGs of company 1:
      - f5d5d136-ddb9-44b2-aab3-d380fedc6c5a Nightly ERP purchase-order sync (last run 2026-03-04, ran 6 days ago)
      - 166e3e6a-aa79-4a21-824a-01064d419a43 Work-order costs export to data warehouse (last run 2026-03-09, ran yesterday)
      - a4bb2a2a-1800-41f0-b7b8-f5beeb8ca8eb IoT sensor readings import (last run 2026-03-03, ran 7 days ago)
      - d726151b-0d8a-467c-84d1-bf6f59327e82 Weekly spare-parts stock reconciliation (last run 2026-03-02, ran 8 days ago)"
    `);
  });
});
