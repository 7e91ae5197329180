/**
 * interface.md §7b "Nothing learned across tenants", reproduced on loopback with two tenants of one
 * server: a tenant probing the other's secret through echoed error text, a confirmation answered by
 * another tenant, a tenant-specific tools/list marked for shared caches, and every tenant fetching a
 * token at start. Each attack now fails safely.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../src/sandbox/index.js";
import { textOf } from "../helpers/mcp.js";
import { raw2026 } from "../helpers/raw-2026.js";
import { captureLogger, useSandbox } from "../helpers/sandbox.js";
import { startTenantsServer, TENANT_SECRETS, TENANT_TOKENS, type TenantsServer } from "./tenants-http.js";

const fx = useSandbox();
const { logger, lines } = captureLogger("info");
let server: TenantsServer;

beforeAll(async () => {
  server = await startTenantsServer(fx.sb, { confirmWrites: true, logger });
});
afterAll(async () => {
  await server?.close();
});

const auth = (tenant: keyof typeof TENANT_TOKENS) => ({ authorization: `Bearer ${TENANT_TOKENS[tenant]}` });

/** A write whose code_user the upstream echoes in its 422 answer: the probe of the red-team report. */
const probe = (guess: string) => ({
  warehouse_code: SEED.warehouses.main,
  movement_type: "purchase",
  document: "PROBE-1",
  code_user: guess,
  items: [{ code: SEED.itemCodes.sparePart, qty: 1, unit_cost: 1 }],
});

describe("nothing learned across tenants", () => {
  it("a tenant's error text is redacted with its own secrets only: probing another tenant's secret tells nothing", async () => {
    // Without --confirm-writes for this probe: a separate server, same wiring.
    const plain = await startTenantsServer(fx.sb);
    const client = new Client({ name: "prober", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(plain.url), { requestInit: { headers: auth("north") } }),
    );
    try {
      const answer = async (guess: string) =>
        textOf(await client.callTool({ name: "create_warehouse_entry", arguments: probe(guess) }));
      const own = await answer(TENANT_SECRETS.north);
      const others = await answer(TENANT_SECRETS.south);
      const random = await answer("wrong-guess-xyz");
      // Its own secret is scrubbed (defence in depth) ...
      expect(own).toContain("code_user [redacted] does not exist");
      // ... the other tenant's is echoed exactly as any wrong guess is: the answer does not depend on it.
      expect(others).toContain(`code_user ${TENANT_SECRETS.south} does not exist`);
      expect(others.replaceAll(TENANT_SECRETS.south, "GUESS")).toBe(
        random.replaceAll("wrong-guess-xyz", "GUESS"),
      );
    } finally {
      await client.close();
      await plain.close();
    }
  });

  it("logs still scrub every tenant's secrets", () => {
    // Lines logged so far by the confirm-writes server (tenants loaded, calls audited).
    const text = lines.join("");
    for (const secret of Object.values(TENANT_SECRETS)) expect(text).not.toContain(secret);
  });

  it("a confirmation state minted for one tenant does not approve another tenant's identical call", async () => {
    const entry = probe(SEED.users.withAccount);
    const ask = await raw2026<{ result: { resultType?: string; requestState?: string } }>(
      server.url,
      "tools/call",
      { name: "create_warehouse_entry", arguments: entry },
      { headers: auth("north") },
    );
    expect(ask.body?.result.resultType).toBe("input_required");
    const state = ask.body!.result.requestState!;
    const before = fx.sb.state.movements.length;
    // South replays north's state with an approval: asked again, nothing written.
    const replay = await raw2026<{ result: { resultType?: string; isError?: boolean } }>(
      server.url,
      "tools/call",
      {
        name: "create_warehouse_entry",
        arguments: entry,
        requestState: state,
        inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
      },
      { headers: auth("south") },
    );
    expect(replay.status).toBe(200);
    expect(replay.body?.result.resultType).toBe("input_required");
    expect(fx.sb.state.movements.length).toBe(before);
  });

  it("tools/list is cacheScope private with a tenants file (each tenant's list is its own)", async () => {
    const list = await raw2026<{ result: { cacheScope?: string; tools: unknown[] } }>(
      server.url,
      "tools/list",
      {},
      { headers: auth("south") },
    );
    expect(list.body?.result.tools.length).toBeGreaterThan(0);
    expect(list.body?.result.cacheScope).toBe("private");
  });

  it("warms up per tenant on first use: no token request at start, one per tenant that calls", async () => {
    fx.sb.faults.reset();
    const fresh = await startTenantsServer(fx.sb);
    const tokens = () => fx.sb.faults.requestCount["POST /oauth/token"] ?? 0;
    try {
      await new Promise((r) => setTimeout(r, 400)); // longer than the single-upstream warm-up delay
      expect(tokens()).toBe(0);
      const client = new Client({ name: "first", version: "1" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(fresh.url), { requestInit: { headers: auth("south") } }),
      );
      await client.listTools();
      for (let i = 0; i < 50 && tokens() === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(tokens()).toBe(1);
      await client.close();
    } finally {
      await fresh.close();
    }
  });
});
