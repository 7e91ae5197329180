/** Configuration mistakes, end to end against the sandbox: the error names the variable to fix. */
import { describe, expect, it } from "vitest";
import { connect } from "../helpers/mcp.js";
import { firstLine } from "../helpers/results.js";
import { useSandbox } from "../helpers/sandbox.js";

const fx = useSandbox();

async function firstLineOf(env: Record<string, string>, name: string) {
  const mcp = await connect({ clients: fx.clients({ env }) });
  try {
    return firstLine(await mcp.client.callTool({ name, arguments: {} }));
  } finally {
    await mcp.close();
  }
}

describe("configuration hints in tool errors", () => {
  it("MMS_BASE_URL without /api: the 404 says it usually ends in /api", async () => {
    expect(await firstLineOf({ MMS_BASE_URL: fx.sb.url }, "list_warehouse_groups_1")).toMatchInlineSnapshot(
      `"[sandbox] Not found upstream (404 NOT_FOUND): Unknown route GET /warehouses_groups_1 (hint: MMS_BASE_URL usually ends in /api: check it, then the identifiers)"`,
    );
  });

  it("MMS_AUTH_URL pointing at the wrong path: the error names the token URL tried, not the credentials", async () => {
    const line = await firstLineOf({ MMS_AUTH_URL: `${fx.sb.url}/auth` }, "list_warehouse_groups_1");
    expect(line.replace(fx.sb.url, "http://SANDBOX")).toMatchInlineSnapshot(
      `"[sandbox] Upstream authentication failed (404 AUTH): no token endpoint at http://SANDBOX/auth/oauth/token (HTTP 404): check MMS_AUTH_URL"`,
    );
  });
});
