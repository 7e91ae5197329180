/**
 * Happy paths of every endpoint over real HTTP, with Bearer and with Hawk, plus the public
 * handle (URLs, env(), live state) and the generic routing rules (404, 400, 413).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxHandle, SEED } from "../../src/sandbox/index.js";
import { bearer, type Envelope, fixedClock, hawk, hawkVerify, start, token } from "./helpers.js";

let sb: SandboxHandle;
let tok: string;
const clock = fixedClock();

beforeAll(async () => {
  sb = await start({ clock });
  tok = await token(sb);
});
afterAll(() => sb.close());

describe("handle", () => {
  it("exposes the three base URLs on one origin", () => {
    expect(sb.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sb.baseUrl).toBe(`${sb.url}/api`);
    expect(sb.authUrl).toBe(sb.url);
    expect(sb.hubUrl).toBe(sb.url);
  });

  it("env() gives MMS_* for oauth and hawk", () => {
    expect(sb.env()).toEqual({
      MMS_BASE_URL: `${sb.url}/api`,
      MMS_AUTH_URL: sb.url,
      MMS_HUB_URL: sb.url,
      MMS_AUTH: "oauth",
      MMS_CLIENT_ID: "demo-client",
      MMS_CLIENT_SECRET: "demo-secret",
    });
    const h = sb.env({ auth: "hawk" });
    expect(h).toMatchObject({ MMS_AUTH: "hawk", MMS_HAWK_ID: "demo-company", MMS_HAWK_KEY: "demo-hawk-key" });
    expect(sb.env({ client: "noaddon", auth: "hawk" })).toMatchObject({
      MMS_CLIENT_ID: "noaddon-client",
      MMS_HAWK_ID: "other-company",
    });
  });
});

describe("happy paths", () => {
  it("creates task resources (Bearer) and they appear in the live state", async () => {
    const r = await bearer<Envelope<Record<string, unknown>[]>>(
      sb,
      tok,
      "POST",
      `/api/group_tasks/${SEED.taskPlans.main}/tasks/${SEED.tasks.main}/resources`,
      {
        resources: [
          { type_description: "INVENTORY", id_item: SEED.items.tool, note: "torque check" },
          { type_description: "HUMAN_RESOURCES", id_hourly_rate: SEED.hourlyRates.technician },
          { type_description: "SERVICES", id_service_type: SEED.serviceTypes.calibration },
        ],
      },
    );
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ success: true, message: "201", total: 3 });
    expect(r.body.data).toEqual([
      {
        id: expect.any(Number),
        type_description: "INVENTORY",
        quantity: 1,
        unit_cost: 45.5,
        id_item: 1001,
        note: "torque check",
      },
      {
        id: expect.any(Number),
        type_description: "HUMAN_RESOURCES",
        quantity: 1,
        unit_cost: 35,
        id_hourly_rate: 11,
      },
      {
        id: expect.any(Number),
        type_description: "SERVICES",
        quantity: 1,
        unit_cost: 120,
        id_service_type: 31,
      },
    ]);
    const stored = sb.state.taskResources.filter((x) => x.taskId === SEED.tasks.main);
    expect(stored.map((x) => x.id)).toEqual(r.body.data.map((x) => x.id));
  });

  it("creates task resources with Hawk and signs the answer", async () => {
    const r = await hawk(
      sb,
      "POST",
      `/api/group_tasks/1/tasks/${SEED.tasks.main2}/resources`,
      {
        resources: [{ type_description: "INVENTORY", id_item: SEED.items.sparePart }],
      },
      { clock },
    );
    expect(r.status).toBe(201);
    expect(r.headers.get("server-authorization")).toMatch(/^Hawk mac="[^"]+", hash="[^"]+"$/);
    expect(() => hawkVerify(r)).not.toThrow();
  });

  it("creates a warehouse entry (new purchase)", async () => {
    const r = await bearer<Envelope<Record<string, unknown>>>(
      sb,
      tok,
      "POST",
      "/api/warehouse_entries_orders/WH-MAIN",
      {
        movement_type: "1",
        document: "INV-2025-001",
        code_user: SEED.users.withAccount,
        code_supplier: SEED.suppliers.main,
        value_cost_center: "CC-100",
        note: "Restock",
        items: [{ code: "SP-1003", qty: "5", unit_cost: 12 }],
      },
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, message: "200", total: 1 });
    expect(r.body.data).toMatchObject({
      folio_target: expect.stringMatching(/^\d+$/),
      date: "2025-06-15",
      description: "Restock",
      document: "INV-2025-001",
      id_third_party: "501",
      third_parties_code: "SUP-001",
      id_cost_center: "701",
      costs_center_value: "CC-100",
      folio_source: null,
      date_create: "2025-06-15T12:00:00.000000+00:00",
      movements_states_description: "IN",
      id_currency: 1,
      movement_details: [
        {
          code: "SP-1003",
          qty: 5,
          unit_cost: 12,
          total_cost: 60,
          tax_name: "IVA 19%",
          tax_rate: 19,
          id_item: 1003,
        },
      ],
    });
  });

  it("lists budgets with Hawk (default 30-day period, total = matches)", async () => {
    const r = await hawk<Envelope<Record<string, unknown>[]>>(
      sb,
      "GET",
      "/api/wo_budget?limit=5",
      undefined,
      {
        clock,
      },
    );
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.data).toHaveLength(5);
    expect(r.body.total).toBeGreaterThan(5);
    expect(() => hawkVerify(r)).not.toThrow();
  });

  it("lists warehouse classifications 1", async () => {
    const r = await bearer<Envelope<unknown[]>>(sb, tok, "GET", "/api/warehouses_groups_1?limit=10");
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(10);
    expect(r.body.data[0]).toEqual({
      id: 10001,
      id_company: 1,
      description: expect.any(String),
      enabled: true,
    });
  });

  it("lists DAGs on the hub without envelope", async () => {
    const r = await bearer<{ id_company: string; total: number; dags: unknown[] }>(
      sb,
      tok,
      "GET",
      "/hub/api/v1/dags",
    );
    expect(r.status).toBe(200);
    expect(r.body.id_company).toBe("1");
    expect(r.body.total).toBe(4);
    expect(r.body.dags[0]).toEqual({
      dag_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      description: expect.any(String),
      last_run: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
  });
});

describe("routing", () => {
  it("unknown route → 404 envelope", async () => {
    const r = await bearer(sb, tok, "GET", "/api/nope");
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      success: false,
      message: "404",
      data: [{ ERROR: "Unknown route GET /api/nope" }],
      total: 0,
    });
  });

  it("wrong method on a known path → 405 envelope with Allow", async () => {
    const r = await bearer(sb, tok, "DELETE", "/api/wo_budget");
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("GET");
  });

  it("body that is not JSON → 400 envelope", async () => {
    const r = await bearer(sb, tok, "POST", "/api/group_tasks/1/tasks/103/resources", "{not json");
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, message: "400", total: 0 });
  });

  it("body over 1 MiB → 413", async () => {
    const big = JSON.stringify({ resources: [{ note: "x".repeat(1024 * 1024 + 10) }] });
    const r = await bearer(sb, tok, "POST", "/api/group_tasks/1/tasks/103/resources", big);
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ success: false, message: "413" });
  });

  it("a trailing slash is the same route (wo_budget/)", async () => {
    const r = await bearer<Envelope>(sb, tok, "GET", "/api/wo_budget/?limit=1");
    expect(r.status).toBe(200);
  });
});
