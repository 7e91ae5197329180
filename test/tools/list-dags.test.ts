import { describe, expect, it } from "vitest";
import { ListDagsOutput } from "../../tools/list-dags.js";
import { connect, textOf } from "../helpers/mcp.js";
import { firstLine } from "../helpers/results.js";
import { useSandbox } from "../helpers/sandbox.js";

const fx = useSandbox();

async function callWith(client: "demo" | "readonly") {
  const mcp = await connect({ clients: fx.clients({ client }) });
  try {
    return await mcp.client.callTool({ name: "list_dags", arguments: {} });
  } finally {
    await mcp.close();
  }
}

describe("list_dags", () => {
  it("lists the company's pipelines from the hub", async () => {
    const result = await callWith("demo");
    const out = ListDagsOutput.parse(result.structuredContent);
    expect(out.id_company).toBe("1");
    expect(out.total).toBe(out.dags.length);
    expect(
      out.dags.every((d) => /^[0-9a-f-]{36}$/.test(d.dag_id) && /^\d{4}-\d{2}-\d{2}$/.test(d.last_run ?? "")),
    ).toBe(true);
    expect(textOf(result).split("\n")[0]).toBe(`[sandbox] ${out.total} DAG(s) for company 1:`);
  });

  it("explains a missing hub permission (403 OAUTH2_ETL_ACCESS_DENIED)", async () => {
    const result = await callWith("readonly");
    expect(result.isError).toBe(true);
    expect(firstLine(result)).toMatch(/403/);
  });

  it("is not offered when only Hawk credentials are configured (the hub takes Bearer only)", async () => {
    const { client: _ignored, ...env } = { client: 0, ...fx.sb.env({ auth: "hawk" }) };
    const clients = fx.clients({ auth: "hawk", env: { ...env, MMS_CLIENT_ID: "", MMS_CLIENT_SECRET: "" } });
    expect(clients.hub).toBeUndefined();
    const mcp = await connect({ clients });
    try {
      const names = (await mcp.client.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain("list_dags");
      await expect(mcp.client.callTool({ name: "list_dags", arguments: {} })).rejects.toThrow(
        /Unknown tool: list_dags/,
      );
    } finally {
      await mcp.close();
    }
  });
});
