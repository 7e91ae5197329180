/**
 * The variables table (src/config/variables.ts) and the start-up check of the environment's names:
 * the table holds every variable the source reads (so --help cannot drift), a near-miss of a safety
 * variable is a problem that stops the start, anything else a warning, other software's names are
 * left alone, and no message quotes a value.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkEnvironment, secretValues } from "../../src/config/config.js";
import { SAFETY_VARIABLES, VARIABLE_NAMES } from "../../src/config/variables.js";
import { USAGE } from "../../src/main/cli.js";

/** Every variable name the source reads: quoted names and `env.NAME` reads, in src/ and tools/. */
function namesReadBySource(): string[] {
  const files = ["src", "tools"].flatMap((dir) =>
    (readdirSync(dir, { recursive: true }) as string[])
      .filter((f) => f.endsWith(".ts") && !f.endsWith("variables.ts"))
      .map((f) => join(dir, f)),
  );
  const names = new Set<string>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/"((?:MMS|MCP|OTEL)_[A-Z0-9_]*[A-Z0-9]|REDIS_URL|LOG_LEVEL)"/g))
      names.add(m[1]!);
    for (const m of text.matchAll(/\benv\.((?:MMS|MCP|OTEL)_[A-Z0-9_]*[A-Z0-9]|REDIS_URL|LOG_LEVEL)\b/g))
      names.add(m[1]!);
  }
  return [...names].sort();
}

const VALUE = "value-that-must-not-show-0042";

describe("the variables table", () => {
  it("holds every variable the source reads", () => {
    const read = namesReadBySource();
    expect(read.length).toBeGreaterThan(20);
    // MMS_TEST_* are the test suite's own switches (src/domain/review/test-slowdown.ts), never a setting.
    const settings = read.filter((name) => !name.startsWith("MMS_TEST_"));
    expect(settings.filter((name) => !VARIABLE_NAMES.includes(name))).toEqual([]);
  });

  it("is what --help lists, every name once", () => {
    for (const name of VARIABLE_NAMES) expect(USAGE.match(new RegExp(`^  ${name} `, "gm"))).toHaveLength(1);
  });

  it("names the safety variables of interface.md §1", () => {
    expect(SAFETY_VARIABLES.map((v) => v.name).sort()).toEqual([
      "MCP_HTTP_TOKEN",
      "MCP_TENANTS_FILE",
      "MMS_CONFIRM_WRITES",
      "MMS_READ_ONLY",
      "MMS_SANDBOX",
    ]);
  });
});

describe("checkEnvironment", () => {
  it.each([
    ["MMS_READONLY", "MMS_READ_ONLY", "the tools that write upstream would be offered"],
    ["MMS_READ_0NLY", "MMS_READ_ONLY", "the tools that write upstream would be offered"],
    ["mms_read_only", "MMS_READ_ONLY", "the tools that write upstream would be offered"],
    ["MMSREAD_ONLY", "MMS_READ_ONLY", "the tools that write upstream would be offered"],
    ["MCP_READ_ONLY", "MMS_READ_ONLY", "the tools that write upstream would be offered"],
    ["MSS_READ_ONLY", "MMS_READ_ONLY", "the tools that write upstream would be offered"],
    ["MCP_HTTP_TOKNE", "MCP_HTTP_TOKEN", "the HTTP server would serve without a token"],
    ["MCP_HTTPTOKEN", "MCP_HTTP_TOKEN", "the HTTP server would serve without a token"],
    ["MPC_HTTP_TOKEN", "MCP_HTTP_TOKEN", "the HTTP server would serve without a token"],
    ["MCP_TENANT_FILE", "MCP_TENANTS_FILE", "every tenant's token, would be ignored"],
    ["MMS_SANBOX", "MMS_SANDBOX", "the real upstream instead of the simulator"],
    ["MMS_CONFIRM_WRITE", "MMS_CONFIRM_WRITES", "without asking the user"],
  ])("%s holding a value is a problem naming %s, never quoting the value", (name, meant, consequence) => {
    const { problems, warnings } = checkEnvironment({ [name]: VALUE, MMS_BASE_URL: "https://h/api" });
    expect(warnings).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.variable).toBe(name);
    expect(problems[0]!.expected).toContain(`did you mean ${meant}?`);
    expect(problems[0]!.expected).toContain(consequence);
    expect(problems[0]!.expected).toContain(`rename it to ${meant}`);
    expect(JSON.stringify(problems)).not.toContain(VALUE);
  });

  it.each([
    ["MMS_CONFIRM", "CONFIRM", "writes would be sent without asking the user"],
    ["MMS_WRITE_CONFIRM", "CONFIRM", "writes would be sent without asking the user"],
    ["MMS_RO", "RO", "the tools that write upstream would be offered"],
    ["READ_ONLY", "READ", "the tools that write upstream would be offered"],
    ["MCP_TOKEN", "TOKEN", "the HTTP server would serve without a token"],
    ["MCP_BEARER_TOKEN", "TOKEN", "the HTTP server would serve without a token"],
    ["MCP_TENANTS", "TENANTS", "every tenant's token, would be ignored"],
    ["MCP_TOOLS", "TOOLS", "every tool would be offered"],
    ["MCP_AUTH", "AUTH", "clients it was meant to authenticate"],
    ["MCP_OAUTH_AUDIENCE", "OAUTH", "clients it was meant to authenticate"],
    ["mms_readonly_mode", "READONLY", "the tools that write upstream would be offered"],
    // interface.md §9b: a word that begins with a safety word of four letters or more.
    ["MMS_CONFIRMATION", "CONFIRM", "writes would be sent without asking the user"],
    ["MMS_CONFIRMATIONS_ON", "CONFIRM", "writes would be sent without asking the user"],
    ["MCP_TOKENS", "TOKEN", "the HTTP server would serve without a token"],
    ["MCP_AUTHORIZATION", "AUTH", "clients it was meant to authenticate"],
  ])(
    "%s shares the safety word %s: a problem that stops the start (interface.md §9)",
    (name, word, consequence) => {
      const { problems, warnings } = checkEnvironment({ [name]: VALUE });
      expect(warnings).toEqual([]);
      expect(problems).toHaveLength(1);
      expect(problems[0]!.variable).toBe(name);
      expect(problems[0]!.expected).toContain(`shares the word ${word} with a safety setting`);
      expect(problems[0]!.expected).toContain(consequence);
      expect(problems[0]!.expected).toContain("so no tool runs until it is fixed");
      expect(JSON.stringify(problems)).not.toContain(VALUE);
    },
  );

  it("takes none of the names other issues add for a near-miss (they are known)", () => {
    const names = [
      "MCP_OAUTH_ISSUER",
      "MCP_PUBLIC_URL",
      "MCP_OAUTH_TENANT_CLAIM",
      "MCP_OAUTH_INTROSPECTION_CLIENT_ID",
      "MCP_OAUTH_INTROSPECTION_CLIENT_SECRET",
      "MMS_RATE_LIMIT",
      "MMS_RATE_SHARE",
      "MMS_REVIEW_DEADLINE_MS",
      "MMS_REVIEW_CACHE_SECONDS",
      "MMS_REVIEW_CACHE_MB",
      "MMS_TASK_TTL_SECONDS",
      "MMS_INFLIGHT_MB",
      "MMS_BUDGET_LOOKBACK_DAYS",
    ];
    expect(checkEnvironment(Object.fromEntries(names.map((n) => [n, "x"])))).toEqual({
      problems: [],
      warnings: [],
    });
  });

  it("leaves the MCP_* names of MCP clients alone (Claude Code passes MCP_TOOL_TIMEOUT down; the Inspector its proxy token)", () => {
    const env = { MCP_TOOL_TIMEOUT: "60000", MCP_TIMEOUT: "10000", MCP_PROXY_AUTH_TOKEN: VALUE };
    expect(checkEnvironment(env).problems).toEqual([]);
  });

  it("pins the whole message of one near-miss", () => {
    expect(checkEnvironment({ MMS_READONLY: "true" }).problems).toMatchInlineSnapshot(`
      [
        {
          "expected": "not a variable this server reads; did you mean MMS_READ_ONLY? Ignored, the tools that write upstream would be offered, so no tool runs until it is fixed: rename it to MMS_READ_ONLY (or remove it)",
          "variable": "MMS_READONLY",
        },
      ]
    `);
  });

  it("leaves other software's variables alone, whatever they resemble", () => {
    const env = {
      IS_SANDBOX: "1",
      HTTP_TOKEN: VALUE,
      SANDBOX: "yes",
      MCP_PROXY_AUTH_TOKEN: VALUE,
      MCP_SERVER_REQUEST_TIMEOUT: "5",
      PATH: "/bin",
    };
    expect(checkEnvironment(env)).toEqual({ problems: [], warnings: [] });
  });

  it("warns, with the closest name, for a near-miss of any other variable, MMS_* or MCP_*", () => {
    expect(
      checkEnvironment({
        MMS_CLIENT_SCRET: VALUE,
        MCP_STATE_SECRT: VALUE,
        MCP_REDIS_TIMEOUT: "5",
        MMS_BUDGET_DISCOUNTS: "percent",
        MMS_COLOUR: "1",
      }).warnings,
    ).toEqual([
      'MCP_REDIS_TIMEOUT is not a variable this server reads and is ignored; did you mean MCP_REDIS_TIMEOUT_MS? (see README, "Configuration")',
      'MCP_STATE_SECRT is not a variable this server reads and is ignored; did you mean MCP_STATE_SECRET? (see README, "Configuration")',
      'MMS_BUDGET_DISCOUNTS is not a variable this server reads and is ignored; did you mean MMS_BUDGET_DISCOUNT? (see README, "Configuration")',
      'MMS_CLIENT_SCRET is not a variable this server reads and is ignored; did you mean MMS_CLIENT_SECRET? (see README, "Configuration")',
      'MMS_COLOUR is not a variable this server reads and is ignored (see README, "Configuration")',
    ]);
  });

  it("knows the variables other issues added (no warning for any of them)", () => {
    const env = Object.fromEntries(
      [
        "MMS_BUDGET_DISCOUNT",
        "MCP_REDIS_TIMEOUT_MS",
        "MCP_TENANT_MAX_IN_FLIGHT",
        "MCP_STATE_SECRET",
        "MCP_IDEMPOTENCY_TTL_SECONDS",
        "MCP_TENANTS_FILE",
        "MCP_HTTP_TOKEN",
      ].map((n) => [n, "x"]),
    );
    expect(checkEnvironment(env)).toEqual({ problems: [], warnings: [] });
  });

  it("an empty near-miss only warns: it asks for nothing", () => {
    const { problems, warnings } = checkEnvironment({ MMS_READONLY: "" });
    expect(problems).toEqual([]);
    expect(warnings).toEqual([
      'MMS_READONLY is not a variable this server reads and is ignored; did you mean MMS_READ_ONLY? (see README, "Configuration")',
    ]);
  });

  it("where the environment ignores case (Windows), a name in another case is the variable itself", () => {
    expect(checkEnvironment({ mms_read_only: "true" }, { caseInsensitive: true })).toEqual({
      problems: [],
      warnings: [],
    });
    expect(checkEnvironment({ mms_read_only: "true" }).problems).toHaveLength(1);
  });
});

describe("secretValues", () => {
  it("holds the secrets, misspelt ones included, and nothing else", () => {
    expect(
      secretValues({
        MMS_CLIENT_SECRET: "s1-secret",
        MMS_CLIENT_SCRET: "s2-secret",
        MCP_HTTP_TOKNE: "s3-secret",
        MMS_HAWK_KEY: "s4-secret",
        MMS_HAWK_ID: "hawk-id",
        MMS_CLIENT_ID: "client-id",
        IS_SANDBOX: "yes",
      }).sort(),
    ).toEqual(["s1-secret", "s2-secret", "s3-secret", "s4-secret"]);
  });
});

describe("what the server's messages cite", () => {
  it('names only README headings that exist (README, "...")', () => {
    const headings = new Set(
      readFileSync("README.md", "utf8")
        .split("\n")
        .filter((l) => /^#{1,4} /.test(l))
        .map((l) => l.replace(/^#+ /, "")),
    );
    const files = ["src", "tools"].flatMap((dir) =>
      (readdirSync(dir, { recursive: true }) as string[])
        .filter((f) => f.endsWith(".ts"))
        .map((f) => join(dir, f)),
    );
    const cited = files.flatMap((f) =>
      [...readFileSync(f, "utf8").matchAll(/README, \\?"([^"\\]+)\\?"/g)].map((m) => m[1]!),
    );
    expect(cited.length).toBeGreaterThan(2);
    expect(cited.filter((c) => !headings.has(c))).toEqual([]);
  });
});
