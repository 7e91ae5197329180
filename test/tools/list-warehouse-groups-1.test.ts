import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../src/sandbox/index.js";
import { ListWarehouseGroups1Output } from "../../tools/list-warehouse-groups-1.js";
import { connect, textOf } from "../helpers/mcp.js";
import { useSandbox } from "../helpers/sandbox.js";

const fx = useSandbox();
let mcp: Awaited<ReturnType<typeof connect>>;
beforeAll(async () => {
  mcp = await connect({ clients: fx.clients({ auth: "hawk" }) });
});
afterAll(() => mcp.close());

const call = async (args: Record<string, unknown>) => {
  const result = await mcp.client.callTool({ name: "list_warehouse_groups_1", arguments: args });
  expect(result.isError).toBeFalsy();
  return { result, out: ListWarehouseGroups1Output.parse(result.structuredContent) };
};

describe("list_warehouse_groups_1 (over Hawk)", () => {
  it("lists enabled classifications by default, 100 per page", async () => {
    const { out, result } = await call({});
    expect(out).toMatchObject({ start: 0, returned: 100, next_start: 100, omitted: 0 });
    expect(out.groups.every((g) => g.enabled)).toBe(true);
    expect(textOf(result).split("\n")[1]).toBe(`${SEED.warehouseGroups1.firstMainId} Hydraulics 001`);
  });

  it("pins the text an agent reads for a short page", async () => {
    const { out, result } = await call({ limit: 3 });
    expect(out).toMatchObject({ start: 0, returned: 3, next_start: 3 });
    expect(textOf(result)).toMatchInlineSnapshot(`
      "[sandbox] 3 of 138 classification(s) from start=0:
      10001 Hydraulics 001
      10002 Filters 002
      10003 Electrical 003
      More available: call again with start=3 (or all=true)."
    `);
  });

  it("includes disabled ones with only_enabled=false and walks all pages", async () => {
    const { out, result } = await call({ only_enabled: false, all: true });
    expect(out.total).toBe(SEED.warehouseGroups1.mainCount);
    expect(out.returned).toBe(SEED.warehouseGroups1.mainCount);
    expect(out.groups.some((g) => !g.enabled)).toBe(true);
    expect(textOf(result)).toMatch(/ \(disabled\)$/m);
    expect(out.next_start).toBeNull();
  });

  it("filters by id, and an empty answer (data: null) is an empty list, not an error", async () => {
    expect((await call({ id: SEED.warehouseGroups1.firstMainId })).out.groups).toHaveLength(1);
    const { out, result } = await call({ id: 987654321 });
    expect(out).toMatchObject({ total: 0, returned: 0, groups: [], next_start: null });
    expect(textOf(result)).toBe(
      "[sandbox] 0 of 0 classification(s) from start=0:\nNo classification matches; disabled ones are listed only with only_enabled=false.",
    );
  });

  it("sees only the caller's company", async () => {
    const other = await connect({ clients: fx.clients({ client: "noaddon" }) });
    try {
      const result = await other.client.callTool({
        name: "list_warehouse_groups_1",
        arguments: { all: true, only_enabled: false },
      });
      const out = ListWarehouseGroups1Output.parse(result.structuredContent);
      expect(out.total).toBe(SEED.warehouseGroups1.otherCount);
      expect(out.groups.every((g) => g.id >= SEED.warehouseGroups1.firstOtherId)).toBe(true);
    } finally {
      await other.close();
    }
  });
});
