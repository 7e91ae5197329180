/**
 * `maintenance-mcp --check` (interface.md §1) through the built binary, against the sandbox: one
 * line per step on stdout (configuration, token, one page of the main API, the hub), exit 0 only
 * when all passed, 1 when a step against the upstream failed, 2 when the configuration is refused;
 * never a secret.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../src/config/version.js";
import { tokenSha256 } from "../../src/hosting/tenants.js";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { closedPort } from "../client/fake-upstream.js";
import { cleanEnv, runBin } from "./bin.js";

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sb.close();
});

/** The lines with the sandbox's port, the token's lifetime and the version replaced, for stable snapshots. */
const steps = (stdout: string) =>
  stdout
    .replaceAll(sb.url, "http://SANDBOX")
    .replace(/valid \d+ s/, "valid N s")
    .replace(`maintenance-mcp ${VERSION}:`, "maintenance-mcp VERSION:");

describe("maintenance-mcp --check", () => {
  it("passes every step against a working upstream (OAuth), on stdout, exit 0", async () => {
    const run = await runBin(["--check"], cleanEnv(sb.env()));
    expect(run.code).toBe(0);
    expect(steps(run.stdout)).toMatchInlineSnapshot(`
      "maintenance-mcp VERSION: checking the configuration of a start
        ok    environment: no misspelt safety variable (MMS_READ_ONLY, MCP_HTTP_TOKEN...)
        ok    configuration: main API http://SANDBOX/api (OAuth), token endpoint http://SANDBOX/oauth/token, hub http://SANDBOX
        ok    token: fetched from http://SANDBOX/oauth/token, valid N s
        ok    main API: read 1 of 138 warehouse classifications from http://SANDBOX/api (OAuth)
        ok    hub: read the DAG list (4 DAGs) from http://SANDBOX
      All 5 checks passed: the server is ready; connect your MCP client (README, "Connect your client (stdio)").
      "
    `);
    expect(run.stderr).toBe("");
  });

  it("works with --sandbox, and with Hawk only (token and hub skipped, not failed)", async () => {
    expect((await runBin(["--check", "--sandbox"], cleanEnv())).code).toBe(0);
    const { MMS_HAWK_ID, MMS_HAWK_KEY } = sb.env({ auth: "hawk" });
    const run = await runBin(
      ["--check"],
      cleanEnv({ MMS_BASE_URL: `${sb.url}/api`, MMS_HAWK_ID: MMS_HAWK_ID!, MMS_HAWK_KEY: MMS_HAWK_KEY! }),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/skip {2}token: no OAuth credentials/);
    expect(run.stdout).toMatch(/ok {4}main API: read 1 of \d+ warehouse classifications .* \(Hawk\)/);
    expect(run.stdout).toMatch(/skip {2}hub: the ETL hub needs OAuth/);
    expect(run.stdout).not.toContain(MMS_HAWK_KEY!);
  });

  it("a rejected client secret fails the token step with the fix, exit 1, the secret never shown", async () => {
    const run = await runBin(["--check"], cleanEnv({ ...sb.env(), MMS_CLIENT_SECRET: "wrong-secret-0042" }));
    expect(run.code).toBe(1);
    expect(steps(run.stdout)).toContain(
      "  FAIL  token: Upstream authentication failed (401 AUTH): the token endpoint rejected the client credentials (invalid_client): check MMS_CLIENT_ID and MMS_CLIENT_SECRET\n  skip  main API: needs the token\n  skip  hub: needs the token\n1 of 3 checks failed: fix them and run maintenance-mcp --check again.",
    );
    expect(run.stdout + run.stderr).not.toContain("wrong-secret-0042");
  });

  it("a server that is not there is a configuration problem naming the variable", async () => {
    const port = await closedPort();
    const run = await runBin(
      ["--check"],
      cleanEnv({ ...sb.env(), MMS_BASE_URL: `http://127.0.0.1:${port}/api` }),
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `  FAIL  main API: Upstream unreachable (NETWORK): connection refused by 127.0.0.1:${port}: nothing accepts connections there (hint: check MMS_BASE_URL (host and port) and that the server there is up; a configuration problem, retrying will not help)`,
    );
    expect(run.stdout).toMatch(/ok {4}hub: read the DAG list/);
  });

  it("a refused configuration: exit 2, every problem a line", async () => {
    const run = await runBin(["--check"], cleanEnv({ MMS_CLIENT_SECRET: "s3cret-value", MMS_READONLY: "1" }));
    expect(run.code).toBe(2);
    expect(steps(run.stdout)).toMatchInlineSnapshot(`
      "maintenance-mcp VERSION: checking the configuration of a start
        FAIL  environment: MMS_READONLY: not a variable this server reads; did you mean MMS_READ_ONLY? Ignored, the tools that write upstream would be offered, so no tool runs until it is fixed: rename it to MMS_READ_ONLY (or remove it)
      1 of 1 checks failed: fix them and run maintenance-mcp --check again.
      "
    `);
    const missing = await runBin(["--check"], cleanEnv({ MMS_CLIENT_SECRET: "s3cret-value" }));
    expect(missing.code).toBe(2);
    expect(missing.stdout).toContain("  FAIL  configuration: MMS_BASE_URL: required");
    expect(missing.stdout).toContain(
      "  FAIL  configuration: MMS_CLIENT_ID: required when MMS_CLIENT_SECRET is set",
    );
    expect(missing.stdout + missing.stderr).not.toContain("s3cret-value");
  });

  it("with --http and a tenants file, checks each tenant's upstream", async () => {
    const dir = mkdtempSync(join(tmpdir(), "maintenance-mcp-check-"));
    try {
      const tenant = (name: string, secretEnv: string) => ({
        name,
        token_sha256: tokenSha256(`${name}-token-0123456789`),
        upstream: {
          MMS_BASE_URL: `${sb.url}/api`,
          MMS_AUTH_URL: sb.url,
          MMS_CLIENT_ID: "demo-client",
          MMS_CLIENT_SECRET: { env: secretEnv },
        },
      });
      const file = join(dir, "tenants.json");
      writeFileSync(
        file,
        JSON.stringify({ tenants: [tenant("north", "NORTH_SECRET"), tenant("south", "SOUTH_SECRET")] }),
      );
      const run = await runBin(
        ["--check", "--http"],
        cleanEnv({ MCP_TENANTS_FILE: file, NORTH_SECRET: "demo-secret", SOUTH_SECRET: "not-the-secret" }),
      );
      expect(run.code).toBe(1);
      expect(run.stdout).toContain("  ok    configuration: 2 tenants in");
      expect(run.stdout).toMatch(/ok {4}tenant north: main API: read 1 of/);
      expect(run.stdout).toMatch(/FAIL {2}tenant south: token: .*rejected the client credentials/);
      expect(run.stdout).not.toContain("not-the-secret");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
