/**
 * Endpoint methods: exact paths (base prefix, encoded segments, encoded query), bodies as sent,
 * dry-run parity, and response normalisation.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClients } from "../../src/client/index.js";
import type { Clients, WarehouseEntryBody } from "../../src/client/types.js";
import { UserInputError } from "../../src/errors/api-error.js";
import { envelope, type FakeUpstream, sendJson } from "./fake-upstream.js";
import { captureLogger, FAST, fakeWithTokens, makeConfig } from "./helpers.js";

let clients: Clients | undefined;
let fake: FakeUpstream | undefined;
afterEach(async () => {
  await clients?.close();
  await fake?.close();
  clients = undefined;
});

async function setup() {
  const f = await fakeWithTokens();
  fake = f;
  clients = createClients(makeConfig(f.url), { logger: captureLogger().logger, ...FAST });
  return { fake: f, clients };
}

const movement = {
  id: 77,
  folio_target: 5001,
  date: "2024-05-01",
  description: "note",
  document: "OC-1",
  id_third_party: 4,
  third_parties_name: "ACME",
  third_parties_code: "P1",
  id_cost_center: "2",
  costs_center_value: "",
  costs_center_description: "Plant",
  folio_source: null,
  date_create: "2024-05-01T10:00:00.123456+00:00",
  id_priority: null,
  priorities_description: null,
  id_currency: 1,
  currency_description: "Peso",
  currency_symbol: "$",
  movements_states_description: "IN",
  movement_details: [],
};

describe("createWarehouseEntry", () => {
  const body: WarehouseEntryBody = {
    movement_type: "1",
    document: "OC-1",
    code_user: "U1",
    items: [{ code: "B-1", qty: "2", unit_cost: 1.5 }],
  };

  it("sends exactly what prepareWarehouseEntry shows, with the code as one encoded segment", async () => {
    const { fake, clients } = await setup();
    fake.on("POST", /^\/api\/warehouse_entries_orders\//, (_r, res) =>
      envelope(res, 200, "200", movement, 1),
    );
    const prepared = clients.api.prepareWarehouseEntry("A/B ?#%", body);
    expect(prepared).toEqual({
      method: "POST",
      path: "/api/warehouse_entries_orders/A%2FB%20%3F%23%25",
      body,
    });
    const created = await clients.api.createWarehouseEntry("A/B ?#%", body);
    const sent = fake.requests.at(-1)!;
    expect(sent.url).toBe(prepared.path);
    expect(JSON.parse(sent.body)).toEqual(prepared.body);
    expect(sent.headers["content-type"]).toBe("application/json");
    expect(created).toMatchObject({ id: 77, folio_target: "5001", id_cost_center: "2" });
  });

  it.each(["..", ".", ""])("refuses %j locally, before any request", async (code) => {
    const { fake, clients } = await setup();
    expect(() => clients.api.prepareWarehouseEntry(code, body)).toThrow(UserInputError);
    await expect(clients.api.createWarehouseEntry(code, body)).rejects.toBeInstanceOf(UserInputError);
    expect(fake.requests).toHaveLength(0);
  });
});

describe("addTaskResources", () => {
  it("POSTs only the documented fields and returns the created resources", async () => {
    const { fake, clients } = await setup();
    fake.on("POST", "/api/group_tasks/10/tasks/20/resources", (_r, res) =>
      envelope(res, 201, "201", [
        { id: 1, type_description: "HUMAN_RESOURCES", quantity: "1", unit_cost: "25.00", id_hourly_rate: 3 },
        { id: 2, type_description: "SERVICES", quantity: 1, unit_cost: 0, id_service_type: 4, note: "n" },
      ]),
    );
    const out = await clients.api.addTaskResources(10, 20, [
      { type_description: "HUMAN_RESOURCES", id_hourly_rate: 3, extra: "dropped" } as never,
      { type_description: "SERVICES", id_service_type: 4, note: "n" },
    ]);
    expect(JSON.parse(fake.requests.at(-1)!.body)).toEqual({
      resources: [
        { type_description: "HUMAN_RESOURCES", id_hourly_rate: 3 },
        { type_description: "SERVICES", id_service_type: 4, note: "n" },
      ],
    });
    expect(out[0]).toEqual({
      id: 1,
      type_description: "HUMAN_RESOURCES",
      quantity: 1,
      unit_cost: 25,
      id_hourly_rate: 3,
    });
  });
});

describe("queryBudgets", () => {
  const budget = {
    id: 1,
    id_company: 1,
    id_work_order: 2,
    folio: "B/1",
    id_currency: 1,
    date_create: "2024-01-01",
    status: 1,
  };

  it("uses wo_budget/{id} for a folio and turns a single object into a one-element list", async () => {
    const { fake, clients } = await setup();
    fake.on("GET", /^\/api\/wo_budget\//, (_r, res) => envelope(res, 200, "200", budget, 1));
    const page = await clients.api.queryBudgets({ id: "B/1" });
    expect(fake.requests.at(-1)!.url).toBe("/api/wo_budget/B%2F1");
    expect(page).toMatchObject({ total: 1, data: [{ folio: "B/1", list_items: [] }] });
  });

  it("encodes the filters, a + offset as %2B", async () => {
    const { fake, clients } = await setup();
    fake.on("GET", "/api/wo_budget", (_r, res) => envelope(res, 200, "200", [budget, budget], 7));
    const page = await clients.api.queryBudgets({
      status: 2,
      wo_folio: "OT 5",
      since: "2024-01-01T00:00:00+05",
      until: "2024-01-31T23:59:59-03",
      type_date: "approval_date",
      start: 0,
      limit: 2,
    });
    expect(fake.requests.at(-1)!.url).toBe(
      "/api/wo_budget?status=2&wo_folio=OT%205&since=2024-01-01T00:00:00%2B05&until=2024-01-31T23:59:59-03&type_date=approval_date&start=0&limit=2",
    );
    expect(page.total).toBe(7);
    expect(page.data).toHaveLength(2);
  });
});

describe("listWarehouseGroups1 and listDags", () => {
  it("treats data:null as an empty page", async () => {
    const { fake, clients } = await setup();
    fake.on("GET", "/api/warehouses_groups_1", (_r, res) =>
      sendJson(res, 200, { success: true, message: "200", data: null, total: 0 }),
    );
    await expect(clients.api.listWarehouseGroups1({ only_enabled: false, id: 5 })).resolves.toEqual({
      data: [],
      total: 0,
    });
    expect(fake.requests.at(-1)!.url).toBe("/api/warehouses_groups_1?id=5&only_enabled=false");
  });

  it("calls the hub on its own URL with Bearer and Accept: application/json", async () => {
    const { fake, clients } = await setup();
    fake.on("GET", "/hub/api/v1/dags", (_r, res) =>
      sendJson(res, 200, {
        id_company: "c-1",
        total: 1,
        dags: [{ dag_id: "0b7c", description: "ERP sync", last_run: "2024-05-01" }],
      }),
    );
    await expect(clients.hub!.listDags()).resolves.toEqual({
      id_company: "c-1",
      total: 1,
      dags: [{ dag_id: "0b7c", description: "ERP sync", last_run: "2024-05-01" }],
    });
    const sent = fake.requests.at(-1)!;
    expect(sent.headers.authorization).toMatch(/^Bearer /);
    expect(sent.headers.accept).toBe("application/json");
  });

  it("has no hub without OAuth", () => {
    const cfg = makeConfig("http://127.0.0.1:9");
    const c = createClients(
      { ...cfg, auth: "hawk", oauth: undefined, hubUrl: undefined },
      { logger: captureLogger().logger },
    );
    expect(c.hub).toBeUndefined();
    return c.close();
  });
});

describe("warm-up", () => {
  it("prepares a dry run before anything loads, warms (undici + token) in the background, then calls", async () => {
    const f = await fakeWithTokens();
    fake = f;
    f.on("GET", "/api/warehouses_groups_1", (_r, res) => envelope(res, 200, "200", []));
    const log = captureLogger();
    const c = createClients(makeConfig(f.url), { logger: log.logger, ...FAST });
    clients = c;
    expect(c.api.prepareWarehouseEntry("W 1", { movement_type: "2", document: "X", code_user: "U" })).toEqual(
      {
        method: "POST",
        path: "/api/warehouse_entries_orders/W%201",
        body: { movement_type: "2", document: "X", code_user: "U" },
      },
    );
    c.warm();
    // Deferred (WARM_DELAY_MS), so nothing has been sent yet.
    expect(f.requests).toHaveLength(0);
    await vi.waitFor(
      () => expect(log.lines.join("\n")).toContain("access token fetched ahead of the first call"),
      { timeout: 10_000 },
    );
    expect(f.requests.map((r) => r.pathname)).toEqual(["/oauth/token"]);
    await expect(c.api.listWarehouseGroups1({})).resolves.toEqual({ data: [], total: 0 });
    // The call used the token fetched ahead: no second token request.
    expect(f.tokensIssued()).toBe(1);
    expect(log.lines.filter((l) => l.includes("HTTP client loaded ahead of the first call"))).toHaveLength(1);
  });
});
