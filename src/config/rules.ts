/**
 * The configuration checks of loadConfig (interface.md §2, §9) as small named rules: each reads the
 * raw environment and returns the problems it finds, naming the variable, never quoting a value a
 * secret could be in. loadConfig runs them all and reports every problem at once; each rule has
 * its own test (test/unit/config-rules.test.ts).
 */
import type { ConfigProblem } from "../errors/api-error.js";
import { type Env, PLACEHOLDER } from "./names.js";
import { URL_VARIABLES, urlCredentials } from "./url-credentials.js";
import { SECRET_VARIABLES, VARIABLE_NAMES } from "./variables.js";

export { urlCredentials } from "./url-credentials.js";

export type ConfigRule = (env: Env) => ConfigProblem[];

/** A variable's value: trimmed; blank and `${...}` placeholders are not set. */
export function read(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === "" || PLACEHOLDER.test(v) ? undefined : v;
}

const requiredBaseUrl: ConfigRule = (env) =>
  read(env, "MMS_BASE_URL") === undefined
    ? [{ variable: "MMS_BASE_URL", expected: "required: base URL of the main API, e.g. https://host/api" }]
    : [];

/** A URL that includes the path the server appends itself, e.g. MMS_AUTH_URL ending in /oauth/token. */
function suffixProblem(env: Env, name: string, suffix: RegExp, what: string): ConfigProblem[] {
  const url = read(env, name)?.replace(/\/+$/, "");
  if (url === undefined || !/^https?:\/\//i.test(url) || !suffix.test(url)) return [];
  return [
    {
      variable: name,
      expected: `should be the origin, without ${what}; the server appends that path: use ${url.replace(suffix, "")}`,
    },
  ];
}

const noAppendedPaths: ConfigRule = (env) => [
  ...suffixProblem(env, "MMS_AUTH_URL", /\/oauth(\/token)?$/i, "/oauth/token"),
  ...suffixProblem(env, "MMS_HUB_URL", /\/hub(\/api(\/v1(\/dags)?)?)?$/i, "/hub/api/v1/dags"),
];

const noCredentialsInUrls: ConfigRule = (env) =>
  URL_VARIABLES.flatMap((name) => {
    const value = read(env, name);
    const { where } = value === undefined ? { where: [] } : urlCredentials(value);
    if (where.length === 0) return [];
    const fix = name.startsWith("MMS_")
      ? "give credentials in MMS_CLIENT_ID/MMS_CLIENT_SECRET or MMS_HAWK_ID/MMS_HAWK_KEY"
      : name.startsWith("OTEL_")
        ? "give them in OTEL_EXPORTER_OTLP_HEADERS"
        : "a public URL carries no credential";
    return [
      {
        variable: name,
        expected: `must not carry credentials (it holds ${where.join(" and ")}; the value is not shown): remove them from the URL; ${fix}`,
      },
    ];
  });

/** The placeholders the README, mcp.json and docs/configuration.md show for the user to replace. */
const README_PLACEHOLDER = /(?:^|[^a-z0-9])(your-[a-z0-9-]*[a-z0-9])|([\\/]absolute[\\/]path[\\/]to[\\/]?)/i;

/** The variables a README placeholder may be left in: ours and NODE_EXTRA_CA_CERTS (a path). */
const PLACEHOLDER_VARIABLES = [...VARIABLE_NAMES, "NODE_EXTRA_CA_CERTS"];

const noReadmePlaceholders: ConfigRule = (env) =>
  PLACEHOLDER_VARIABLES.flatMap((name) => {
    const match = README_PLACEHOLDER.exec(read(env, name) ?? "");
    if (match === null) return [];
    // A secret's own text is scrubbed from every message: say how the placeholder starts instead.
    const shown = SECRET_VARIABLES.includes(name)
      ? 'a placeholder from the README (it starts with "your-"; a secret is never shown)'
      : `the README's placeholder "${(match[1] ?? match[2])!}"`;
    const what = match[2] === undefined ? "your own value" : "the absolute path of the folder that holds it";
    return [
      {
        variable: name,
        expected: `still holds ${shown}: replace it with ${what} (mcp.json holds several example entries: keep only those you fill in; the sandbox entry needs none)`,
      },
    ];
  });

const pairedCredentials: ConfigRule = (env) => {
  const problems: ConfigProblem[] = [];
  const pair = (a: string, b: string) => {
    const [av, bv] = [read(env, a), read(env, b)];
    if (av !== undefined && bv === undefined)
      problems.push({ variable: b, expected: `required when ${a} is set` });
    if (bv !== undefined && av === undefined)
      problems.push({ variable: a, expected: `required when ${b} is set` });
  };
  pair("MMS_CLIENT_ID", "MMS_CLIENT_SECRET");
  pair("MMS_HAWK_ID", "MMS_HAWK_KEY");
  if (read(env, "MMS_HAWK_DLG") !== undefined && read(env, "MMS_HAWK_APP") === undefined) {
    problems.push({
      variable: "MMS_HAWK_APP",
      expected: "required when MMS_HAWK_DLG is set (Hawk sends dlg only with app)",
    });
  }
  return problems;
};

const CREDENTIALS = ["MMS_CLIENT_ID", "MMS_CLIENT_SECRET", "MMS_HAWK_ID", "MMS_HAWK_KEY"];

const someCredentials: ConfigRule = (env) =>
  CREDENTIALS.every((name) => read(env, name) === undefined)
    ? [
        {
          variable: "MMS_CLIENT_ID/MMS_CLIENT_SECRET or MMS_HAWK_ID/MMS_HAWK_KEY",
          expected: "required: OAuth client credentials, Hawk credentials, or both",
        },
      ]
    : [];

const hasOAuth = (env: Env) =>
  read(env, "MMS_CLIENT_ID") !== undefined && read(env, "MMS_CLIENT_SECRET") !== undefined;

const authUrlWithOAuth: ConfigRule = (env) =>
  hasOAuth(env) && read(env, "MMS_AUTH_URL") === undefined
    ? [
        {
          variable: "MMS_AUTH_URL",
          expected: "required with OAuth credentials: the token endpoint is {MMS_AUTH_URL}/oauth/token",
        },
      ]
    : [];

/** MMS_AUTH names a scheme none of whose credentials is set (one of a pair is the pair rule's). */
const schemeHasCredentials: ConfigRule = (env) => {
  const scheme = read(env, "MMS_AUTH");
  const none = (a: string, b: string) => read(env, a) === undefined && read(env, b) === undefined;
  if (scheme === "oauth" && none("MMS_CLIENT_ID", "MMS_CLIENT_SECRET"))
    return [{ variable: "MMS_CLIENT_ID", expected: "required when MMS_AUTH=oauth (with MMS_CLIENT_SECRET)" }];
  if (scheme === "hawk" && none("MMS_HAWK_ID", "MMS_HAWK_KEY"))
    return [{ variable: "MMS_HAWK_ID", expected: "required when MMS_AUTH=hawk (with MMS_HAWK_KEY)" }];
  return [];
};

/** Every rule, by name, in the order their problems are listed. */
export const CONFIG_RULES = {
  requiredBaseUrl,
  noAppendedPaths,
  noCredentialsInUrls,
  noReadmePlaceholders,
  pairedCredentials,
  someCredentials,
  authUrlWithOAuth,
  schemeHasCredentials,
} satisfies Record<string, ConfigRule>;

/** The problems of every rule. */
export function ruleProblems(env: Env): ConfigProblem[] {
  return Object.values(CONFIG_RULES).flatMap((rule) => rule(env));
}
