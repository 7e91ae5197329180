/** MCP_TENANTS_FILE: parsing, every validation rule, secret references, constant-time token lookup. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors/api-error.js";
import {
  loadTenants,
  resolveTenant,
  type Tenant,
  tenantByClaim,
  tokenSha256,
} from "../../src/hosting/tenants.js";

const SECRET = "s3cret-Value-that-must-never-show";
const HAWK_KEY = "hawk-key-material-never-shown-0123";
const TOKEN_A = "token-of-plant-north-0123456789";
const TOKEN_B = "token-of-plant-south-0123456789";

const north = {
  name: "plant-north",
  token_sha256: tokenSha256(TOKEN_A),
  upstream: {
    MMS_BASE_URL: "https://host/api",
    MMS_AUTH_URL: "https://host",
    MMS_CLIENT_ID: "plant-north-client",
    MMS_CLIENT_SECRET: { env: "PLANT_NORTH_SECRET" },
  },
  read_only: false,
};
const south = {
  name: "plant-south",
  token_sha256: tokenSha256(TOKEN_B),
  upstream: {
    MMS_BASE_URL: "https://other/api",
    MMS_HAWK_ID: "south-hawk",
    MMS_HAWK_KEY: { file: "south.key" },
    MMS_TIMEOUT_MS: 5000,
    MMS_HAWK_PAYLOAD_HASH: false,
  },
  read_only: true,
};

/** An in-memory file system: path → content; missing paths throw ENOENT like readFileSync. */
function files(entries: Record<string, string>) {
  return (path: string) => {
    const v = entries[path];
    if (v === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
    return v;
  };
}

const ENV = { PLANT_NORTH_SECRET: SECRET };

function load(doc: unknown, env: Record<string, string> = ENV, extra: Record<string, string> = {}) {
  const text = typeof doc === "string" ? doc : JSON.stringify(doc);
  return loadTenants("/etc/mcp/tenants.json", env, files({ "/etc/mcp/tenants.json": text, ...extra }));
}

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const e = error as ConfigError;
    for (const text of [e.message, JSON.stringify(e.problems)]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(HAWK_KEY);
    }
    return e.problems.map((p) => `${p.variable}: ${p.expected}`);
  }
  throw new Error("expected a ConfigError");
}

describe("loadTenants", () => {
  it("loads tenants, resolving {env} and {file} secrets (files relative to the tenants file)", () => {
    const tenants = load({ tenants: [north, south] }, ENV, { "/etc/mcp/south.key": `${HAWK_KEY}\n` });
    expect(tenants.map((t) => [t.name, t.readOnly, t.config.auth])).toEqual([
      ["plant-north", false, "oauth"],
      ["plant-south", true, "hawk"],
    ]);
    expect(tenants[0]!.config.oauth?.clientSecret.reveal()).toBe(SECRET);
    expect(tenants[0]!.config.oauth?.authUrl).toBe("https://host");
    expect(tenants[1]!.config.hawk?.key.reveal()).toBe(HAWK_KEY);
    expect(tenants[1]!.config.hawk?.payloadHash).toBe(false);
    expect(tenants[1]!.config.timeoutMs).toBe(5000);
    // Serialising a tenant (a log line, a debug dump) never shows a secret.
    expect(JSON.stringify(tenants)).not.toContain(SECRET);
    expect(JSON.stringify(tenants)).not.toContain(HAWK_KEY);
  });

  it("reads a real file from disk by default, with an absolute {file} reference", () => {
    const dir = mkdtempSync(join(tmpdir(), "tenants-"));
    writeFileSync(join(dir, "key"), HAWK_KEY);
    const doc = {
      tenants: [{ ...south, upstream: { ...south.upstream, MMS_HAWK_KEY: { file: join(dir, "key") } } }],
    };
    writeFileSync(join(dir, "tenants.json"), JSON.stringify(doc));
    const [t] = loadTenants(join(dir, "tenants.json"), {});
    expect(t!.config.hawk?.key.reveal()).toBe(HAWK_KEY);
  });

  it("gives each tenant its own MMS_BUDGET_DISCOUNT (how its upstream's discount reads), validated as the environment's", () => {
    const percent = { ...north, upstream: { ...north.upstream, MMS_BUDGET_DISCOUNT: "percent" } };
    const [a] = load({ tenants: [percent] });
    expect(a!.config.budgetDiscount).toBe("percent");
    const bad = { ...north, upstream: { ...north.upstream, MMS_BUDGET_DISCOUNT: "half" } };
    expect(problemsOf(() => load({ tenants: [bad] }))[0]).toMatch(
      /tenants\[0\] "plant-north" upstream\.MMS_BUDGET_DISCOUNT: expected percent or amount/,
    );
  });

  it("read_only defaults to false", () => {
    const { read_only: _, ...rest } = north;
    expect(load({ tenants: [rest] })[0]!.readOnly).toBe(false);
  });

  it("refuses an inline secret without echoing it", () => {
    const doc = { tenants: [{ ...north, upstream: { ...north.upstream, MMS_CLIENT_SECRET: SECRET } }] };
    expect(problemsOf(() => load(doc))).toEqual([
      'MCP_TENANTS_FILE tenants[0] "plant-north" upstream.MMS_CLIENT_SECRET: expected a reference { "env": "VARIABLE" } or { "file": "/path/to/file" }; a secret is never written inline',
    ]);
    const hawk = { tenants: [{ ...south, upstream: { ...south.upstream, MMS_HAWK_KEY: HAWK_KEY } }] };
    expect(problemsOf(() => load(hawk))[0]).toContain(
      '"plant-south" upstream.MMS_HAWK_KEY: expected a reference',
    );
  });

  it("names the field of a missing environment variable and of an unreadable or empty secret file, never the reference", () => {
    expect(problemsOf(() => load({ tenants: [north] }, {}))).toEqual([
      'MCP_TENANTS_FILE tenants[0] "plant-north" upstream.MMS_CLIENT_SECRET: the environment variable named by "env" is not set or empty; set it where the server starts',
    ]);
    expect(problemsOf(() => load({ tenants: [south] }))).toEqual([
      'MCP_TENANTS_FILE tenants[0] "plant-south" upstream.MMS_HAWK_KEY: cannot read the file named by "file" (ENOENT); a relative path is relative to the tenants file',
    ]);
    expect(problemsOf(() => load({ tenants: [south] }, ENV, { "/etc/mcp/south.key": "\n" }))).toEqual([
      'MCP_TENANTS_FILE tenants[0] "plant-south" upstream.MMS_HAWK_KEY: the file named by "file" is empty',
    ]);
    // A secret pasted where the variable's name belongs is not echoed.
    const pasted = {
      ...north,
      upstream: { ...north.upstream, MMS_CLIENT_SECRET: { env: "sk_live_PASTED_0123" } },
    };
    expect(problemsOf(() => load({ tenants: [pasted] })).join("\n")).not.toContain("sk_live_PASTED_0123");
  });

  it("refuses a reference with both or other fields", () => {
    const doc = {
      tenants: [{ ...north, upstream: { ...north.upstream, MMS_CLIENT_SECRET: { env: "A", file: "b" } } }],
    };
    expect(problemsOf(() => load(doc))[0]).toContain("upstream.MMS_CLIENT_SECRET: expected a reference");
  });

  it.each([
    ["uppercase", tokenSha256(TOKEN_A).toUpperCase()],
    ["too short", "abc123"],
    ["the token itself", TOKEN_A],
    ["a number", 42],
  ])("refuses a token_sha256 that is %s", (_, value) => {
    const [problem] = problemsOf(() => load({ tenants: [{ ...north, token_sha256: value }] }));
    expect(problem).toMatch(/^MCP_TENANTS_FILE tenants\[0\] "plant-north" token_sha256: expected /);
    // The token itself must not be echoed either.
    expect(problem).not.toContain(TOKEN_A);
  });

  it.each([
    ["with a colon", "plant:north"],
    ["empty", ""],
    ["too long", "x".repeat(65)],
  ])("refuses a name that is %s", (_, name) => {
    const [problem] = problemsOf(() => load({ tenants: [{ ...north, name }] }));
    expect(problem).toContain("name: expected 1-64 letters, digits");
  });

  it("refuses duplicate names and duplicate tokens, naming both tenants", () => {
    const dupName = { ...south, name: "plant-north" };
    expect(
      problemsOf(() => load({ tenants: [north, dupName] }, ENV, { "/etc/mcp/south.key": HAWK_KEY })),
    ).toEqual([
      'MCP_TENANTS_FILE tenants[1] "plant-north" name: a unique name: tenants[0] has the same name',
    ]);
    const dupToken = { ...south, token_sha256: north.token_sha256 };
    expect(
      problemsOf(() => load({ tenants: [north, dupToken] }, ENV, { "/etc/mcp/south.key": HAWK_KEY })),
    ).toEqual([
      'MCP_TENANTS_FILE tenants[1] "plant-south" token_sha256: a unique token: tenant "plant-north" has the same token_sha256; give each tenant its own token',
    ]);
  });

  it("refuses unknown fields and unknown settings (a typo must not be ignored) without quoting their names", () => {
    expect(problemsOf(() => load({ tenants: [{ ...north, readonly: true }] }))).toEqual([
      'MCP_TENANTS_FILE tenants[0] "plant-north" (tenant): an unknown field: expected only name, token_sha256, upstream, read_only, oauth_tenant',
    ]);
    const [p] = problemsOf(() =>
      load({ tenants: [{ ...north, upstream: { ...north.upstream, MCP_HTTP_TOKEN: "x".repeat(20) } }] }),
    );
    expect(p).toMatch(/"plant-north" upstream: an unknown setting: expected only the MMS_\* names/);
    expect(p).not.toContain("MCP_HTTP_TOKEN");
    // A secret pasted as a field name is not echoed, nor is an invalid name (index only).
    const pasted = { ...north, name: `north ${SECRET}`, [SECRET]: 1, [`${SECRET}-2`]: 2 };
    expect(problemsOf(() => load({ tenants: [pasted] }))).toEqual([
      "MCP_TENANTS_FILE tenants[0] name: expected 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
      "MCP_TENANTS_FILE tenants[0] (tenant): 2 unknown fields: expected only name, token_sha256, upstream, read_only, oauth_tenant",
    ]);
  });

  it("refuses a key repeated in one object, at any depth, naming the tenant and the field", () => {
    const text = (inner: string) => `{"tenants": [${inner}]}`;
    const tenant = (extra: string) =>
      `{"name": "plant-north", "token_sha256": "${north.token_sha256}", "upstream": {"MMS_BASE_URL": "https://host/api", "MMS_AUTH_URL": "https://host", "MMS_CLIENT_ID": "c", "MMS_CLIENT_SECRET": {"env": "PLANT_NORTH_SECRET"${extra.startsWith("ref") ? extra.slice(3) : ""}}${extra.startsWith("up") ? extra.slice(2) : ""}}, "read_only": true${extra.startsWith("top") ? extra.slice(3) : ""}}`;
    expect(load(text(tenant("")))[0]!.readOnly).toBe(true);
    expect(problemsOf(() => load(text(tenant('top, "read_only": false'))))).toEqual([
      'MCP_TENANTS_FILE tenants[0] "plant-north" (tenant): each key once: "read_only" appears twice in this object, and JSON would silently keep only the last; remove one',
    ]);
    expect(problemsOf(() => load(text(tenant('up, "MMS_BASE_URL": "https://evil/api"'))))).toEqual([
      'MCP_TENANTS_FILE tenants[0] "plant-north" upstream: each key once: "MMS_BASE_URL" appears twice in this object, and JSON would silently keep only the last; remove one',
    ]);
    expect(problemsOf(() => load(text(tenant('ref, "env": "OTHER"'))))).toEqual([
      'MCP_TENANTS_FILE tenants[0] "plant-north" upstream.MMS_CLIENT_SECRET: each key once: "env" appears twice in this object, and JSON would silently keep only the last; remove one',
    ]);
    // Escaped spellings of one key are one key; an unknown repeated key is not quoted.
    expect(problemsOf(() => load(text(tenant('top, "read\\u005fonly": false'))))[0]).toContain(
      '"read_only" appears twice',
    );
    expect(problemsOf(() => load(text(tenant(`top, "${SECRET}": 1, "${SECRET}": 2`))))).toEqual([
      'MCP_TENANTS_FILE tenants[0] "plant-north" (tenant): each key once: a field appears twice in this object, and JSON would silently keep only the last; remove one',
    ]);
    expect(
      problemsOf(() => load(`${text(tenant(""))}`.replace('{"tenants"', '{"tenants": [], "tenants"'))),
    ).toEqual([
      'MCP_TENANTS_FILE: each key once: "tenants" appears twice in this object, and JSON would silently keep only the last; remove one',
    ]);
    // Strings holding braces, quotes and commas do not confuse the scan.
    const tricky = { ...north, upstream: { ...north.upstream, MMS_CLIENT_ID: 'a"b{c,d}[e]\\' } };
    expect(load({ tenants: [tricky] })[0]!.config.oauth?.clientId).toBe('a"b{c,d}[e]\\');
  });

  it("accepts a UTF-8 byte order mark before the JSON (as Windows editors write it)", () => {
    expect(load(`\uFEFF${JSON.stringify({ tenants: [north] })}`)[0]!.name).toBe("plant-north");
  });

  it("validates upstream with the MMS_* rules of loadConfig, naming tenant and variable", () => {
    const bad = {
      ...north,
      upstream: { ...north.upstream, MMS_BASE_URL: "ftp://host", MMS_MAX_RETRIES: 99, MMS_AUTH: "basic" },
    };
    expect(problemsOf(() => load({ tenants: [bad] }))).toEqual([
      'MCP_TENANTS_FILE tenants[0] "plant-north" upstream.MMS_BASE_URL: expected an http:// or https:// URL',
      'MCP_TENANTS_FILE tenants[0] "plant-north" upstream.MMS_AUTH: expected oauth or hawk',
      'MCP_TENANTS_FILE tenants[0] "plant-north" upstream.MMS_MAX_RETRIES: expected at most 10',
    ]);
    const { MMS_AUTH_URL: _, ...noAuthUrl } = north.upstream;
    expect(problemsOf(() => load({ tenants: [{ ...north, upstream: noAuthUrl }] }))).toEqual([
      'MCP_TENANTS_FILE tenants[0] "plant-north" upstream.MMS_AUTH_URL: required with OAuth credentials: the token endpoint is {MMS_AUTH_URL}/oauth/token',
    ]);
    expect(problemsOf(() => load({ tenants: [{ ...north, upstream: { MMS_TIMEOUT_MS: [1] } }] }))).toEqual([
      'MCP_TENANTS_FILE tenants[0] "plant-north" upstream.MMS_TIMEOUT_MS: expected a string, number or boolean',
    ]);
  });

  it("collects the problems of every tenant into one error", () => {
    const problems = problemsOf(() =>
      load({ tenants: [{ ...north, token_sha256: "x" }, { ...south, read_only: "yes" }, "not an object"] }),
    );
    // Each tenant's problems together: tenants[1]'s bad field does not hide its missing key file.
    expect(problems).toHaveLength(4);
    expect(problems.join("\n")).toMatchInlineSnapshot(`
      "MCP_TENANTS_FILE tenants[0] "plant-north" token_sha256: expected 64 lowercase hex digits: the SHA-256 of the bearer token, e.g. \`printf %s "$TOKEN" | sha256sum\`
      MCP_TENANTS_FILE tenants[1] "plant-south" read_only: expected true or false
      MCP_TENANTS_FILE tenants[1] "plant-south" upstream.MMS_HAWK_KEY: cannot read the file named by "file" (ENOENT); a relative path is relative to the tenants file
      MCP_TENANTS_FILE tenants[2] (tenant): expected an object { name, token_sha256, upstream, read_only, oauth_tenant }"
    `);
  });

  it("reports a missing env reference beside the tenant's other problems, of its fields and of its upstream", () => {
    const north2 = {
      ...north,
      token_sha256: "x",
      upstream: {
        MMS_BASE_URL: "https://cmms.example/api",
        MMS_CLIENT_ID: "north",
        MMS_CLIENT_SECRET: north.upstream.MMS_CLIENT_SECRET,
      },
    };
    // No PLANT_NORTH_SECRET in the environment, no MMS_AUTH_URL for its OAuth pair, a bad token_sha256.
    expect(problemsOf(() => load({ tenants: [north2] }, {}))).toEqual([
      expect.stringMatching(
        /^MCP_TENANTS_FILE tenants\[0\] "plant-north" token_sha256: expected 64 lowercase hex digits/,
      ),
      'MCP_TENANTS_FILE tenants[0] "plant-north" upstream.MMS_CLIENT_SECRET: the environment variable named by "env" is not set or empty; set it where the server starts',
      expect.stringMatching(/^MCP_TENANTS_FILE tenants\[0\] "plant-north" upstream\.MMS_AUTH_URL: /),
    ]);
    // With the variable set, the other two remain and nothing is said of the secret.
    const rest = problemsOf(() => load({ tenants: [north2] }));
    expect(rest).toHaveLength(2);
    expect(rest.join("\n")).not.toContain("MMS_CLIENT_SECRET");
  });

  it("reports an unreadable file, bad JSON (without quoting it) and an empty or wrong top level", () => {
    expect(problemsOf(() => loadTenants("/nope.json", {}, files({})))).toEqual([
      "MCP_TENANTS_FILE: a readable JSON file; cannot read /nope.json (ENOENT)",
    ]);
    const broken = `{"tenants": [\n  {"upstream": {"MMS_CLIENT_SECRET": ${SECRET}}}]}`;
    expect(problemsOf(() => load(broken))).toEqual([
      "MCP_TENANTS_FILE: not valid JSON: an unquoted value or a stray character",
    ]);
    const comma = `{"tenants": [\n  {"upstream": {"MMS_CLIENT_SECRET": "${SECRET}",}}]}`;
    expect(problemsOf(() => load(comma))).toEqual([
      "MCP_TENANTS_FILE: not valid JSON: a syntax error at line 2, column 74",
    ]);
    expect(problemsOf(() => load('{"tenants": ['))).toEqual([
      "MCP_TENANTS_FILE: not valid JSON: the text ends early",
    ]);
    expect(problemsOf(() => load({ tenants: [] }))).toEqual([
      "MCP_TENANTS_FILE tenants: expected at least one tenant",
    ]);
    expect(problemsOf(() => load([north]))).toEqual([
      'MCP_TENANTS_FILE: expected an object { "tenants": [ ... ] }',
    ]);
    expect(problemsOf(() => load({ tenants: [north], extra: 1 }))[0]).toMatch(/^MCP_TENANTS_FILE: /);
  });
});

describe("resolveTenant", () => {
  const tenants: Tenant[] = load({ tenants: [north, south] }, ENV, { "/etc/mcp/south.key": HAWK_KEY });

  it("finds the tenant whose token_sha256 is the hash of the presented token", () => {
    expect(resolveTenant(tenants, TOKEN_A)?.name).toBe("plant-north");
    expect(resolveTenant(tenants, TOKEN_B)?.name).toBe("plant-south");
  });

  it("finds none for an unknown, empty, missing or hashed token", () => {
    expect(resolveTenant(tenants, "token-of-plant-north-012345678")).toBeUndefined();
    expect(resolveTenant(tenants, `${TOKEN_A} `)).toBeUndefined();
    expect(resolveTenant(tenants, "")).toBeUndefined();
    expect(resolveTenant(tenants, undefined)).toBeUndefined();
    // The stored hash is not a password: presenting it does not authenticate.
    expect(resolveTenant(tenants, tokenSha256(TOKEN_A))).toBeUndefined();
  });

  it("compares against every tenant (no early exit)", () => {
    // A getter counts how many tenants' hashes are read for one lookup.
    let reads = 0;
    const counted = tenants.map((t) => ({
      ...t,
      get tokenSha256() {
        reads += 1;
        return t.tokenSha256;
      },
    }));
    resolveTenant(counted, TOKEN_A);
    expect(reads).toBe(2);
    reads = 0;
    resolveTenant(counted, "nobody");
    expect(reads).toBe(2);
  });
});

describe("oauth_tenant (interface.md §7c)", () => {
  it("defaults to the name, may be set, and two tenants cannot share one", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-oauth-tenants-"));
    const file = join(dir, "t.json");
    const tenant = (name: string, oauth?: string) => ({
      name,
      token_sha256: tokenSha256(`${name}-token-0123456789`),
      upstream: { MMS_BASE_URL: "https://host/api", MMS_HAWK_ID: "id", MMS_HAWK_KEY: { env: "K" } },
      ...(oauth === undefined ? {} : { oauth_tenant: oauth }),
    });
    writeFileSync(file, JSON.stringify({ tenants: [tenant("north", "org-1"), tenant("south")] }));
    const tenants = loadTenants(file, { K: "hawk-key-value" });
    expect(tenantByClaim(tenants, "org-1")?.name).toBe("north");
    expect(tenantByClaim(tenants, "south")?.name).toBe("south");
    expect(tenantByClaim(tenants, "north")).toBeUndefined();
    writeFileSync(file, JSON.stringify({ tenants: [tenant("north", "south"), tenant("south")] }));
    expect(() => loadTenants(file, { K: "hawk-key-value" })).toThrow(
      /tenants\[1\] "south" oauth_tenant: a unique OAuth tenant: tenant "north" is named by the same claim value/,
    );
    rmSync(dir, { recursive: true, force: true });
  });
});
