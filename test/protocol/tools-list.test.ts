/** `tools/list` pinned as a reviewed file: any change to a name, schema, hint or description shows up as a diff. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../helpers/mcp.js";
import { useSandbox } from "../helpers/sandbox.js";

const fx = useSandbox();
let mcp: Awaited<ReturnType<typeof connect>>;
beforeAll(async () => {
  mcp = await connect({ clients: fx.clients() });
});
afterAll(() => mcp.close());

describe("tools/list", () => {
  it("matches the reviewed snapshot", async () => {
    const { tools } = await mcp.client.listTools();
    await expect(`${JSON.stringify({ tools }, null, 2)}\n`).toMatchFileSnapshot(
      "__snapshots__/tools-list.json",
    );
  });

  it("stays within the context budget of 3,000 tokens (bytes / 4)", async () => {
    const { tools } = await mcp.client.listTools();
    expect(JSON.stringify({ tools }).length / 4).toBeLessThanOrEqual(3000);
  });

  it("declares every hint explicitly and an output schema for each tool", async () => {
    const { tools } = await mcp.client.listTools();
    for (const tool of tools) {
      expect(tool.title).toBeTruthy();
      expect(tool.outputSchema?.type).toBe("object");
      expect(Object.keys(tool.annotations ?? {}).sort()).toEqual([
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
        "readOnlyHint",
      ]);
    }
  });
});
