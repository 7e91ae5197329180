import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Admission, type Admitted } from "../../../src/mcp/transports/http/limits.js";
import { serveStep } from "./serve-step.js";

/** A server whose requests are admitted by `admission` for `?tenant=` and held until `release()`. */
const admission = new Admission({ maxInFlight: 3, tenantMaxInFlight: 2 });
const held: Admitted[] = [];
let server: Awaited<ReturnType<typeof serveStep>>;
beforeAll(async () => {
  server = await serveStep((req, res: ServerResponse) => {
    const tenant = new URL(req.url ?? "/", "http://x").searchParams.get("tenant") ?? undefined;
    const gates = admission.admit(res, tenant);
    if (gates !== undefined) held.push(gates);
    return gates !== undefined;
  });
});
afterAll(() => server.close());

const ask = async (tenant?: string) => {
  const res = await fetch(`${server.url}${tenant ? `?tenant=${tenant}` : ""}`);
  return {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    body: (await res.json()) as { error?: { message: string } },
  };
};

describe("HTTP edge step 6: admission", () => {
  it("a tenant over its own limit gets 429 about its own use; the process over its limit gets 503", async () => {
    expect((await ask("north")).status).toBe(200);
    expect((await ask("north")).status).toBe(200);
    const own = await ask("north");
    expect(own).toMatchObject({ status: 429, retryAfter: "1" });
    expect(own.body.error?.message).toMatch(/for your tenant: 2 already running/);
    expect((await ask("south")).status).toBe(200);
    const busy = await ask("south");
    expect(busy).toMatchObject({ status: 503, retryAfter: "1" });
    expect(admission.stats()).toMatchObject({
      inFlight: 3,
      peakInFlight: 3,
      refused: 1,
      tenants: { north: { refused: 1 } },
    });
  });

  it("settle resolves once the last request is released, and a closing admission answers 503", async () => {
    const settled = admission.settle(60_000);
    for (const gates of held.splice(0)) admission.release(gates);
    await settled;
    expect(admission.stats().inFlight).toBe(0);
    admission.close();
    const closing = await ask();
    expect(closing).toMatchObject({ status: 503, retryAfter: "5" });
    expect(closing.body.error?.message).toMatch(/shutting down/);
  });
});
