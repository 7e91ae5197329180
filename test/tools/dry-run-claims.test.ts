/**
 * interface.md §9 "A dry run claims only what it checked": whether the idempotency store has room
 * and is healthy (a full memory store, Redis evicting or out of memory), and whether a confirmation
 * would be asked and can be (--confirm-writes with a client that cannot confirm). A real call that
 * would be refused is said to be refused, never "writes once"; the real call then is refused indeed.
 */
import { createClient } from "@redis/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisIdempotencyBackend } from "../../src/idempotency/redis.js";
import { IdempotencyStore } from "../../src/idempotency/store.js";
import { SEED } from "../../src/sandbox/index.js";
import { connect, textOf } from "../helpers/mcp.js";
import { describeRedis, useRedis } from "../helpers/redis.js";
import { firstLine } from "../helpers/results.js";
import { useSandbox } from "../helpers/sandbox.js";

const fx = useSandbox();
const args = (key: string, dry = true) => ({
  id_group_task: SEED.taskPlans.main,
  id_task: SEED.tasks.main2,
  resources: [{ type_description: "SERVICES", id_service_type: SEED.serviceTypes.inspection }],
  idempotency_key: key,
  dry_run: dry,
});
const posts = () =>
  fx.sb.faults.requestCount[
    `POST /api/group_tasks/${SEED.taskPlans.main}/tasks/${SEED.tasks.main2}/resources`
  ] ?? 0;

async function dryRunWith(options: Parameters<typeof connect>[0], key: string) {
  const mcp = await connect(options);
  try {
    return await mcp.client.callTool({ name: "add_task_resources", arguments: args(key) });
  } finally {
    await mcp.close();
  }
}

describe("the idempotency store, as far as it can tell", () => {
  it("a full memory store: the dry run says the real call is refused, and it is", async () => {
    // Room for no key at all: the bound holds every record in progress at its largest result.
    const idempotency = new IdempotencyStore({ maxBytes: 1000, maxResultBytes: 600 });
    const mcp = await connect({ clients: fx.clients(), idempotency });
    try {
      const before = posts();
      const dry = await mcp.client.callTool({ name: "add_task_resources", arguments: args("full-1") });
      expect(dry.isError).toBeFalsy();
      expect(dry.structuredContent).toMatchObject({ idempotency: { state: "unavailable" } });
      const text = textOf(dry);
      expect(text).toContain("The real call would be REFUSED before sending anything");
      expect(text).toContain("the idempotency store is full");
      expect(text).not.toContain("writes once");
      const real = await mcp.client.callTool({
        name: "add_task_resources",
        arguments: args("full-1", false),
      });
      expect(real.isError).toBe(true);
      expect(firstLine(real)).toContain("the idempotency store is full");
      expect(posts()).toBe(before);
    } finally {
      await mcp.close();
    }
  });

  it("a memory store with room: checked, and said so", async () => {
    const dry = await dryRunWith({ clients: fx.clients() }, "room-1");
    expect(dry.structuredContent).toMatchObject({
      idempotency: { state: "unused", detail: "the store is healthy and has room for it" },
    });
    expect(textOf(dry)).toContain("if the API accepts the call it writes once");
  });
});

describeRedis("the idempotency store in Redis", () => {
  const redis = useRedis();
  let raw: ReturnType<typeof createClient>;
  const backends: RedisIdempotencyBackend[] = [];
  const store = () => {
    const backend = new RedisIdempotencyBackend({ url: redis.server.url, timeoutMs: 60_000 });
    backends.push(backend);
    return new IdempotencyStore({ backend });
  };
  beforeAll(async () => {
    raw = createClient({ url: redis.server.url });
    await raw.connect();
  });
  afterAll(async () => {
    await Promise.all(backends.map((b) => b.close()));
    raw.destroy();
  });

  it("healthy with room (INFO memory): checked, and said so", async () => {
    const dry = await dryRunWith({ clients: fx.clients(), idempotency: store() }, "redis-ok");
    expect(dry.structuredContent).toMatchObject({ idempotency: { state: "unused" } });
    expect(textOf(dry)).toContain("not used yet (the store is healthy and has room for it)");
  });

  it("out of memory (used_memory at maxmemory): refused, never 'writes once'", async () => {
    await raw.configSet("maxmemory", "1");
    try {
      const dry = await dryRunWith({ clients: fx.clients(), idempotency: store() }, "redis-oom");
      expect(dry.structuredContent).toMatchObject({ idempotency: { state: "unavailable" } });
      expect(textOf(dry)).toContain("the idempotency store is out of memory");
      expect(textOf(dry)).not.toContain("writes once");
    } finally {
      await raw.configSet("maxmemory", "0");
    }
  });

  it("evicting (maxmemory-policy allkeys-lru): refused, never 'writes once'", async () => {
    await raw.configSet("maxmemory-policy", "allkeys-lru");
    try {
      const s = store();
      // The policy is read when the backend connects: its start settles before the dry run.
      await (s.backend as RedisIdempotencyBackend).start();
      const dry = await dryRunWith({ clients: fx.clients(), idempotency: s }, "redis-evicting");
      expect(dry.structuredContent).toMatchObject({ idempotency: { state: "unavailable" } });
      expect(textOf(dry)).toContain("the idempotency store could evict records");
      expect(textOf(dry)).not.toContain("writes once");
    } finally {
      await raw.configSet("maxmemory-policy", "noeviction");
    }
  });
});

describe("a confirmation, under --confirm-writes", () => {
  it("a client that cannot confirm: the dry run says the real call is refused, and it is", async () => {
    const mcp = await connect({ clients: fx.clients(), confirmWrites: true });
    try {
      const before = posts();
      const dry = await mcp.client.callTool({ name: "add_task_resources", arguments: args("confirm-no") });
      const confirmation = (dry.structuredContent as { confirmation: string }).confirmation;
      expect(confirmation).toMatch(
        /^refused: this server runs with --confirm-writes, and this MCP client cannot show a confirmation prompt/,
      );
      expect(textOf(dry)).toContain("The real call would be REFUSED before sending anything");
      expect(textOf(dry)).toContain("the refused call would leave it unused");
      expect(textOf(dry)).not.toContain("writes once");
      const real = await mcp.client.callTool({
        name: "add_task_resources",
        arguments: args("confirm-no", false),
      });
      expect(real.isError).toBe(true);
      expect(firstLine(real)).toContain("This server runs with --confirm-writes");
      expect(posts()).toBe(before);
    } finally {
      await mcp.close();
    }
  });

  it("a client that can confirm: the prompt would be asked; the user's answer is not checked", async () => {
    const dry = await dryRunWith(
      { clients: fx.clients(), confirmWrites: true, elicit: () => ({ action: "decline" }) },
      "confirm-yes",
    );
    expect(dry.structuredContent).toMatchObject({ confirmation: "would_ask" });
    expect((dry.structuredContent as { not_checked: string[] }).not_checked).toContain(
      "whether the user approves the write",
    );
    expect(textOf(dry)).toContain("Confirmation: the real call first asks the user to approve it");
  });

  it("without --confirm-writes: none asked, and said so", async () => {
    const dry = await dryRunWith({ clients: fx.clients() }, "confirm-off");
    expect(dry.structuredContent).toMatchObject({ confirmation: "not_asked" });
  });
});
