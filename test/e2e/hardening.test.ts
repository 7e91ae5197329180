/**
 * interface.md §9 through the built binary: the red team's reproductions. A near-miss of a safety
 * name (MMS_CONFIRM, MCP_TOKEN) stops the start and the host sees why; a misspelt secret's "did you
 * mean" reaches the host; README placeholders are named; a URL with credentials is refused by a start
 * and by --check without being printed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { cleanEnv, rawSession, runBin } from "./bin.js";

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sb.close();
});

const HIDDEN = "url-p4ssw0rd-never-shown-31";

/** One call of `tool` over stdio; the text the host shows, and how the run ended. */
async function hostSees(args: string[], env: Record<string, string>, tool = "create_warehouse_entry") {
  const s = rawSession(args, cleanEnv(env));
  await s.initialize();
  const call = (await s.request("tools/call", { name: tool, arguments: {} })).result as {
    isError?: boolean;
    content: { text: string }[];
  };
  const run = await s.end();
  return { call, text: call.content[0]!.text, run };
}

describe("near-misses of safety names (interface.md §9)", () => {
  it("MMS_CONFIRM=true with --sandbox: no write can go through; the host reads why", async () => {
    const { call, text, run } = await hostSees(["--sandbox"], { MMS_CONFIRM: "true" });
    expect(call.isError).toBe(true);
    expect(text).toContain("MMS_CONFIRM: not a variable this server reads");
    expect(text).toContain("shares the word CONFIRM with a safety setting (MMS_CONFIRM_WRITES)");
    expect(text).toContain("writes would be sent without asking the user, so no tool runs until it is fixed");
    expect(run.stderr).not.toMatch(/SANDBOX MODE/); // the simulator never started
    expect(run.code).toBe(2);
  });

  it("MCP_TOKEN with --http: the server refuses to start (exit 2) instead of serving without a token", async () => {
    const run = await runBin(["--http", "--port", "0", "--sandbox"], cleanEnv({ MCP_TOKEN: HIDDEN }));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("MCP_TOKEN: not a variable this server reads");
    expect(run.stderr).not.toContain("listening on");
    expect(run.stderr).not.toContain(HIDDEN);
  });
});

describe("what the host reads of a misconfiguration", () => {
  it("a misspelt secret: the 'did you mean' is in the problem the host shows", async () => {
    const { text } = await hostSees([], {
      MMS_BASE_URL: `${sb.url}/api`,
      MMS_AUTH_URL: sb.url,
      MMS_CLIENT_ID: "x",
      MMS_CLIENT_SECERT: HIDDEN,
    });
    expect(text).toContain(
      "MMS_CLIENT_SECRET: required when MMS_CLIENT_ID is set (MMS_CLIENT_SECERT is set: did you mean MMS_CLIENT_SECRET?)",
    );
    expect(text).not.toContain(HIDDEN);
  });

  it("the root mcp.json's OAuth entry pasted as is: each placeholder is named", async () => {
    const { text, run } = await hostSees([], {
      MMS_BASE_URL: "https://your-host/api",
      MMS_AUTH_URL: "https://your-auth-host",
      MMS_CLIENT_ID: "your-client-id",
      MMS_CLIENT_SECRET: "your-client-secret",
    });
    expect(text).toContain('MMS_BASE_URL: still holds the README\'s placeholder "your-host"');
    expect(text).toContain('MMS_AUTH_URL: still holds the README\'s placeholder "your-auth-host"');
    expect(text).toContain('MMS_CLIENT_ID: still holds the README\'s placeholder "your-client-id"');
    expect(text).toContain(
      'MMS_CLIENT_SECRET: still holds a placeholder from the README (it starts with "your-"; a secret is never shown)',
    );
    expect(run.code).toBe(2);
  });

  it("a URL with credentials: refused by the start and by --check, never printed", async () => {
    const env = {
      MMS_BASE_URL: `http://admin:${HIDDEN}@127.0.0.1:1/api?api_key=${HIDDEN}2`,
      MMS_HAWK_ID: "id",
      MMS_HAWK_KEY: "hawk-key-value-1",
    };
    const { text, run } = await hostSees([], env);
    expect(text).toContain(
      "MMS_BASE_URL: must not carry credentials (it holds user:password@ and the query parameter api_key",
    );
    const check = await runBin(["--check"], cleanEnv(env));
    expect(check.code).toBe(2);
    expect(check.stdout).toContain("FAIL  configuration: MMS_BASE_URL: must not carry credentials");
    for (const out of [text, run.stdout, run.stderr, check.stdout, check.stderr]) {
      expect(out).not.toContain(HIDDEN);
      expect(out).not.toContain("admin");
    }
  });
});
