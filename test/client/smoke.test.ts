import { afterEach, describe, expect, it } from "vitest";
import { createClients } from "../../src/client/index.js";
import type { Clients } from "../../src/client/types.js";
import { envelope } from "./fake-upstream.js";
import { captureLogger, FAST, fakeWithTokens, makeConfig } from "./helpers.js";

let clients: Clients | undefined;
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await clients?.close();
  await close?.();
});

describe("createClients with OAuth", () => {
  it("lists warehouse groups with a Bearer token", async () => {
    const fake = await fakeWithTokens();
    close = fake.close;
    fake.on("GET", "/api/warehouses_groups_1", (req, res) => {
      expect(req.headers.authorization).toBe("Bearer tok-live-1");
      envelope(res, 200, "200", [{ id: "7", id_company: 1, description: "North", enabled: "true" }], 1);
    });
    clients = createClients(makeConfig(fake.url), { logger: captureLogger().logger, ...FAST });
    const page = await clients.api.listWarehouseGroups1({ limit: 10 });
    expect(page).toEqual({ data: [{ id: 7, id_company: 1, description: "North", enabled: true }], total: 1 });
    expect(fake.requests.at(-1)?.url).toBe("/api/warehouses_groups_1?limit=10");
  });
});
