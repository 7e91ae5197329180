import { describe, expect, it } from "vitest";
import { type HealthInputs, sendHealth } from "../../../src/mcp/transports/http/health.js";
import { serveStep } from "./serve-step.js";

async function health(inputs: HealthInputs) {
  const server = await serveStep((_req, res) => sendHealth(res, inputs));
  try {
    const res = await fetch(server.url);
    return { status: res.status, body: await res.json() };
  } finally {
    await server.close();
  }
}

describe("GET /healthz", () => {
  it("ok, degraded (still 200: the other replicas share the store) and closing (503)", async () => {
    const base = { version: "9.9.9", closing: false, inFlight: 2, store: undefined };
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
});
