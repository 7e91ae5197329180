import { describe, expect, it } from "vitest";
import { type HealthInputs, type HealthViewer, sendHealth } from "../../../src/mcp/transports/http/health.js";
import { serveStep } from "./serve-step.js";

async function health(inputs: HealthInputs, viewer: HealthViewer = { kind: "all" }) {
  const server = await serveStep((_req, res) => sendHealth(res, viewer, inputs));
  try {
    const res = await fetch(server.url);
    return { status: res.status, body: await res.json() };
  } finally {
    await server.close();
  }
}

describe("GET /healthz", () => {
  const base = { version: "9.9.9", closing: false, inFlight: 2, store: undefined };

  it("ok, degraded (still 200: the other replicas share the store) and closing (503)", async () => {
    expect(await health(base)).toEqual({
      status: 200,
      body: { status: "ok", version: "9.9.9", in_flight: 2 },
    });
    expect(await health({ ...base, store: { status: "degraded" } })).toEqual({
      status: 200,
      body: { status: "degraded", version: "9.9.9", in_flight: 2, idempotency: { status: "degraded" } },
    });
    expect((await health({ ...base, closing: true })).status).toBe(503);
  });

  it("a stranger reads the status only (interface.md §9b); a tenant reads its own details, named", async () => {
    const extra = { request_budget: { companies: { "plant-north": { used: 3 } } } };
    const degraded = { ...base, store: { status: "degraded" as const }, extra };
    expect(await health(degraded, { kind: "stranger" })).toEqual({
      status: 200,
      body: { status: "degraded" },
    });
    expect(await health({ ...base, closing: true, extra }, { kind: "stranger" })).toEqual({
      status: 503,
      body: { status: "closing" },
    });
    expect((await health(degraded, { kind: "tenant", tenant: "plant-north" })).body).toEqual({
      status: "degraded",
      version: "9.9.9",
      tenant: "plant-north",
      in_flight: 2,
      idempotency: { status: "degraded" },
      ...extra,
    });
  });
});
