/**
 * The rules of loadConfig (src/config/rules.ts), one at a time, and what loadConfig adds to them: a
 * problem names its variable and never quotes a value; a misspelt name of the variable is named too.
 */
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { withMisspellings } from "../../src/config/names.js";
import { CONFIG_RULES, urlCredentials } from "../../src/config/rules.js";
import { ConfigError } from "../../src/errors/api-error.js";

const ok = {
  MMS_BASE_URL: "https://cmms.example.com/api",
  MMS_AUTH_URL: "https://auth.example.com",
  MMS_CLIENT_ID: "client-1",
  MMS_CLIENT_SECRET: "s3cr3t-client-value",
};
const HIDDEN = "p4ss-w0rd-hidden-77";

/** The variables a rule names for `env`. */
const named = (rule: keyof typeof CONFIG_RULES, env: Record<string, string>) =>
  CONFIG_RULES[rule](env).map((p) => p.variable);

describe("each rule of loadConfig", () => {
  it("passes a good configuration", () => {
    for (const rule of Object.values(CONFIG_RULES)) expect(rule(ok)).toEqual([]);
  });

  it("requiredBaseUrl: MMS_BASE_URL must be set", () => {
    expect(named("requiredBaseUrl", {})).toEqual(["MMS_BASE_URL"]);
    expect(named("requiredBaseUrl", { MMS_BASE_URL: "  " })).toEqual(["MMS_BASE_URL"]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: an MCP Bundle placeholder left as is
    expect(named("requiredBaseUrl", { MMS_BASE_URL: "${user_config.base_url}" })).toEqual(["MMS_BASE_URL"]);
  });

  it("noAppendedPaths: the auth and hub URLs are origins", () => {
    expect(named("noAppendedPaths", { MMS_AUTH_URL: "https://a/oauth/token/" })).toEqual(["MMS_AUTH_URL"]);
    expect(named("noAppendedPaths", { MMS_HUB_URL: "https://h/hub/api/v1/dags" })).toEqual(["MMS_HUB_URL"]);
    expect(CONFIG_RULES.noAppendedPaths({ MMS_AUTH_URL: "https://a/oauth" })[0]!.expected).toContain(
      "use https://a",
    );
  });

  it.each([
    ["MMS_BASE_URL", `https://user:${HIDDEN}@cmms.example.com/api`, "user:password@"],
    ["MMS_AUTH_URL", `https://${HIDDEN}@auth.example.com`, "a user name before @"],
    ["MMS_HUB_URL", `https://hub.example.com/?api_key=${HIDDEN}`, "the query parameter api_key"],
    ["MMS_BASE_URL", `https://cmms.example.com/api?TOKEN=${HIDDEN}`, "the query parameter TOKEN"],
    [
      "MMS_BASE_URL",
      `https://cmms.example.com/api?client_secret=${HIDDEN}`,
      "the query parameter client_secret",
    ],
    [
      "OTEL_EXPORTER_OTLP_ENDPOINT",
      `https://otel.example.com/?password=${HIDDEN}`,
      "the query parameter password",
    ],
  ])("noCredentialsInUrls: %s = %s is refused, naming where, never the value", (variable, url, where) => {
    const problems = CONFIG_RULES.noCredentialsInUrls({ [variable]: url });
    expect(problems.map((p) => p.variable)).toEqual([variable]);
    expect(problems[0]!.expected).toContain(where);
    expect(JSON.stringify(problems)).not.toContain(HIDDEN);
  });

  it("noCredentialsInUrls: ordinary query parameters pass, and the credentials are found for scrubbing", () => {
    expect(named("noCredentialsInUrls", { MMS_BASE_URL: "https://h/api?company=7&lang=es" })).toEqual([]);
    expect(urlCredentials(`https://u:${HIDDEN}@h/?key=k-${HIDDEN}`).values).toEqual([
      "u",
      HIDDEN,
      `k-${HIDDEN}`,
    ]);
  });

  it.each([
    ["MMS_AUTH_URL", "https://your-auth-host", `the README's placeholder "your-auth-host"`],
    ["MMS_BASE_URL", "https://your-host/api", `the README's placeholder "your-host"`],
    ["MMS_CLIENT_ID", "your-client-id", `the README's placeholder "your-client-id"`],
    [
      "MMS_CLIENT_SECRET",
      "your-client-secret",
      'a placeholder from the README (it starts with "your-"; a secret is never shown)',
    ],
    ["MCP_TENANTS_FILE", "/ABSOLUTE/PATH/TO/tenants.json", `the README's placeholder "/ABSOLUTE/PATH/TO/"`],
    [
      "NODE_EXTRA_CA_CERTS",
      "C:\\absolute\\path\\to\\ca.pem",
      `the README's placeholder "\\absolute\\path\\to\\"`,
    ],
  ])("noReadmePlaceholders: %s = %s is named as the README's placeholder", (variable, value, shown) => {
    const problems = CONFIG_RULES.noReadmePlaceholders({ [variable]: value });
    expect(problems.map((p) => p.variable)).toEqual([variable]);
    expect(problems[0]!.expected).toContain(`still holds ${shown}: replace it with`);
    // Each reads as one sentence: no article doubled ("the README's placeholder a ...").
    expect(problems[0]!.expected).not.toMatch(/placeholder a /);
    expect(JSON.stringify(problems)).not.toContain(value.includes("secret") ? value : "\u0000");
  });

  it("noReadmePlaceholders: real values that merely contain 'your' pass", () => {
    expect(named("noReadmePlaceholders", { MMS_BASE_URL: "https://yourcompany.example/api" })).toEqual([]);
    expect(named("noReadmePlaceholders", { MMS_CLIENT_ID: "tour-your" })).toEqual([]);
  });

  it("pairedCredentials: each half of a pair needs the other; dlg needs app", () => {
    expect(named("pairedCredentials", { MMS_CLIENT_ID: "x" })).toEqual(["MMS_CLIENT_SECRET"]);
    expect(named("pairedCredentials", { MMS_CLIENT_SECRET: "x" })).toEqual(["MMS_CLIENT_ID"]);
    expect(named("pairedCredentials", { MMS_HAWK_KEY: "x" })).toEqual(["MMS_HAWK_ID"]);
    expect(named("pairedCredentials", { MMS_HAWK_DLG: "d" })).toEqual(["MMS_HAWK_APP"]);
  });

  it("someCredentials: one pair at least", () => {
    expect(named("someCredentials", { MMS_BASE_URL: "https://h" })).toEqual([
      "MMS_CLIENT_ID/MMS_CLIENT_SECRET or MMS_HAWK_ID/MMS_HAWK_KEY",
    ]);
    expect(named("someCredentials", { MMS_HAWK_ID: "x" })).toEqual([]);
  });

  it("authUrlWithOAuth: client credentials need the token endpoint's origin", () => {
    const { MMS_AUTH_URL: _, ...noAuthUrl } = ok;
    expect(named("authUrlWithOAuth", noAuthUrl)).toEqual(["MMS_AUTH_URL"]);
  });

  it("schemeHasCredentials: MMS_AUTH names a scheme with credentials", () => {
    expect(named("schemeHasCredentials", { ...ok, MMS_AUTH: "hawk" })).toEqual(["MMS_HAWK_ID"]);
    expect(named("schemeHasCredentials", { MMS_HAWK_ID: "i", MMS_HAWK_KEY: "k", MMS_AUTH: "oauth" })).toEqual(
      ["MMS_CLIENT_ID"],
    );
  });
});

describe("loadConfig", () => {
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return error as ConfigError;
    }
    throw new Error("expected a ConfigError");
  };

  it("refuses a URL with credentials without printing it", () => {
    const error = refusal({ ...ok, MMS_BASE_URL: `https://admin:${HIDDEN}@cmms.example.com/api` });
    expect(error.problems.map((p) => p.variable)).toEqual(["MMS_BASE_URL"]);
    expect(error.message).not.toContain(HIDDEN);
    expect(error.message).not.toContain("admin");
  });

  it("names the misspelt name of a variable it reports missing: the host sees the 'did you mean' too", () => {
    const { MMS_CLIENT_SECRET: secret, ...rest } = ok;
    const error = refusal({ ...rest, MMS_CLIENT_SECERT: secret });
    expect(error.problems).toEqual([
      {
        variable: "MMS_CLIENT_SECRET",
        expected:
          "required when MMS_CLIENT_ID is set (MMS_CLIENT_SECERT is set: did you mean MMS_CLIENT_SECRET?)",
      },
    ]);
  });

  it("withMisspellings leaves problems alone when nothing is misspelt, and never adds a value", () => {
    const problems = [{ variable: "MMS_BASE_URL", expected: "required" }];
    expect(withMisspellings(problems, { MMS_BASE_URL: "" })).toEqual(problems);
    expect(
      JSON.stringify(withMisspellings(problems, { MMS_BASE_ULR: HIDDEN, MMS_BASE_URL: "" })),
    ).not.toContain(HIDDEN);
    expect(withMisspellings(problems, { MMS_BASE_ULR: "https://h/api" })[0]!.expected).toBe(
      "required (MMS_BASE_ULR is set: did you mean MMS_BASE_URL?)",
    );
  });

  it("reads MMS_HAWK_PAYLOAD_HASH with the words every boolean takes", () => {
    const hawk = { MMS_BASE_URL: "https://h/api", MMS_HAWK_ID: "i", MMS_HAWK_KEY: "hawk-key-value" };
    expect(loadConfig({ ...hawk, MMS_HAWK_PAYLOAD_HASH: "off" }).hawk?.payloadHash).toBe(false);
    expect(loadConfig({ ...hawk, MMS_HAWK_PAYLOAD_HASH: "ON" }).hawk?.payloadHash).toBe(true);
    expect(refusal({ ...hawk, MMS_HAWK_PAYLOAD_HASH: "maybe" }).problems[0]!.expected).toBe(
      "expected true or false (also accepted: 1, yes, on, 0, no, off)",
    );
  });
});
