/**
 * The built binary with its embedded sandbox playing the platform's limit (`--sandbox --rate-limit N`):
 * the server learns N from the headers and /healthz shows the company's use of its share.
 */
import { once } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { cleanEnv, startBin } from "./bin.js";

describe("maintenance-mcp --sandbox --rate-limit 50 --http", () => {
  it("learns the limit from the simulator's headers; /healthz shows each company's use of its share", async () => {
    const { child, match } = await startBin(
      ["--sandbox", "--rate-limit", "50", "--http", "--port", "0"],
      cleanEnv(),
      /listening on (http:\S+)/,
    );
    const url = match[1]!;
    try {
      const client = new Client({ name: "e2e-rate", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      for (let i = 0; i < 3; i++)
        await client.callTool({ name: "list_warehouse_groups_1", arguments: { limit: 1 } });
      await client.close();
      const health = (await (await fetch(url.replace("/mcp", "/healthz"))).json()) as Record<string, unknown>;
      expect(health).toMatchObject({
        status: "ok",
        request_budget: {
          store: "process",
          status: "ok",
          companies: {
            default: {
              limit: 50,
              limit_source: "upstream",
              share: 0.5,
              allowed: 25,
              used: 3,
              window_ms: 60_000,
            },
          },
        },
      });
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });
});
