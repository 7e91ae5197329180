/** What the binary says at start about a misspelt environment, before anything else. */
import { describe, expect, it } from "vitest";
import { cleanEnv, runBin } from "./bin.js";

describe("start-up warnings", () => {
  it("names the closest known variable for a misspelt MMS_* name, without its value", async () => {
    const run = await runBin(
      [],
      cleanEnv({ MMS_BASE_URL: "https://h/api", MMS_CLIENT_ID: "id", MMS_CLIENT_SCRET: "secret-value-0042" }),
    );
    expect(run.code).toBe(2);
    const warnings = run.stderr
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { level: string; msg: string })
      .filter((record) => record.level === "warn");
    expect(warnings.map((w) => w.msg)).toEqual([
      'MMS_CLIENT_SCRET is not a variable this server reads and is ignored; did you mean MMS_CLIENT_SECRET? (see README, "Configuration")',
      "not configured: serving over stdio so that the MCP host can show the problem; every tool call answers with it, and the server exits with code 2 when stdin closes",
    ]);
    expect(run.stderr).toMatch(/MMS_CLIENT_SECRET: required when MMS_CLIENT_ID is set/);
    expect(run.stderr).not.toContain("secret-value-0042");
  });

  it("names the MMS_* variables a tenants file makes ignored, without their values", async () => {
    const run = await runBin(
      ["--http", "--port", "0"],
      cleanEnv({
        MCP_TENANTS_FILE: "/nonexistent/tenants.json",
        MMS_BASE_URL: "https://h/api",
        MMS_CLIENT_SECRET: "secret-value-0043",
      }),
    );
    expect(run.code).toBe(2);
    const warnings = run.stderr
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { level: string; msg: string })
      .filter((record) => record.level === "warn");
    expect(warnings.map((w) => w.msg)).toContain(
      `MMS_BASE_URL, MMS_CLIENT_SECRET are ignored: MCP_TENANTS_FILE gives each tenant its own upstream; set them in the tenant's "upstream" instead`,
    );
    expect(run.stderr).toMatch(/MCP_TENANTS_FILE: a readable JSON file/);
    expect(run.stderr).not.toContain("secret-value-0043");
  });
});
