/**
 * Every upstream error shape, received over real HTTP, becomes the documented ApiError.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createClients } from "../../src/client/index.js";
import type { Clients } from "../../src/client/types.js";
import { ApiError } from "../../src/errors/api-error.js";
import { formatError } from "../../src/errors/format.js";
import { closedPort, type FakeUpstream, sendJson, sendText } from "./fake-upstream.js";
import { CLIENT_SECRET, captureLogger, FAST, fakeWithTokens, makeConfig, TOKEN_PREFIX } from "./helpers.js";

const RESOURCES = "/api/group_tasks/1/tasks/2/resources";
const GROUPS = "/api/warehouses_groups_1";
const inventory = [{ type_description: "INVENTORY" as const, id_item: 99 }];

let clients: Clients | undefined;
let fake: FakeUpstream | undefined;
let lines: string[] = [];
afterEach(async () => {
  await clients?.close();
  await fake?.close();
  clients = undefined;
  for (const l of lines) {
    expect(l).not.toContain(CLIENT_SECRET);
    expect(l).not.toContain(TOKEN_PREFIX);
  }
});

async function setup(overrides: Parameters<typeof makeConfig>[1] = {}) {
  const f = await fakeWithTokens();
  fake = f;
  const log = captureLogger();
  lines = log.lines;
  clients = createClients(makeConfig(f.url, overrides), { logger: log.logger, ...FAST });
  return { fake: f, clients };
}

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    const text = JSON.stringify(formatError(e));
    expect(text).not.toContain(CLIENT_SECRET);
    expect(text).not.toContain(TOKEN_PREFIX);
    return e as ApiError;
  }
  throw new Error("expected a rejection");
}

describe("upstream error shapes", () => {
  it("envelope success:false on HTTP 200 with the 422 list (every index kept)", async () => {
    const { fake, clients } = await setup();
    const data = [
      { index: 0, error: "id_item 99 is not a tool or spare part" },
      { index: 2, error: "duplicate resource" },
      { index: 3, error: "id_item 5 does not exist" },
    ];
    fake.on("POST", RESOURCES, (_r, res) =>
      sendJson(res, 200, { success: false, message: "422", data, total: 0 }),
    );
    const e = await rejection(clients.api.addTaskResources(1, 2, inventory));
    expect(e).toMatchObject({
      status: 422,
      code: "VALIDATION",
      details: data,
      request: { method: "POST", path: RESOURCES },
    });
    expect(formatError(e).text).toBe(
      "Upstream rejected the request (422 VALIDATION): [0] id_item 99 is not a tool or spare part; [2] duplicate resource; [3] id_item 5 does not exist (hint: fix the listed inputs and send again)",
    );
  });

  it("404 keeps the ERROR text; `mensaje` is read", async () => {
    const { fake, clients } = await setup();
    fake.on("POST", RESOURCES, (_r, res) =>
      sendJson(res, 404, {
        success: false,
        mensaje: "404",
        data: [{ ERROR: "The task does not exist" }],
        total: 0,
      }),
    );
    const e = await rejection(clients.api.addTaskResources(1, 2, inventory));
    expect(e).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
      message: "The task does not exist",
      details: { error: "The task does not exist" },
    });
  });

  it("403 is FORBIDDEN with the add-on hint", async () => {
    const { fake, clients } = await setup();
    fake.on("POST", RESOURCES, (_r, res) =>
      sendJson(res, 403, { success: false, message: "403", data: [], total: 0 }),
    );
    const e = await rejection(clients.api.addTaskResources(1, 2, inventory));
    expect(e.code).toBe("FORBIDDEN");
    expect(formatError(e).text).toContain("advanced-APIs add-on");
  });

  it("408 is CONFLICT and is not repeated", async () => {
    const { fake, clients } = await setup();
    fake.on("GET", GROUPS, (_r, res) =>
      sendJson(res, 408, { success: false, message: "408", data: [{ ERROR: "already exists" }] }),
    );
    const e = await rejection(clients.api.listWarehouseGroups1({}));
    expect(e).toMatchObject({ code: "CONFLICT", retryable: false });
    expect(fake.count("GET", GROUPS)).toBe(1);
  });

  it("problem+json in the spec's form and in RFC 9457 form", async () => {
    const { fake, clients } = await setup();
    fake.on(
      "GET",
      "/hub/api/v1/dags",
      (_r, res) =>
        sendJson(
          res,
          403,
          { error_code: "OAUTH2_ETL_ACCESS_DENIED", message: "ETL not enabled", status_code: 403 },
          {},
          "application/problem+json",
        ),
      1,
    );
    expect(await rejection(clients.hub!.listDags())).toMatchObject({
      code: "FORBIDDEN",
      message: "ETL not enabled (OAUTH2_ETL_ACCESS_DENIED)",
    });
    fake.on(
      "GET",
      "/hub/api/v1/dags",
      (_r, res) =>
        sendJson(
          res,
          500,
          { type: "about:blank", title: "Internal Server Error", status: 500, detail: "boom" },
          {},
          "application/problem+json",
        ),
      1,
    );
    expect(await rejection(clients.hub!.listDags())).toMatchObject({
      status: 500,
      code: "UPSTREAM",
      message: "boom",
      retryable: false,
    });
  });

  it("an HTML page from a proxy is BAD_RESPONSE with a snippet", async () => {
    const { fake, clients } = await setup();
    fake.on("GET", GROUPS, (_r, res) =>
      sendText(
        res,
        200,
        "<!doctype html><html><head><title>Login - Corporate Proxy</title></head><body>Sign in</body></html>",
      ),
    );
    const e = await rejection(clients.api.listWarehouseGroups1({}));
    expect(e.code).toBe("BAD_RESPONSE");
    expect(e.message).toContain("HTML page");
    expect(e.message).toContain("Login - Corporate Proxy");
  });

  it("malformed JSON is BAD_RESPONSE", async () => {
    const { fake, clients } = await setup();
    fake.on("GET", GROUPS, (_r, res) =>
      sendText(res, 200, '{"success": true, "data": [', "application/json"),
    );
    expect(await rejection(clients.api.listWarehouseGroups1({}))).toMatchObject({
      code: "BAD_RESPONSE",
      message: expect.stringContaining("malformed JSON"),
    });
  });

  it("a body that does not fit the schema is BAD_RESPONSE with the zod path", async () => {
    const { fake, clients } = await setup();
    fake.on("GET", GROUPS, (_r, res) =>
      sendJson(res, 200, { success: true, message: "200", data: [{ id: "x", description: "a" }], total: 1 }),
    );
    const e = await rejection(clients.api.listWarehouseGroups1({}));
    expect(e).toMatchObject({
      code: "BAD_RESPONSE",
      details: { issues: expect.arrayContaining([expect.objectContaining({ path: "data.0.id" })]) },
    });
  });

  it("connection refused is NETWORK", async () => {
    const { fake } = await setup();
    const port = await closedPort();
    clients = createClients(
      makeConfig(fake.url, { baseUrl: `http://127.0.0.1:${port}/api`, maxRetries: 0 }),
      { logger: captureLogger().logger, ...FAST },
    );
    const e = await rejection(clients.api.listWarehouseGroups1({}));
    expect(e).toMatchObject({
      code: "NETWORK",
      retryable: false,
      status: undefined,
      details: { cause: "ECONNREFUSED" },
    });
    expect(e.message).toContain("connection refused");
    // A configuration problem, in words: which variable, and never "retry later".
    expect(formatError(e).text).toBe(
      `Upstream unreachable (NETWORK): connection refused by 127.0.0.1:${port}: nothing accepts connections there (hint: check MMS_BASE_URL (host and port) and that the server there is up; a configuration problem, retrying will not help)`,
    );
  });

  it("a reset in the middle of the body is NETWORK (and a POST says the outcome is unknown)", async () => {
    const { fake, clients } = await setup({ maxRetries: 0 });
    const cut = (_r: unknown, res: import("node:http").ServerResponse) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "500" });
      res.write('{"success": true, "data": [');
      setTimeout(() => res.socket?.destroy(), 5);
    };
    fake.on("GET", GROUPS, cut);
    fake.on("POST", RESOURCES, cut);
    expect(await rejection(clients.api.listWarehouseGroups1({}))).toMatchObject({
      code: "NETWORK",
      retryable: true,
    });
    const post = await rejection(clients.api.addTaskResources(1, 2, inventory));
    expect(post).toMatchObject({ code: "NETWORK", retryable: false, details: { outcome: "unknown" } });
    expect(formatError(post).text).toContain("may have been applied");
  });

  it("no answer within MMS_TIMEOUT_MS is TIMEOUT", async () => {
    const { fake, clients } = await setup({ timeoutMs: 100, maxRetries: 0 });
    fake.on("GET", GROUPS, () => undefined);
    const started = performance.now();
    const e = await rejection(clients.api.listWarehouseGroups1({}));
    expect(e).toMatchObject({ code: "TIMEOUT", retryable: true });
    expect(e.message).toContain("within 100 ms");
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
