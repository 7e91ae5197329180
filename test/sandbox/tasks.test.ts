/**
 * Task-plan resources (api-spec §4.1, §7.1): path ids, plan/task checks, body limits, every
 * per-element rule with all failing indexes listed, atomicity, quantity 1, unit_cost sources,
 * permissions and add-on, with Bearer and Hawk.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxHandle, SEED } from "../../src/sandbox/index.js";
import { bearer, type Envelope, fixedClock, HAWK_OTHER, hawk, start, token } from "./helpers.js";

let sb: SandboxHandle;
let tok: string;
const clock = fixedClock();

beforeAll(async () => {
  sb = await start({ clock });
  tok = await token(sb);
});
afterAll(() => sb.close());

const path = (plan: number | string, task: number | string) =>
  `/api/group_tasks/${plan}/tasks/${task}/resources`;
type Resp = Envelope<Record<string, unknown>[]>;
const post = (p: string, body: unknown, t = tok) => bearer<Resp>(sb, t, "POST", p, body);
const inv = (id_item: unknown, extra: Record<string, unknown> = {}) => ({
  type_description: "INVENTORY",
  id_item,
  ...extra,
});

describe("path and lookups", () => {
  it("non-numeric or non-positive ids → 422", async () => {
    for (const p of [path("abc", 101), path(1, "x"), path(0, 101), path(1, "-5"), path("1.5", 101)]) {
      const r = await post(p, { resources: [inv(1001)] });
      expect(r.status, p).toBe(422);
      expect(r.body.data[0]).toHaveProperty("ERROR");
    }
  });

  it("plan that does not exist → 422", async () => {
    const r = await post(path(SEED.taskPlans.missing, 101), { resources: [inv(1001)] });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      success: false,
      message: "422",
      data: [{ ERROR: "Task plan 999 does not exist" }],
      total: 0,
    });
  });

  it("task that does not exist → 404 with [{ERROR}]", async () => {
    const r = await post(path(1, SEED.tasks.missing), { resources: [inv(1001)] });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      success: false,
      message: "404",
      data: [{ ERROR: "Task 9999 does not exist" }],
      total: 0,
    });
  });

  it("task of another plan → 422", async () => {
    const r = await post(path(1, SEED.tasks.inSecondPlan), { resources: [inv(1001)] });
    expect(r.status).toBe(422);
    expect(r.body.data).toEqual([{ ERROR: "Task 201 does not belong to task plan 1" }]);
  });
});

describe("body", () => {
  it("resources missing, not an array, empty, over 50 → 422", async () => {
    for (const body of [{}, { resources: "x" }, { resources: {} }, { resources: [] }]) {
      const r = await post(path(1, 103), body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.success).toBe(false);
    }
    const many = Array.from({ length: 51 }, () => inv(1001));
    const r = await post(path(1, 103), { resources: many });
    expect(r.status).toBe(422);
    expect(r.body.data[0]!.ERROR).toMatch(/at most 50/);
  });

  it("50 resources are within the limit (element errors, not the size error)", async () => {
    const fifty = Array.from({ length: 50 }, (_, i) => inv(50_000 + i));
    const r = await post(path(1, 103), { resources: fifty });
    expect(r.status).toBe(422);
    expect(r.body.data).toHaveLength(50);
    expect(r.body.data[49]).toEqual({ index: 49, error: "id_item 50049 does not exist" });
  });

  it("422 lists every failing index, in English, and creates nothing (atomic)", async () => {
    const before = sb.state.taskResources.length;
    const r = await post(path(1, 103), {
      resources: [
        inv(SEED.items.tool), // 0 ok
        { type_description: "TOOLS", id_item: 1001 }, // 1 bad type
        { type_description: "INVENTORY" }, // 2 reference missing
        { type_description: "HUMAN_RESOURCES", id_item: 1001 }, // 3 wrong reference for the type
        inv(SEED.items.missing), // 4 does not exist
        inv(SEED.items.notToolOrSpare), // 5 neither tool nor spare part
        { type_description: "SERVICES", id_service_type: 4242 }, // 6 does not exist
        inv(SEED.items.tool), // 7 duplicate in request
        { type_description: "HUMAN_RESOURCES", id_hourly_rate: SEED.hourlyRates.otherCompany }, // 8 other company's
        "nope", // 9 not an object
      ],
    });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      success: false,
      message: "422",
      total: 0,
      data: [
        { index: 1, error: "type_description must be one of INVENTORY, HUMAN_RESOURCES, SERVICES" },
        { index: 2, error: "id_item is required when type_description is INVENTORY" },
        { index: 3, error: "id_hourly_rate is required when type_description is HUMAN_RESOURCES" },
        { index: 4, error: "id_item 99999 does not exist" },
        { index: 5, error: "id_item 1005 is not a tool or spare part" },
        { index: 6, error: "id_service_type 4242 does not exist" },
        { index: 7, error: "id_item 1001 is repeated in this request (index 0)" },
        { index: 8, error: "id_hourly_rate 21 does not exist" },
        { index: 9, error: "resource must be an object" },
      ],
    });
    expect(sb.state.taskResources.length).toBe(before);
  });

  it("a resource the task already has → 422 duplicate", async () => {
    const r = await post(path(1, SEED.tasks.withResources), {
      resources: [
        { type_description: "HUMAN_RESOURCES", id_hourly_rate: SEED.hourlyRates.engineer },
        inv(SEED.items.tool),
        { type_description: "SERVICES", id_service_type: SEED.serviceTypes.calibration },
      ],
    });
    expect(r.status).toBe(422);
    expect(r.body.data).toEqual([
      { index: 1, error: "id_item 1001 already exists on task 105" },
      { index: 2, error: "id_service_type 31 already exists on task 105" },
    ]);
  });
});

describe("creation", () => {
  it("quantity is 1 whatever is sent; unit_cost from the source, 0 when none; request order", async () => {
    const r = await post(path(1, SEED.tasks.main3), {
      resources: [
        { type_description: "SERVICES", id_service_type: SEED.serviceTypes.noCost, quantity: 7 },
        inv(SEED.items.toolNoCost, { quantity: 3, unit_cost: 999 }),
        { type_description: "HUMAN_RESOURCES", id_hourly_rate: SEED.hourlyRates.noCost },
        { type_description: "HUMAN_RESOURCES", id_hourly_rate: "13" },
        inv(SEED.items.sparePart, { note: "spare" }),
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body.total).toBe(5);
    expect(r.body.data.map((x) => [x.type_description, x.quantity, x.unit_cost])).toEqual([
      ["SERVICES", 1, 0],
      ["INVENTORY", 1, 0],
      ["HUMAN_RESOURCES", 1, 0],
      ["HUMAN_RESOURCES", 1, 52.5],
      ["INVENTORY", 1, 12.75],
    ]);
    expect(r.body.data[4]).toMatchObject({ id_item: 1003, note: "spare" });
    expect(r.body.data[0]).not.toHaveProperty("id_item");
    expect(r.body.data[0]).not.toHaveProperty("note");
    const ids = r.body.data.map((x) => x.id as number);
    expect(new Set(ids).size).toBe(5);
  });

  it("the same resource on a second call → 422 (already on the task)", async () => {
    const first = await post(path(1, SEED.tasks.main4), { resources: [inv(SEED.items.tool)] });
    expect(first.status).toBe(201);
    const again = await post(path(1, SEED.tasks.main4), { resources: [inv(SEED.items.tool)] });
    expect(again.status).toBe(422);
  });

  it("works with Hawk too", async () => {
    const r = await hawk<Resp>(
      sb,
      "POST",
      path(1, SEED.tasks.main4),
      { resources: [inv(SEED.items.sparePart)] },
      { clock },
    );
    expect(r.status).toBe(201);
  });
});

describe("permissions", () => {
  it("no credentials → 401", async () => {
    const res = await fetch(`${sb.url}${path(1, 101)}`, { method: "POST", body: "{}" });
    expect(res.status).toBe(401);
  });

  it("read-only client (no edit permission) → 403, before validation", async () => {
    const ro = await token(sb, "readonly");
    const r = await post(path("abc", 101), { resources: [] }, ro);
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ success: false, message: "403", total: 0 });
  });

  it("company without the advanced-APIs add-on → 403 (Bearer and Hawk)", async () => {
    const na = await token(sb, "noaddon");
    const r = await post(
      path(SEED.taskPlans.otherCompany, SEED.tasks.otherCompany),
      { resources: [inv(2001)] },
      na,
    );
    expect(r.status).toBe(403);
    expect(r.body.data[0]!.ERROR).toMatch(/add-on/);
    const h = await hawk<Resp>(
      sb,
      "POST",
      path(3, 301),
      { resources: [inv(2001)] },
      { clock, credentials: HAWK_OTHER },
    );
    expect(h.status).toBe(403);
  });

  it("a task of another company is not found", async () => {
    const r = await post(path(1, SEED.tasks.otherCompany), { resources: [inv(1001)] });
    expect(r.status).toBe(404);
    const plan = await post(path(SEED.taskPlans.otherCompany, SEED.tasks.otherCompany), {
      resources: [inv(1001)],
    });
    expect(plan.status).toBe(422);
  });
});
