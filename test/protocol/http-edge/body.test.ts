import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJsonBody } from "../../../src/mcp/transports/http/body.js";
import { createLogger } from "../../../src/telemetry/logger.js";
import { serveStep } from "./serve-step.js";

const quiet = createLogger({ level: "error", sink: () => {} });
let server: Awaited<ReturnType<typeof serveStep>>;
beforeAll(async () => {
  server = await serveStep(
    async (req, res) => (await readJsonBody(req, res, { maxBytes: 64, timeoutMs: 200 }, quiet))?.body,
  );
});
afterAll(() => server.close());

const post = (body: string) => fetch(server.url, { method: "POST", body });

describe("HTTP edge step 4: the body", () => {
  it("passes one JSON-RPC message on", async () => {
    expect(await (await post('{"jsonrpc":"2.0","id":1}')).json()).toEqual({
      passed: { jsonrpc: "2.0", id: 1 },
    });
  });

  it("refuses a body past the size bound with 413", async () => {
    const res = await post(`"${"x".repeat(100)}"`);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({
      error: { code: -32600, message: "Request body larger than 64 bytes" },
    });
  });

  it("refuses what is not JSON with 400 -32700", async () => {
    const res = await post("{not json");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: -32700 } });
  });

  it("refuses a batch with 400 -32600, saying to send one message per request", async () => {
    const res = await post("[1,2]");
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
      /array of 2.*one JSON-RPC request per HTTP request/,
    );
  });

  it("cuts off a body that does not arrive in time with 408", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(server.url, { method: "POST", headers: { "content-length": "50" } }, (res) =>
        resolve(res.statusCode ?? 0),
      );
      req.on("error", reject);
      req.write("{");
    });
    expect(status).toBe(408);
  });
});
