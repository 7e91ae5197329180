import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../src/sandbox/index.js";
import { ListWarehouseGroups1Output } from "../../tools/list-warehouse-groups-1.js";
import { connect, textOf } from "../helpers/mcp.js";
import { firstLine } from "../helpers/results.js";
import { useSandbox } from "../helpers/sandbox.js";

const fx = useSandbox();
let mcp: Awaited<ReturnType<typeof connect>>;
beforeAll(async () => {
  mcp = await connect({ clients: fx.clients({ auth: "hawk" }) });
});
afterAll(() => mcp.close());

const GET = "GET /api/warehouses_groups_1";
const gets = () => fx.sb.faults.requestCount[GET] ?? 0;

const call = async (args: Record<string, unknown>) => {
  const result = await mcp.client.callTool({ name: "list_warehouse_groups_1", arguments: args });
  expect(result.isError, textOf(result)).toBeFalsy();
  return { result, out: ListWarehouseGroups1Output.parse(result.structuredContent) };
};

describe("list_warehouse_groups_1 (over Hawk)", () => {
  it("lists enabled classifications by default, 100 per page, and says what is missing", async () => {
    const { out, result } = await call({});
    expect(out).toMatchObject({ start: 0, returned: 100, next_start: 100, omitted: 0, complete: false });
    expect(out.groups.every((g) => g.enabled)).toBe(true);
    expect(out.enabled_count).toBeUndefined();
    expect(firstLine(result)).toBe(
      "[sandbox] 100 of 138 enabled classifications from start=0, in id order; the other 38: start=100 (or all: true).",
    );
    expect(textOf(result).split("\n")[1]).toBe(`${SEED.warehouseGroups1.firstMainId} Hydraulics 001`);
  });

  it("pins the text an agent reads for a short page", async () => {
    const { out, result } = await call({ limit: 3 });
    expect(out).toMatchObject({ start: 0, returned: 3, next_start: 3, complete: false });
    expect(textOf(result)).toMatchInlineSnapshot(`
      "[sandbox] 3 of 138 enabled classifications from start=0, in id order; the other 135: start=3 (or all: true).
      10001 Hydraulics 001
      10002 Filters 002
      10003 Electrical 003"
    `);
  });

  it("the last page says it is the last, and where the first ones are", async () => {
    const { out, result } = await call({ start: 100 });
    expect(out).toMatchObject({ returned: 38, next_start: null, complete: false });
    expect(firstLine(result)).toBe(
      "[sandbox] 38 of 138 enabled classifications from start=100, in id order, the last ones; the first 100: start=0.",
    );
  });

  it("all: true says it is complete", async () => {
    const { out, result } = await call({ all: true });
    expect(out).toMatchObject({ total: 138, returned: 138, next_start: null, complete: true });
    expect(firstLine(result)).toBe(
      '[sandbox] All 138 enabled classifications, in id order (disabled ones: state "disabled"):',
    );
  });

  it('state "disabled" answers "which are disabled" in one call: counts first, every page read, in id order', async () => {
    const before = gets();
    const { out, result } = await call({ state: "disabled" });
    expect(out).toMatchObject({
      total: SEED.warehouseGroups1.mainCount,
      returned: 22,
      enabled_count: 138,
      disabled_count: 22,
      complete: true,
      next_start: null,
      omitted: 0,
    });
    expect(out.groups.every((g) => !g.enabled)).toBe(true);
    const ids = out.groups.map((g) => g.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // 160 classifications in pages of 100.
    expect(gets() - before).toBe(2);
    expect(textOf(result).split("\n").slice(0, 4).join("\n")).toMatchInlineSnapshot(`
      "[sandbox] 160 classifications: 138 enabled, 22 disabled (every page read).
      The 22 disabled, in id order:
      10007 Belts 007 (disabled)
      10014 Electrical 014 (disabled)"
    `);
  });

  it('state "all" returns both kinds with the counts, and reports progress while it reads', async () => {
    const progress: number[] = [];
    const result = await mcp.client.callTool(
      { name: "list_warehouse_groups_1", arguments: { state: "all" } },
      undefined,
      { onprogress: (p) => progress.push(p.progress) },
    );
    const out = ListWarehouseGroups1Output.parse(result.structuredContent);
    expect(out).toMatchObject({ returned: 160, enabled_count: 138, disabled_count: 22, complete: true });
    expect(firstLine(result)).toBe(
      "[sandbox] 160 classifications: 138 enabled, 22 disabled (every page read).",
    );
    expect(textOf(result).split("\n")[1]).toBe("All 160, in id order:");
    expect(textOf(result)).toMatch(/ \(disabled\)$/m);
    expect(progress.at(-1)).toBe(160);
  });

  it("a walk stopped by max_records says so, counts what it read, and gives the start to go on", async () => {
    const { out, result } = await call({ state: "disabled", max_records: 50 });
    expect(out).toMatchObject({ complete: false, next_start: 50, omitted: 110 });
    expect((out.enabled_count ?? 0) + (out.disabled_count ?? 0)).toBe(50);
    expect(firstLine(result)).toMatch(
      /^\[sandbox\] 50 of 160 classifications read, from start=0: \d+ enabled, \d+ disabled among them; the other 110: start=50 \(or a larger max_records\)\.$/,
    );
    const rest = await call({ state: "disabled", start: 50 });
    expect(rest.out).toMatchObject({ complete: false, next_start: null });
    expect(out.disabled_count! + rest.out.disabled_count!).toBe(22);
  });

  it("keeps only_enabled working as before (paged), now with the counts of what it read", async () => {
    const page = await call({ only_enabled: false, limit: 50 });
    expect(page.out).toMatchObject({ returned: 50, next_start: 50, complete: false });
    expect(page.out.enabled_count! + page.out.disabled_count!).toBe(50);
    expect(firstLine(page.result)).toMatch(
      /^\[sandbox\] 50 of 160 classifications read, from start=0: \d+ enabled, \d+ disabled among them; the other 110: start=50 \(or all: true\)\.$/,
    );
    expect(textOf(page.result).split("\n")[1]).toBe("These, in id order:");
    const both = await call({ only_enabled: false, all: true });
    expect(both.out).toMatchObject({ returned: 160, enabled_count: 138, disabled_count: 22, complete: true });
    const enabled = await call({ only_enabled: true, all: true, state: "enabled" });
    expect(enabled.out).toMatchObject({ returned: 138, complete: true });
    const disabled = await call({ only_enabled: false, state: "disabled" });
    expect(disabled.out).toMatchObject({ returned: 22, complete: true });
  });

  it.each([
    [
      { only_enabled: true, state: "disabled" },
      /only_enabled=true asks for enabled classifications only, state="disabled" for disabled ones: send state alone/,
    ],
    [{ only_enabled: true, state: "all" }, /state="all" for every one: send state alone/],
    [
      { only_enabled: false, state: "enabled" },
      /only_enabled=false includes disabled classifications, state="enabled" excludes them: send state alone/,
    ],
    [
      { state: "disabled", limit: 10 },
      /limit does not apply to state="disabled": every page is read to count them .*; drop limit, or cap with max_records/,
    ],
    [{ state: "all", all: false }, /state="all" always reads every page .*; drop all=false/],
    [{ state: "off" }, /state/],
  ])("refuses %j with the fix, before any request", async (args, message) => {
    const before = gets();
    const result = await mcp.client.callTool({ name: "list_warehouse_groups_1", arguments: args });
    expect(result.isError).toBe(true);
    expect(firstLine(result)).toMatch(message);
    expect(gets()).toBe(before);
  });

  it("filters by id, and an empty answer (data: null) is an empty, complete list, not an error", async () => {
    expect((await call({ id: SEED.warehouseGroups1.firstMainId })).out.groups).toHaveLength(1);
    const { out, result } = await call({ id: 987654321 });
    expect(out).toMatchObject({ total: 0, returned: 0, groups: [], next_start: null, complete: true });
    expect(textOf(result)).toBe(
      '[sandbox] No enabled classification matches; disabled ones show with state "disabled" or "all".',
    );
    const none = await call({ id: 987654321, state: "disabled" });
    expect(textOf(none.result)).toBe(
      "[sandbox] 0 classifications: 0 enabled, 0 disabled (every page read).\nNone is disabled.",
    );
  });

  it("a full page whose total equals its size says there may be more, and how to look", async () => {
    const other = await connect({ clients: fx.clients({ client: "noaddon" }) });
    try {
      const list = async (args: Record<string, unknown>) => {
        const result = await other.client.callTool({ name: "list_warehouse_groups_1", arguments: args });
        return { result, out: ListWarehouseGroups1Output.parse(result.structuredContent) };
      };
      const every = (await list({ all: true })).out;
      expect(every.complete).toBe(true);
      const n = every.returned;
      // upstream-notes: some deployments send the page length as total, so a full page may not be the end.
      const { out, result } = await list({ limit: n });
      expect(out).toMatchObject({ returned: n, total: n, next_start: n, complete: false });
      expect(firstLine(result)).toBe(
        `[sandbox] ${n} of ${n} enabled classifications from start=0, in id order; there may be more (the API's total equals this page): start=${n} (or all: true).`,
      );
      // An id lookup holds at most one classification: whole, even as a full page of one.
      const one = await list({ id: SEED.warehouseGroups1.firstOtherId, limit: 1 });
      expect(one.out).toMatchObject({ returned: 1, next_start: null, complete: true });
    } finally {
      await other.close();
    }
  });

  it("sees only the caller's company", async () => {
    const other = await connect({ clients: fx.clients({ client: "noaddon" }) });
    try {
      const result = await other.client.callTool({
        name: "list_warehouse_groups_1",
        arguments: { state: "all" },
      });
      const out = ListWarehouseGroups1Output.parse(result.structuredContent);
      expect(out.total).toBe(SEED.warehouseGroups1.otherCount);
      expect(out.groups.every((g) => g.id >= SEED.warehouseGroups1.firstOtherId)).toBe(true);
    } finally {
      await other.close();
    }
  });
});
