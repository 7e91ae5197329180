import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisIdempotencyBackend } from "../../src/idempotency/redis.js";
import { IdempotencyStore } from "../../src/idempotency/store.js";
import { SEED } from "../../src/sandbox/index.js";
import { AddTaskResourcesOutput } from "../../tools/add-task-resources.js";
import { connect, textOf } from "../helpers/mcp.js";
import { detailsOf, firstLine } from "../helpers/results.js";
import { useSandbox } from "../helpers/sandbox.js";

const fx = useSandbox();
let mcp: Awaited<ReturnType<typeof connect>>;
beforeAll(async () => {
  mcp = await connect({ clients: fx.clients() });
});
afterAll(() => mcp.close());

const call = (args: Record<string, unknown>) =>
  mcp.client.callTool({ name: "add_task_resources", arguments: args });
const posts = () =>
  fx.sb.faults.requestCount[
    `POST /api/group_tasks/${SEED.taskPlans.main}/tasks/${SEED.tasks.main2}/resources`
  ] ?? 0;

describe("add_task_resources", () => {
  it("adds one resource of each type with quantity 1 and the source's unit cost", async () => {
    const result = await call({
      id_group_task: SEED.taskPlans.main,
      id_task: SEED.tasks.main,
      resources: [
        { type_description: "INVENTORY", id_item: SEED.items.tool, note: "torque wrench" },
        { type_description: "HUMAN_RESOURCES", id_hourly_rate: SEED.hourlyRates.noCost },
        { type_description: "SERVICES", id_service_type: SEED.serviceTypes.calibration },
      ],
    });
    expect(result.isError).toBeFalsy();
    const out = AddTaskResourcesOutput.parse(result.structuredContent);
    expect(result.structuredContent).toMatchObject({ sandbox: true, total: 3 });
    expect(out.resources?.map((r) => [r.type_description, r.quantity, r.unit_cost])).toEqual([
      ["INVENTORY", 1, 45.5],
      ["HUMAN_RESOURCES", 1, 0],
      ["SERVICES", 1, 120],
    ]);
    expect(textOf(result).replace(/#\d+/g, "#<id>")).toMatchInlineSnapshot(`
      "[sandbox] Added 3 resource(s) to task 101 of plan 1 (quantity 1 each; unit costs from the source records, in the company currency (the API names none), no tax stated):
      - #<id> INVENTORY 1001 unit_cost 45.5
      - #<id> HUMAN_RESOURCES 12 unit_cost 0
      - #<id> SERVICES 31 unit_cost 120"
    `);
  });

  it("dry_run says what it checked here and what only the API can tell, and sends nothing", async () => {
    const before = posts();
    const result = await call({
      id_group_task: SEED.taskPlans.main,
      id_task: SEED.tasks.main2,
      resources: [
        { type_description: "INVENTORY", id_item: SEED.items.sparePart },
        { type_description: "INVENTORY", id_item: SEED.items.tool },
        { type_description: "HUMAN_RESOURCES", id_hourly_rate: SEED.hourlyRates.technician },
      ],
      dry_run: true,
    });
    expect(result.isError).toBeFalsy();
    const out = AddTaskResourcesOutput.parse(result.structuredContent);
    expect(out).toMatchObject({
      dry_run: true,
      id_group_task: SEED.taskPlans.main,
      id_task: SEED.tasks.main2,
      checked: [
        "3 resource(s), within 1 to 50",
        "each has the reference its type needs",
        "no resource twice",
      ],
      confirmation: "not_asked",
    });
    expect(out.idempotency).toBeUndefined();
    expect(textOf(result)).toMatchInlineSnapshot(`
      "[sandbox] Dry run: nothing sent. Only the real call can check (the API has no look-ups): task plan 1 exists and task 102 is in it; id_item 1003, 1001 are tools or spare parts; id_hourly_rate 11 exists; none is on the task already; the credential may edit task plans and the company has the advanced-APIs add-on. Send an idempotency_key: then a real call is safe to repeat.
      The real call would add 3 resource(s) to task 102 of task plan 1.
      Checked here, passed: 3 resource(s), within 1 to 50; each has the reference its type needs; no resource twice.
      Confirmation: none is asked (the server runs without --confirm-writes).
      No idempotency_key: if the real call fails unclearly, a retry could write twice; send one.
      Would send POST /api/group_tasks/1/tasks/102/resources {"resources":[{"type_description":"INVENTORY","id_item":1003},{"type_description":"INVENTORY","id_item":1001},{"type_description":"HUMAN_RESOURCES","id_hourly_rate":11}]}"
    `);
    expect(posts()).toBe(before);
  });

  it("dry_run with idempotency_key: unused (and not taken), then a replay, then refused for another request", async () => {
    const args = {
      id_group_task: SEED.taskPlans.main,
      id_task: SEED.tasks.main2,
      resources: [{ type_description: "SERVICES", id_service_type: SEED.serviceTypes.calibration }],
      idempotency_key: "plan-dry-1",
    };
    const before = posts();
    const dry = await call({ ...args, dry_run: true });
    expect(dry.structuredContent).toMatchObject({ idempotency: { key: "plan-dry-1", state: "unused" } });
    const real = await call(args);
    expect(real.structuredContent).toMatchObject({ dry_run: false, replayed: false, total: 1 });
    expect(posts()).toBe(before + 1);
    const id = (real.structuredContent as { resources: { id: number }[] }).resources[0]!.id;

    const again = await call({ ...args, dry_run: true });
    expect(again.structuredContent).toMatchObject({
      idempotency: { key: "plan-dry-1", state: "replay", detail: `resource ids ${id}` },
    });
    expect(textOf(again).split("\n")[4]).toBe(
      `idempotency_key "plan-dry-1": already used for this same request (resource ids ${id}); the real call writes nothing new and answers with that result.`,
    );
    const other = await call({
      ...args,
      resources: [{ type_description: "SERVICES", id_service_type: 33 }],
      dry_run: true,
    });
    expect(other.isError).toBe(true);
    expect(firstLine(other)).toMatch(
      /idempotency_key "plan-dry-1" was already used for a different request; use a new key/,
    );
    expect(posts()).toBe(before + 1);
  });

  it("dry_run with idempotency_key when the store does not answer: says so, sends nothing, and is not an error", async () => {
    // A refused connection answers at once: a long deadline keeps "cannot be reached" the answer under load.
    const backend = new RedisIdempotencyBackend({ url: "redis://127.0.0.1:1", timeoutMs: 60_000 });
    const down = await connect({ clients: fx.clients(), idempotency: new IdempotencyStore({ backend }) });
    try {
      const before = posts();
      const dry = await down.client.callTool({
        name: "add_task_resources",
        arguments: {
          id_group_task: SEED.taskPlans.main,
          id_task: SEED.tasks.main2,
          resources: [{ type_description: "SERVICES", id_service_type: SEED.serviceTypes.inspection }],
          idempotency_key: "plan-dry-down",
          dry_run: true,
        },
      });
      expect(dry.isError).toBeFalsy();
      expect(dry.structuredContent).toMatchObject({ idempotency: { state: "unavailable" } });
      expect(textOf(dry)).toContain("The real call would be REFUSED before sending anything");
      expect(textOf(dry)).toMatch(
        /the idempotency store would refuse it now, so the real call would send nothing: "the idempotency store cannot be reached, so this keyed write was refused and nothing was sent; retry later, or send it without idempotency_key/,
      );
      expect(posts()).toBe(before);
    } finally {
      await down.close();
      await backend.close();
    }
  });

  it("rejects duplicates inside the request locally, listing every index, without calling upstream", async () => {
    const before = posts();
    const result = await call({
      id_group_task: SEED.taskPlans.main,
      id_task: SEED.tasks.main2,
      resources: [
        { type_description: "INVENTORY", id_item: SEED.items.sparePart },
        { type_description: "INVENTORY", id_item: SEED.items.sparePart },
        { type_description: "SERVICES", id_service_type: SEED.serviceTypes.inspection },
        { type_description: "SERVICES", id_service_type: SEED.serviceTypes.inspection },
      ],
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(firstLine(result)).toBe(
      "[sandbox] Invalid input: resources: [1] duplicate of resource 0 (INVENTORY id_item 1003); [3] duplicate of resource 2 (SERVICES id_service_type 33); send each resource once",
    );
    expect(JSON.stringify(detailsOf(result))).toContain(
      '[{"index":1,"error":"duplicate of resource 0 (INVENTORY id_item 1003)"},{"index":3,"error":"duplicate of resource 2 (SERVICES id_service_type 33)"}]',
    );
    expect(posts()).toBe(before);
  });

  it("reports every failing index of an upstream 422 and creates nothing (all-or-nothing)", async () => {
    const result = await call({
      id_group_task: SEED.taskPlans.main,
      id_task: SEED.tasks.main2,
      resources: [
        { type_description: "INVENTORY", id_item: SEED.items.sparePart },
        { type_description: "INVENTORY", id_item: SEED.items.notToolOrSpare },
        { type_description: "HUMAN_RESOURCES", id_hourly_rate: SEED.hourlyRates.technician },
        { type_description: "SERVICES", id_service_type: 999 },
      ],
    });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text.split("\n")[0]).toMatch(/422/);
    expect(text).toMatch(/\[1\][^;]*1005/);
    expect(text).toMatch(/\[3\][^;]*999/);
    // Nothing was created: the same valid resources now succeed.
    const retry = await call({
      id_group_task: SEED.taskPlans.main,
      id_task: SEED.tasks.main2,
      resources: [{ type_description: "INVENTORY", id_item: SEED.items.sparePart }],
    });
    expect(retry.isError).toBeFalsy();
  });

  it("rejects a resource already on the task", async () => {
    const result = await call({
      id_group_task: SEED.taskPlans.main,
      id_task: SEED.tasks.withResources,
      resources: [{ type_description: "INVENTORY", id_item: SEED.items.tool }],
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/\[0\].*(already|exists)/i);
  });

  it.each([
    ["an unknown task", SEED.taskPlans.main, SEED.tasks.missing, /404|not found/i],
    ["a task of another plan", SEED.taskPlans.main, SEED.tasks.inSecondPlan, /422/],
    ["an unknown plan", SEED.taskPlans.missing, SEED.tasks.main, /422/],
  ])("explains %s", async (_, plan, task, pattern) => {
    const result = await call({
      id_group_task: plan,
      id_task: task,
      resources: [{ type_description: "SERVICES", id_service_type: SEED.serviceTypes.inspection }],
    });
    expect(result.isError).toBe(true);
    expect(textOf(result).split("\n")[0]).toMatch(pattern);
  });

  it.each([
    ["readonly", /permission/i],
    ["noaddon", /add-on/i],
  ] as const)("answers 403 for the %s client with a hint", async (client, hint) => {
    const other = await connect({ clients: fx.clients({ client }) });
    try {
      const result = await other.client.callTool({
        name: "add_task_resources",
        arguments: {
          id_group_task: SEED.taskPlans.main,
          id_task: SEED.tasks.main3,
          resources: [{ type_description: "SERVICES", id_service_type: SEED.serviceTypes.inspection }],
        },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/403/);
      expect(textOf(result)).toMatch(hint);
    } finally {
      await other.close();
    }
  });

  it("accepts resources sent as a JSON string and ids as strings", async () => {
    const result = await call({
      id_group_task: String(SEED.taskPlans.main),
      id_task: String(SEED.tasks.main4),
      resources: JSON.stringify([
        { type_description: "HUMAN_RESOURCES", id_hourly_rate: String(SEED.hourlyRates.engineer) },
      ]),
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ total: 1, resources: [{ unit_cost: 52.5 }] });
  });

  it("dry_run refuses duplicates exactly as the real call does", async () => {
    const result = await call({
      id_group_task: SEED.taskPlans.main,
      id_task: SEED.tasks.main2,
      resources: [
        { type_description: "HUMAN_RESOURCES", id_hourly_rate: SEED.hourlyRates.technician },
        { type_description: "HUMAN_RESOURCES", id_hourly_rate: SEED.hourlyRates.technician },
      ],
      dry_run: true,
    });
    expect(result.isError).toBe(true);
    expect(firstLine(result)).toMatch(/^\[sandbox\] Invalid input: resources: \[1\] duplicate of resource 0/);
  });

  it.each([
    [{ resources: [] }, /resources/],
    [
      {
        resources: Array.from({ length: 51 }, (_, i) => ({ type_description: "INVENTORY", id_item: i + 1 })),
      },
      /resources/,
    ],
    [{ resources: [{ type_description: "INVENTORY", id_item: 1, quantity: 3 }] }, /quantity/],
    [{ resources: [{ type_description: "TOOLS", id_item: 1 }] }, /type_description/],
    [{ resources: [{ type_description: "INVENTORY", id_hourly_rate: 1 }] }, /id_item/],
    [{ id_task: -1, resources: [{ type_description: "INVENTORY", id_item: 1 }] }, /id_task/],
  ])("rejects bad input locally: %j", async (patch, field) => {
    const before = posts();
    const result = await call({ id_group_task: SEED.taskPlans.main, id_task: SEED.tasks.main2, ...patch });
    expect(result.isError).toBe(true);
    expect(textOf(result).split("\n")[0]).toMatch(/^\[sandbox\] Invalid arguments for add_task_resources: /);
    expect(textOf(result).split("\n")[0]).toMatch(field);
    expect(posts()).toBe(before);
  });
});
