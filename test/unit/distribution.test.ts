/**
 * The registry entry (server.json) and the MCP Bundle manifest (mcpb/manifest.json) agree with
 * the package: schema-valid (each against its publisher's schema), same version, every variable they set is one
 * the server reads, nothing required that the sandbox does not need, and the bundle has its icon.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

  it("has a description comfortably under the registry's 100-character limit", () => {
    expect(server.description.length).toBeLessThanOrEqual(90);
  });

  it("requires no variable: the sandbox needs none, and MMS_BASE_URL says when it is needed", () => {
    const vars: (EnvVar & { isRequired?: boolean; description: string })[] =
      server.packages[0].environmentVariables;
    expect(vars.filter((v) => v.isRequired).map((v) => v.name)).toEqual([]);
    const base = vars.find((v) => v.name === "MMS_BASE_URL")!;
    expect(base.description).toMatch(/required unless MMS_SANDBOX is true/);
    expect(vars.find((v) => v.name === "MMS_SANDBOX")).toMatchObject({ format: "boolean", default: "false" });
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

  it("names its schema where the mcpb project publishes it, and is valid against the mcpb package's copy", () => {
    const file = `mcpb-manifest-v${manifest.manifest_version}.schema.json`;
    expect(manifest.$schema).toBe(
      `https://raw.githubusercontent.com/modelcontextprotocol/mcpb/main/schemas/${file}`,
    );
    // The same file ships in @anthropic-ai/mcpb's schemas/ (its repository's folder of that name).
    const schema = json(`node_modules/@anthropic-ai/mcpb/schemas/${file}`);
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    expect(validate(manifest), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...manifest, icon: 42 })).toBe(false);
  });

  it("has an icon: a 512 x 512 PNG that scripts/make-icon.mjs draws byte for byte", () => {
    expect(manifest.icon).toBe("icon.png");
    const png = readFileSync("mcpb/icon.png");
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.subarray(12, 16).toString("ascii")).toBe("IHDR");
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([512, 512]);
    const dir = mkdtempSync(join(tmpdir(), "maintenance-mcp-icon-"));
    try {
      const out = join(dir, "icon.png");
      execFileSync(process.execPath, ["scripts/make-icon.mjs", "--out", out], { stdio: "ignore" });
      expect(readFileSync(out).equals(png)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

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
