import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configWarnings, KNOWN_VARIABLES, loadConfig } from "../../src/config/config.js";
import { ConfigError } from "../../src/errors/api-error.js";
import { tokenSha256 } from "../../src/hosting/tenants.js";
import { loadServeConfig } from "../../src/main/settings.js";

const oauthEnv = {
  MMS_BASE_URL: "https://api.example.com/api/",
  MMS_AUTH_URL: "https://auth.example.com",
  MMS_CLIENT_ID: "client-1",
  MMS_CLIENT_SECRET: "s3cr3t-client-value",
};

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems.map((p) => p.variable);
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("parses an OAuth configuration with defaults", () => {
    const c = loadConfig(oauthEnv);
    expect(c.baseUrl).toBe("https://api.example.com/api");
    expect(c.auth).toBe("oauth");
    expect(c.hubUrl).toBe("https://auth.example.com");
    expect(c.timeoutMs).toBe(30_000);
    expect(c.maxRetries).toBe(3);
    expect(c.logLevel).toBe("info");
    expect(c.oauth?.clientSecret.reveal()).toBe("s3cr3t-client-value");
  });

  it("defaults to hawk when only Hawk credentials are set", () => {
    const c = loadConfig({
      MMS_BASE_URL: "https://h/api",
      MMS_HAWK_ID: "co",
      MMS_HAWK_KEY: "hawk-key-value",
    });
    expect(c.auth).toBe("hawk");
    expect(c.hubUrl).toBeUndefined();
    expect(c.hawk?.payloadHash).toBe(true);
  });

  it("names every missing variable at once", () => {
    expect(problems({})).toEqual([
      "MMS_BASE_URL",
      "MMS_CLIENT_ID/MMS_CLIENT_SECRET or MMS_HAWK_ID/MMS_HAWK_KEY",
    ]);
    expect(problems({ MMS_BASE_URL: "https://h", MMS_CLIENT_ID: "x" })).toEqual(["MMS_CLIENT_SECRET"]);
    expect(problems({ ...oauthEnv, MMS_AUTH_URL: "" })).toEqual(["MMS_AUTH_URL"]);
    expect(problems({ ...oauthEnv, MMS_AUTH: "hawk" })).toEqual(["MMS_HAWK_ID"]);
    expect(problems({ ...oauthEnv, MMS_HAWK_DLG: "d" })).toEqual(["MMS_HAWK_APP"]);
  });

  it("rejects bad values with what is expected", () => {
    const env = {
      ...oauthEnv,
      MMS_TIMEOUT_MS: "soon",
      MMS_MAX_RETRIES: "99",
      LOG_LEVEL: "loud",
      MMS_BASE_URL: "ftp://x",
    };
    expect(problems(env)).toEqual(["MMS_BASE_URL", "MMS_TIMEOUT_MS", "MMS_MAX_RETRIES", "LOG_LEVEL"]);
    expect(problems({ ...oauthEnv, MMS_HAWK_PAYLOAD_HASH: "maybe" })).toEqual(["MMS_HAWK_PAYLOAD_HASH"]);
  });

  it("reads MCP_TENANT_MAX_IN_FLIGHT (default 16), refusing what is not a whole number from 1", () => {
    expect(loadConfig(oauthEnv).tenantMaxInFlight).toBe(16);
    expect(loadConfig({ ...oauthEnv, MCP_TENANT_MAX_IN_FLIGHT: "4" }).tenantMaxInFlight).toBe(4);
    for (const bad of ["0", "many", "-2", "100000"]) {
      expect(problems({ ...oauthEnv, MCP_TENANT_MAX_IN_FLIGHT: bad })).toEqual(["MCP_TENANT_MAX_IN_FLIGHT"]);
    }
    expect(() => loadConfig({ ...oauthEnv, MCP_TENANT_MAX_IN_FLIGHT: "0" })).toThrow(
      "MCP_TENANT_MAX_IN_FLIGHT: expected at least 1",
    );
  });

  it("reads MMS_BUDGET_DISCOUNT as percent or amount, and names what it means when it is neither", () => {
    expect(loadConfig(oauthEnv).budgetDiscount).toBeUndefined();
    expect(loadConfig({ ...oauthEnv, MMS_BUDGET_DISCOUNT: "percent" }).budgetDiscount).toBe("percent");
    expect(loadConfig({ ...oauthEnv, MMS_BUDGET_DISCOUNT: "amount" }).budgetDiscount).toBe("amount");
    try {
      loadConfig({ ...oauthEnv, MMS_BUDGET_DISCOUNT: "10%" });
      throw new Error("expected a ConfigError");
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems).toEqual([
        {
          variable: "MMS_BUDGET_DISCOUNT",
          expected:
            "expected percent or amount: whether the API's budget discount is a percentage of items_total or an amount in the budget's currency (leave it unset when unsure)",
        },
      ]);
    }
  });

  it("reads MMS_BUDGET_LOOKBACK_DAYS as whole days from 1 (unset: the budget query's default)", () => {
    expect(loadConfig(oauthEnv).budgetLookbackDays).toBeUndefined();
    expect(loadConfig({ ...oauthEnv, MMS_BUDGET_LOOKBACK_DAYS: "90" }).budgetLookbackDays).toBe(90);
    for (const bad of ["0", "1.5", "a year"]) {
      expect(() => loadConfig({ ...oauthEnv, MMS_BUDGET_LOOKBACK_DAYS: bad })).toThrow(ConfigError);
    }
  });

  it("never shows a secret in errors or JSON", () => {
    const secret = "super-secret-value-123";
    const c = loadConfig({
      ...oauthEnv,
      MMS_CLIENT_SECRET: secret,
      MCP_HTTP_TOKEN: "http-token-value-0123456789",
    });
    expect(JSON.stringify(c)).not.toContain(secret);
    expect(JSON.stringify(c)).not.toContain("http-token-value");
    expect(String(c.oauth?.clientSecret)).toBe("[redacted]");
    const load = () => loadConfig({ ...oauthEnv, MMS_CLIENT_SECRET: secret, MCP_HTTP_TOKEN: "short-secret" });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/MCP_HTTP_TOKEN/);
    expect(load).not.toThrow(/short-secret/);
  });

  it("refuses an MMS_AUTH_URL or MMS_HUB_URL that includes the path the server appends", () => {
    expect(() => loadConfig({ ...oauthEnv, MMS_AUTH_URL: "https://auth.example.com/oauth/token/" })).toThrow(
      "Configuration problem: MMS_AUTH_URL: should be the origin, without /oauth/token; the server appends that path: use https://auth.example.com",
    );
    expect(() => loadConfig({ ...oauthEnv, MMS_HUB_URL: "https://hub.example.com/hub/api/v1/dags" })).toThrow(
      "Configuration problem: MMS_HUB_URL: should be the origin, without /hub/api/v1/dags; the server appends that path: use https://hub.example.com",
    );
    expect(loadConfig({ ...oauthEnv, MMS_AUTH_URL: "https://example.com/oauth-server" }).oauth?.authUrl).toBe(
      "https://example.com/oauth-server",
    );
  });

  it("treats an unsubstituted user_config placeholder (MCP Bundle) as not set, with a warning", () => {
    const env = { ...oauthEnv, MMS_HUB_URL: ["$", "{user_config.hub_url}"].join("") };
    expect(loadConfig(env).hubUrl).toBe("https://auth.example.com");
    expect(configWarnings(env)).toEqual([
      "MMS_HUB_URL holds an unsubstituted placeholder and is treated as not set",
    ]);
  });
});

describe("configWarnings", () => {
  it("names the closest known variable for a misspelt MMS_* name", () => {
    expect(
      configWarnings({
        ...oauthEnv,
        MMS_CLIENT_SCRET: "x",
        MMS_COLOUR: "1",
        PATH: "/bin",
      }),
    ).toEqual([
      'MMS_CLIENT_SCRET is not a variable this server reads and is ignored; did you mean MMS_CLIENT_SECRET? (see README, "Configuration")',
      'MMS_COLOUR is not a variable this server reads and is ignored (see README, "Configuration")',
    ]);
    expect(configWarnings(oauthEnv)).toEqual([]);
  });

  it("knows exactly the MMS_* variables the table of docs/configuration.md documents", () => {
    const rows = readFileSync("docs/configuration.md", "utf8")
      .split("\n")
      .filter((line) => line.startsWith("| `MMS_"));
    const documented = new Set(rows.flatMap((row) => row.split("|")[1]!.match(/MMS_[A-Z_]+[A-Z]/g) ?? []));
    expect([...KNOWN_VARIABLES].sort()).toEqual([...documented].sort());
  });
});

describe("MMS_TASK_TTL_SECONDS", () => {
  it("defaults to 900, takes 10 to 604800, and names the variable when out of range", () => {
    expect(loadConfig(oauthEnv).taskTtlSeconds).toBe(900);
    expect(loadConfig({ ...oauthEnv, MMS_TASK_TTL_SECONDS: "60" }).taskTtlSeconds).toBe(60);
    expect(problems({ ...oauthEnv, MMS_TASK_TTL_SECONDS: "5" })).toEqual(["MMS_TASK_TTL_SECONDS"]);
  });

  it("is process-wide: kept from the environment when a tenants file replaces the other MMS_* variables", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "task-ttl-")), "tenants.json");
    writeFileSync(
      file,
      JSON.stringify({
        tenants: [
          {
            name: "north",
            token_sha256: tokenSha256("north-bearer-token-0123456789abcdef"),
            upstream: { ...oauthEnv, MMS_CLIENT_SECRET: { env: "N_SECRET" } },
          },
        ],
      }),
    );
    const env = { MMS_TASK_TTL_SECONDS: "120", MMS_TIMEOUT_MS: "999", N_SECRET: "s3cr3t-client-value" };
    const { config } = await loadServeConfig(env, env, file);
    expect(config.taskTtlSeconds).toBe(120);
    expect(config.timeoutMs).toBe(30_000);
  });

  it("the review settings and MMS_RESUME_KEY hold with a tenants file too; 0 turns the cache off (interface.md §9b)", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "reviews-")), "tenants.json");
    writeFileSync(
      file,
      JSON.stringify({
        tenants: [
          {
            name: "north",
            token_sha256: tokenSha256("north-bearer-token-0123456789abcdef"),
            upstream: { ...oauthEnv, MMS_CLIENT_SECRET: { env: "N_SECRET" } },
          },
        ],
      }),
    );
    const key = "k".repeat(40);
    const env = {
      MMS_REVIEW_DEADLINE_MS: "2000",
      MMS_REVIEW_CACHE_SECONDS: "0",
      MMS_REVIEW_CACHE_MB: "8",
      MMS_INFLIGHT_MB: "4",
      MMS_RESUME_KEY: key,
      N_SECRET: "s3cr3t-client-value",
    };
    const { config } = await loadServeConfig(env, env, file);
    expect(config.reviews).toEqual({
      deadlineMs: 2000,
      cacheSeconds: 0,
      cacheMb: 8,
      inflightMb: 4,
      resumeKey: key,
    });
    await expect(loadServeConfig({ ...env, MMS_REVIEW_CACHE_SECONDS: "-1" }, env, file)).rejects.toThrow(
      /MMS_REVIEW_CACHE_SECONDS/,
    );
  });
});

describe("MMS_RESUME_KEY", () => {
  it("is a secret of at least 32 characters, never quoted when refused", () => {
    expect(problems({ ...oauthEnv, MMS_RESUME_KEY: "short-key" })).toEqual(["MMS_RESUME_KEY"]);
    expect(loadConfig({ ...oauthEnv, MMS_RESUME_KEY: "r".repeat(32) }).reviews?.resumeKey).toBe(
      "r".repeat(32),
    );
  });
});
