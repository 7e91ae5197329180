/**
 * interface.md §9b against a REAL authorization server (oidc-provider on loopback): tasks belong to
 * who made them (the OAuth subject and client, or the tenant's static token), `tasks/result` needs the
 * scope the tool needed, each subject has its own task bound, confirmations are bound the same way,
 * and tools/list is announced private whenever it depends on the caller. Tokens are signed with the
 * authorization server's own key (its JWKS verifies them), for two subjects and a write-only token.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { importJWK, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { Secret } from "../../src/errors/secret.js";
import { idempotencyBackends } from "../../src/hosting/idempotency.js";
import { createServerSet } from "../../src/hosting/servers.js";
import { createStateSigner } from "../../src/mcp/sdk.js";
import { selectTools } from "../../src/mcp/server.js";
import { oauthAuthentication } from "../../src/mcp/transports/http/oauth/index.js";
import {
  firstOf,
  type HttpHandle,
  startHttp,
  staticTokenAuthentication,
} from "../../src/mcp/transports/http.js";
import { SEED } from "../../src/sandbox/index.js";
import { type DemoAuthorizationServer, startDemoAuthorizationServer } from "../../src/sandbox/oauth-demo.js";
import { raw2026 } from "../helpers/raw-2026.js";
import { captureLogger, useSandbox } from "../helpers/sandbox.js";

const fx = useSandbox();
const STATIC = "static-token-beside-oauth-0123456789";

let as: DemoAuthorizationServer;
let http: HttpHandle;
let close: () => Promise<void>;
beforeAll(async () => {
  let publicUrl = "";
  as = await startDemoAuthorizationServer({ resource: () => publicUrl });
  const { logger } = captureLogger("info");
  const tools = selectTools({ readOnly: false, hubAvailable: true }).tools;
  const backends = await idempotencyBackends({
    redisUrl: undefined,
    ttlMs: 60_000,
    redisTimeoutMs: 1000,
    tenants: undefined,
    logger,
  });
  const serverSet = createServerSet({
    config: loadConfig({ ...fx.sb.env({}), MMS_MAX_RETRIES: "0" }),
    tenants: undefined,
    tools,
    sandbox: true,
    confirmWrites: true,
    logger,
    backends,
    signer: createStateSigner(),
    stopping: new AbortController().signal,
    callerDependentLists: true,
  });
  http = await startHttp(serverSet.makeServer, {
    host: "127.0.0.1",
    port: 0,
    token: undefined,
    logger,
    version: "test",
    writerTools: new Set(tools.filter((t) => !t.annotations.readOnlyHint).map((t) => t.name)),
    authenticator: (url) => {
      publicUrl = url;
      return firstOf(
        staticTokenAuthentication(new Secret(STATIC)),
        oauthAuthentication({
          config: { issuer: as.issuer, publicUrl: url, tenantClaim: undefined, introspection: undefined },
        }),
      );
    },
  });
  close = async () => {
    await http.close();
    await serverSet.clients.close();
    await backends.close();
    await as.close();
  };
});
afterAll(() => close());

/** An access token the authorization server's key signs, for `sub` through `client_id` with `scope`. */
async function token(sub: string, clientId: string, scope: string): Promise<string> {
  const key = await importJWK(as.signingKey as JWK, "ES256");
  return new SignJWT({ scope, client_id: clientId, sub })
    .setProtectedHeader({ alg: "ES256", kid: "demo-es256" })
    .setIssuer(as.issuer)
    .setAudience(http.url)
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(key);
}

async function client(bearer: string): Promise<Client> {
  const c = new Client({ name: "owners", version: "1" });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(http.url), {
      requestInit: { headers: { authorization: `Bearer ${bearer}` } },
    }),
  );
  return c;
}

const REVIEW = {
  group_by: ["currency"],
  since: "all",
  until: new Date(Date.now() + 86_400_000).toISOString(),
};
const FULL = "mms:read mms:write";

async function startTask(c: Client) {
  const { task } = await c.request(
    { method: "tools/call", params: { name: "query_budgets", arguments: REVIEW, task: {} } },
    CreateTaskResultSchema,
  );
  return task;
}

describe("tasks belong to who made them (interface.md §9b)", () => {
  it("alice's task: bob, alice through another client, and the static token can neither read, await, cancel nor list it", async () => {
    const alice = await client(await token("alice", "host-a", FULL));
    const others = {
      bob: await client(await token("bob", "host-a", FULL)),
      "alice via another client": await client(await token("alice", "host-b", FULL)),
      "the static token": await client(STATIC),
    };
    try {
      const task = await startTask(alice);
      const result = await alice.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      expect(result.structuredContent).toMatchObject({ complete: true });
      for (const [who, other] of Object.entries(others)) {
        await expect(other.experimental.tasks.getTask(task.taskId), who).rejects.toThrow(/no task/);
        await expect(
          other.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema),
          who,
        ).rejects.toThrow(/no task/);
        await expect(other.experimental.tasks.cancelTask(task.taskId), who).rejects.toThrow(/no task/);
        expect((await other.experimental.tasks.listTasks()).tasks, who).toEqual([]);
      }
      expect((await alice.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([task.taskId]);
      expect((await alice.experimental.tasks.getTask(task.taskId)).status).toBe("completed");
    } finally {
      await Promise.all([alice, ...Object.values(others)].map((c) => c.close()));
    }
  });

  it("tokens naming neither sub nor a client share no task owner: each token's tasks are its own, on any connection (interface.md §9c)", async () => {
    const key = await importJWK(as.signingKey as JWK, "ES256");
    const nameless = (jti: string) =>
      new SignJWT({ scope: FULL, jti })
        .setProtectedHeader({ alg: "ES256", kid: "demo-es256" })
        .setIssuer(as.issuer)
        .setAudience(http.url)
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(key);
    const [first, second] = [await nameless("one"), await nameless("two")];
    const a = await client(first);
    const b = await client(second);
    const again = await client(first);
    try {
      const task = await startTask(a);
      await expect(b.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/no task/);
      await expect(b.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toThrow(
        /no task/,
      );
      await expect(b.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/no task/);
      expect((await b.experimental.tasks.listTasks()).tasks).toEqual([]);
      const result = await again.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      expect(result.structuredContent).toMatchObject({ complete: true });
      expect((await again.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([task.taskId]);
    } finally {
      await Promise.all([a, b, again].map((c) => c.close()));
    }
  });

  it("a token with mms:write only, refused on query_budgets, cannot read alice's review through tasks/result", async () => {
    const alice = await client(await token("alice", "host-w", FULL));
    const writeOnly = await client(await token("alice", "host-w", "mms:write"));
    try {
      const task = await startTask(alice);
      await alice.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      await expect(writeOnly.callTool({ name: "query_budgets", arguments: REVIEW })).rejects.toThrow(
        /403|scope/,
      );
      await expect(
        writeOnly.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema),
      ).rejects.toThrow(/needs the scope mms:read, which this access token does not grant/);
      await expect(writeOnly.experimental.tasks.getTask(task.taskId)).rejects.toThrow(
        /needs the scope mms:read/,
      );
    } finally {
      await alice.close();
      await writeOnly.close();
    }
  });
});

describe("lists private when they differ (interface.md §9b)", () => {
  it("tools/list is cacheScope private for an OAuth token and for the static token beside OAuth", async () => {
    for (const bearer of [await token("alice", "host-l", "mms:read"), STATIC]) {
      const list = await raw2026<{ result: { cacheScope?: string; tools: { name: string }[] } }>(
        http.url,
        "tools/list",
        {},
        { headers: { authorization: `Bearer ${bearer}` } },
      );
      expect(list.body?.result.cacheScope).toBe("private");
    }
  });
});

describe("confirmations belong to who was asked (interface.md §9b)", () => {
  it("alice's approval state, answered by bob or the static token, asks again and writes nothing; alice's own answer writes", async () => {
    const args = {
      warehouse_code: SEED.warehouses.main,
      movement_type: "purchase",
      document: "OWNERS-CONFIRM",
      code_user: SEED.users.withAccount,
      items: [{ code: SEED.itemCodes.sparePart, qty: 1, unit_cost: 5 }],
    };
    const call = (bearer: string, extra: Record<string, unknown> = {}) =>
      raw2026<{ result: { resultType?: string; requestState?: string; isError?: boolean } }>(
        http.url,
        "tools/call",
        { name: "create_warehouse_entry", arguments: args, ...extra },
        { headers: { authorization: `Bearer ${bearer}` } },
      );
    const alice = await token("alice", "host-c", FULL);
    const asked = await call(alice);
    expect(asked.body?.result.resultType).toBe("input_required");
    const answer = {
      requestState: asked.body?.result.requestState,
      inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
    };
    for (const other of [await token("bob", "host-c", FULL), await token("alice", "host-d", FULL), STATIC]) {
      expect((await call(other, answer)).body?.result.resultType).toBe("input_required");
    }
    expect(fx.sb.state.movements.filter((m) => m.movement.document === "OWNERS-CONFIRM")).toHaveLength(0);
    const done = await call(alice, answer);
    expect(done.body?.result.isError).toBeFalsy();
    expect(fx.sb.state.movements.filter((m) => m.movement.document === "OWNERS-CONFIRM")).toHaveLength(1);
  });
});
