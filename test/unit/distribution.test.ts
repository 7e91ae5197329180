/**
 * The registry entry (server.json) and the MCP Bundle manifest (mcpb/manifest.json) agree with
 * the package: schema-valid, same version, and every variable they set is one the server reads.
 */
import { readFileSync } from "node:fs";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { KNOWN_VARIABLES } from "../../src/config/config.js";
import { FLAG_VARIABLES } from "../../src/main/cli.js";

const json = (path: string) => JSON.parse(readFileSync(path, "utf8"));
const pkg = json("package.json");
const SECRETS = ["MMS_CLIENT_ID", "MMS_CLIENT_SECRET", "MMS_HAWK_ID", "MMS_HAWK_KEY"];

interface EnvVar {
  name: string;
  isSecret?: boolean;
  format?: string;
}

describe("server.json (MCP Registry)", () => {
  const server = json("server.json");
  const schema = json("schemas/server.schema.json");

  it("is valid against the 2025-12-11 schema kept in schemas/", () => {
    expect(schema.$id).toBe("https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json");
    expect(server.$schema).toBe(schema.$id);
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    expect(validate(server), JSON.stringify(validate.errors)).toBe(true);
    // The validator does catch mistakes (e.g. the 100-character description limit).
    expect(validate({ ...server, description: "x".repeat(101) })).toBe(false);
  });

  it("names the npm package at package.json's version, over stdio", () => {
    expect(server.name).toBe(pkg.mcpName);
    expect(server.version).toBe(pkg.version);
    const [npm] = server.packages;
    expect(npm).toMatchObject({ registryType: "npm", identifier: pkg.name, version: pkg.version });
    expect(npm.transport).toEqual({ type: "stdio" });
  });

  it("declares only variables the server reads, the credentials as secrets", () => {
    const vars: EnvVar[] = server.packages[0].environmentVariables;
    for (const v of vars) expect(KNOWN_VARIABLES).toContain(v.name);
    expect(vars.filter((v) => v.isSecret).map((v) => v.name)).toEqual(SECRETS);
    const flags: string[] = Object.values(FLAG_VARIABLES);
    expect(
      vars
        .filter((v) => v.format === "boolean")
        .map((v) => v.name)
        .sort(),
    ).toEqual([...flags].sort());
  });
});

describe("mcpb/manifest.json (MCP Bundle)", () => {
  const manifest = json("mcpb/manifest.json");

  it("is a 0.3 node bundle at package.json's version", () => {
    expect(manifest).toMatchObject({ manifest_version: "0.3", name: pkg.name, version: pkg.version });
    expect(manifest.server.type).toBe("node");
    expect(manifest.server.mcp_config.args).toEqual([`\${__dirname}/${pkg.bin["maintenance-mcp"]}`]);
    expect(manifest.compatibility.runtimes.node).toBe(`${pkg.engines.node}.0`);
  });

  it("maps every user setting to a variable the server reads; credentials are sensitive", () => {
    const env: Record<string, string> = manifest.server.mcp_config.env;
    const used = new Map(
      Object.entries(env).map(([name, value]) => [/^\$\{user_config\.(\w+)\}$/.exec(value)?.[1], name]),
    );
    expect([...used.keys()].sort()).toEqual(Object.keys(manifest.user_config).sort());
    for (const name of Object.keys(env)) expect(KNOWN_VARIABLES).toContain(name);
    const sensitive = Object.entries(manifest.user_config as Record<string, { sensitive?: boolean }>)
      .filter(([, option]) => option.sensitive)
      .map(([key]) => used.get(key));
    expect(sensitive.sort()).toEqual([...SECRETS].sort());
  });

  it("lists the tools the server registers", async () => {
    const { ALL_TOOLS } = await import("../../tools/index.js");
    expect(manifest.tools.map((t: { name: string }) => t.name).sort()).toEqual(
      ALL_TOOLS.map((t) => t.name).sort(),
    );
  });
});
