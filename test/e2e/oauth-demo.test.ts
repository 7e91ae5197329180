/**
 * `--sandbox --http --oauth-demo` (interface.md §7c) on the built binary: the demo authorization
 * server (oidc-provider) starts beside the MCP endpoint, and the MCP SDK's OAuth client signs in as
 * a remote host would (discovery from the 401, dynamic registration, PKCE with `resource`, token)
 * and calls a tool. Off loopback the flag is refused.
 */
import { once } from "node:events";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryProvider, signIn } from "../helpers/oauth.js";
import { cleanEnv, runBin, startBin } from "./bin.js";

let server: Awaited<ReturnType<typeof startBin>>;
let url: URL;

beforeAll(async () => {
  server = await startBin(
    ["--sandbox", "--http", "--port", "0", "--oauth-demo"],
    cleanEnv(),
    /listening on (http:\S+)/,
  );
  url = new URL(server.match[1]!);
});
afterAll(async () => {
  server.child.kill("SIGTERM");
  await once(server.child, "exit");
});

describe("--oauth-demo", () => {
  it("a host signs in with the demo user and calls a tool", async () => {
    const provider = memoryProvider();
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(new Client({ name: "host", version: "1" }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(provider.authorizationUrl?.searchParams.get("resource")).toBe(url.href);
    await first.finishAuth(await signIn(provider.authorizationUrl!));
    const client = new Client({ name: "host", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    const result = await client.callTool({ name: "list_warehouse_groups_1", arguments: { limit: 1 } });
    expect(result.isError).toBeFalsy();
    await client.close();
    expect(server.output.stderr).toMatch(
      /demo authorization server at http:\/\/127\.0\.0\.1:\d+: sign in as "demo"/,
    );
    expect(server.output.stderr + server.output.stdout).not.toContain(provider.saved!.access_token);
  });

  it("is refused off loopback and without --sandbox --http", async () => {
    const off = await runBin(
      ["--sandbox", "--http", "--host", "0.0.0.0", "--port", "0", "--oauth-demo"],
      cleanEnv({ MCP_HTTP_TOKEN: "a-token-of-at-least-16-chars" }),
    );
    expect(off.code).toBe(2);
    expect(off.stderr).toContain("--oauth-demo: only on a loopback host");
    const alone = await runBin(["--oauth-demo"], cleanEnv());
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("--oauth-demo: only with --sandbox --http");
  });
});
