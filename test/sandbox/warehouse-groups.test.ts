/**
 * Warehouse classification 1 (api-spec §4.5): only_enabled default and "false", id filter,
 * pagination with total = matches in the company, limit ≤ 100, and `data: null` when nothing
 * matches.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxHandle } from "../../src/sandbox/index.js";
import { bearer, type Envelope, fixedClock, hawk, start, token } from "./helpers.js";

let sb: SandboxHandle;
let tok: string;
const clock = fixedClock();

beforeAll(async () => {
  sb = await start({ clock });
  tok = await token(sb);
});
afterAll(() => sb.close());

type Group = { id: number; id_company: number; description: string; enabled: boolean };
const get = (q: string) => bearer<Envelope<Group[] | null>>(sb, tok, "GET", `/api/warehouses_groups_1${q}`);
const mine = () => sb.state.warehouseGroups1.filter((g) => g.id_company === 1);

describe("warehouses_groups_1", () => {
  it("has ≥ 150 classifications for company 1, some disabled", () => {
    expect(mine().length).toBeGreaterThanOrEqual(150);
    expect(mine().some((g) => !g.enabled)).toBe(true);
  });

  it("by default lists only enabled ones; total = matches, not page size", async () => {
    const enabled = mine().filter((g) => g.enabled);
    const r = await get("");
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(enabled.length);
    expect(r.body.data).toHaveLength(100);
    expect(r.body.data!.every((g) => g.enabled)).toBe(true);
    const p2 = await get("?start=100&limit=100");
    expect(p2.body.total).toBe(enabled.length);
    expect(p2.body.data).toHaveLength(enabled.length - 100);
    expect(p2.body.data![0]!.id).toBe(enabled[100]!.id);
  });

  it('only_enabled=false includes disabled ones; "true" is the default behaviour', async () => {
    const r = await get("?only_enabled=false&limit=5");
    expect(r.body.total).toBe(mine().length);
    const t = await get("?only_enabled=true&limit=5");
    expect(t.body.total).toBe(mine().filter((g) => g.enabled).length);
    expect((await get("?only_enabled=maybe")).status).toBe(422);
  });

  it("id filter: a disabled id is hidden unless only_enabled=false", async () => {
    const disabled = mine().find((g) => !g.enabled)!;
    const hidden = await get(`?id=${disabled.id}`);
    expect(hidden.body).toEqual({ success: true, message: "200", data: null, total: 0 });
    const shown = await get(`?id=${disabled.id}&only_enabled=false`);
    expect(shown.body).toEqual({ success: true, message: "200", data: [disabled], total: 1 });
  });

  it("nothing matches → success true, data null, total 0 (also past the last page)", async () => {
    expect((await get("?id=1")).body).toEqual({ success: true, message: "200", data: null, total: 0 });
    const past = await get("?start=5000");
    expect(past.body.data).toBeNull();
    expect(past.body.success).toBe(true);
  });

  it("limit above 100, zero or malformed; bad start or id → 422", async () => {
    for (const q of ["?limit=101", "?limit=0", "?limit=x", "?start=-2", "?id=abc", "?id=0"]) {
      const r = await get(q);
      expect(r.status, q).toBe(422);
      expect(r.body.success).toBe(false);
    }
  });

  it("works with Hawk", async () => {
    const r = await hawk<Envelope<Group[]>>(sb, "GET", "/api/warehouses_groups_1?limit=1", undefined, {
      clock,
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(1);
  });

  it("absent credentials → 401", async () => {
    expect((await fetch(`${sb.baseUrl}/warehouses_groups_1`)).status).toBe(401);
  });
});
