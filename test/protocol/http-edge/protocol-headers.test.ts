import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { headerMismatch, refuseHeaderMismatch } from "../../../src/mcp/transports/http/protocol-headers.js";
import { serveStep } from "./serve-step.js";

const call = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "list_dags" } };
const b64 = (s: string) => `=?base64?${Buffer.from(s).toString("base64")}?=`;

describe("HTTP edge step 5: Mcp-Method and Mcp-Name agree with the body", () => {
  it.each([
    [{}, undefined],
    [{ "mcp-method": "tools/call", "mcp-name": "list_dags" }, undefined],
    [{ "mcp-name": b64("list_dags") }, undefined],
    [{ "mcp-method": "tools/list" }, "the Mcp-Method header names another method than the body"],
    [
      { "mcp-name": "create_warehouse_entry" },
      "the Mcp-Name header names another name than the body's params.name",
    ],
    [{ "mcp-name": "=?base64?***?=" }, "the Mcp-Name header is not valid =?base64?...?= text"],
  ])("%j → %s", (headers, reason) => {
    expect(headerMismatch(headers, call)).toBe(reason);
  });

  it("a body without a method (a response) has nothing to disagree with", () => {
    expect(headerMismatch({ "mcp-method": "x" }, { jsonrpc: "2.0", id: 1, result: {} })).toBeUndefined();
  });

  let server: Awaited<ReturnType<typeof serveStep>>;
  beforeAll(async () => {
    server = await serveStep((req, res) => refuseHeaderMismatch(req, res, call));
  });
  afterAll(() => server.close());

  it("answers 400 with -32020 and the body's id", async () => {
    const res = await fetch(server.url, { headers: { "mcp-method": "tools/list" } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ id: 7, error: { code: -32020 } });
    expect((await (await fetch(server.url)).json()) as unknown).toEqual({ passed: false });
  });
});
