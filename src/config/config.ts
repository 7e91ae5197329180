/**
 * Environment → typed, validated configuration (interface.md §2). A pure function: it reads
 * only the `env` object it is given, never `.env`, and collects every problem into one
 * ConfigError naming each variable. Secrets are wrapped in `Secret`, so neither an error nor
 * `JSON.stringify(config)` can show them.
 */
import { isAbsolute } from "node:path";
import { z } from "zod";
import { ConfigError, type ConfigProblem } from "../errors/api-error.js";
import { Secret, SecretScope } from "../errors/secret.js";
import { type Env, withMisspellings } from "./names.js";
import { read, ruleProblems } from "./rules.js";
import { VARIABLE_NAMES } from "./variables.js";

export { checkEnvironment, configWarnings, type Env, type EnvironmentCheck, secretValues } from "./names.js";

/** The upstream settings of interface.md §2: also what a tenant's `upstream` takes (src/hosting/tenants.ts). */
export const UPSTREAM_VARIABLES = [
  "MMS_BASE_URL",
  "MMS_AUTH_URL",
  "MMS_HUB_URL",
  "MMS_CLIENT_ID",
  "MMS_CLIENT_SECRET",
  "MMS_HAWK_ID",
  "MMS_HAWK_KEY",
  "MMS_HAWK_APP",
  "MMS_HAWK_DLG",
  "MMS_HAWK_PAYLOAD_HASH",
  "MMS_AUTH",
  "MMS_TIMEOUT_MS",
  "MMS_MAX_RETRIES",
  "MMS_BUDGET_DISCOUNT",
  "MMS_BUDGET_LOOKBACK_DAYS",
  "MMS_RATE_LIMIT",
  "MMS_RATE_SHARE",
  "MMS_RATE_WINDOW_MS",
] as const;

/** Every MMS_* variable the server reads (the flag variables are read by src/main/cli.ts). */
export const KNOWN_VARIABLES: readonly string[] = VARIABLE_NAMES.filter((n) => n.startsWith("MMS_"));

/** LOG_LEVEL's values, most severe first (src/telemetry/logger.ts ranks them). */
export const LOG_LEVELS = ["error", "warn", "info", "debug"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type AuthScheme = "oauth" | "hawk";

export interface OAuthConfig {
  clientId: string;
  clientSecret: Secret;
  /** `{auth_url}`; the token endpoint is `{authUrl}/oauth/token`. */
  authUrl: string;
}

export interface HawkConfig {
  id: string;
  key: Secret;
  app: string | undefined;
  dlg: string | undefined;
  /** Send the payload hash on requests with a body (spec §5.2 recommends it). */
  payloadHash: boolean;
}

export interface Config {
  /** `{base_url}` of the main API, without a trailing slash. */
  baseUrl: string;
  /** `{hub_url}`, without a trailing slash; undefined when the hub cannot be reached (no OAuth). */
  hubUrl: string | undefined;
  /** Scheme for the main API. The hub always uses OAuth Bearer. */
  auth: AuthScheme;
  oauth: OAuthConfig | undefined;
  hawk: HawkConfig | undefined;
  timeoutMs: number;
  maxRetries: number;
  httpToken: Secret | undefined;
  logLevel: LogLevel;
  /**
   * How this upstream's budget `discount` reads (MMS_BUDGET_DISCOUNT): the API does not say, so
   * only an operator who knows can let results add net_total. Undefined: shown as given.
   */
  budgetDiscount?: "percent" | "amount" | undefined;
  /**
   * type_date "budget_created": how many days before `since` the work orders are read (a budget is
   * created on or after its work order; MMS_BUDGET_LOOKBACK_DAYS); unset: 365.
   */
  budgetLookbackDays?: number | undefined;
  /**
   * The company's request budget (interface.md §6c): `limit` is MMS_RATE_LIMIT (undefined: learnt
   * from the upstream; 0: no budget), `share` MMS_RATE_SHARE, `windowMs` MMS_RATE_WINDOW_MS.
   */
  rate?: { limit: number | undefined; share: number; windowMs: number } | undefined;
  /** How long an idempotency_key's first outcome is kept (interface.md §7), in seconds; loadConfig sets it (default 86400). */
  idempotencyTtlSeconds?: number | undefined;
  /** Requests one tenant may have in flight over HTTP (MCP_TENANT_MAX_IN_FLIGHT, interface.md §7b); loadConfig sets it (default 16). */
  tenantMaxInFlight?: number | undefined;
  /** Time a client has to send a request's headers, and then its body, over HTTP (MCP_HTTP_BODY_TIMEOUT_MS, interface.md §9b); loadConfig sets it (default 10000). */
  httpBodyTimeoutMs?: number | undefined;
  /**
   * The secrets of this configuration (its credentials, and the tokens its clients fetch): what the
   * answers of the server built from it are scrubbed with. loadConfig makes one per call, so each
   * tenant has its own; without it the process's scope is used.
   */
  secrets?: SecretScope | undefined;
  /** The deadline of every Redis command, round trip included (interface.md §7b), in ms; loadConfig sets it (default 1000). */
  redisTimeoutMs?: number | undefined;
  /** How long a finished MCP task's result is kept (MMS_TASK_TTL_SECONDS, interface.md §6c); loadConfig sets it (default 900). */
  taskTtlSeconds?: number | undefined;
  /** Reviews (interface.md §6c): the call's deadline, the snapshots' life and memory, bytes in flight; loadConfig sets it. */
  reviews?:
    | {
        deadlineMs: number;
        cacheSeconds: number;
        cacheMb: number;
        inflightMb: number;
        /** MMS_RESUME_KEY: seals resume tokens so that every replica accepts another's (interface.md §9b). */
        resumeKey?: string | undefined;
      }
    | undefined;
  /** Review history (interface.md §6e): days kept (0: off), MB per tenant, the state directory (undefined: the user's); loadConfig sets it. */
  history?: { days: number; mb: number; stateDir: string | undefined } | undefined;
}

const httpUrl = z
  .url({ protocol: /^https?$/, error: "expected an http:// or https:// URL" })
  .transform((u) => u.replace(/\/+$/, ""));

const intIn = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, { error: `expected a whole number from ${min} to ${max}` })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, { error: `expected at least ${min}` })
        .max(max, { error: `expected at most ${max}` }),
    );

/** A key shared by replicas (MMS_RESUME_KEY): long enough to be guessed by no one. */
const secretKey = z
  .string()
  .min(32, { error: "expected at least 32 characters (e.g. the output of `openssl rand -base64 48`)" });

/** The words a boolean variable takes, any case (the flag variables of src/main/cli.ts take the same). */
export const TRUE_WORDS = ["true", "1", "yes", "on"] as const;
export const FALSE_WORDS = ["false", "0", "no", "off"] as const;
/** The message of a boolean variable holding another word. */
export const BOOLEAN_EXPECTED = `expected true or false (also accepted: ${[...TRUE_WORDS.slice(1), ...FALSE_WORDS.slice(1)].join(", ")})`;

/** A boolean variable's value, or undefined for a word that is neither. */
export function parseBoolean(raw: string): boolean | undefined {
  const word = raw.trim().toLowerCase();
  if ((TRUE_WORDS as readonly string[]).includes(word)) return true;
  if ((FALSE_WORDS as readonly string[]).includes(word)) return false;
  return undefined;
}

const bool = z.string().transform((s, ctx) => {
  const value = parseBoolean(s);
  if (value === undefined) ctx.addIssue({ code: "custom", message: BOOLEAN_EXPECTED });
  return value ?? false;
});

type Parse = <T>(name: string, schema: z.ZodType<T>, fallback: T) => T;

/** Review history (interface.md §6e): days kept (0: off), MB per tenant, the state directory. */
function historyValues(parse: Parse) {
  return {
    days: parse("MMS_REVIEW_HISTORY_DAYS", intIn(0, 3650), 35),
    mb: parse("MMS_REVIEW_HISTORY_MB", intIn(1, 65_536), 64),
    stateDir: parse<string | undefined>(
      "MMS_STATE_DIR",
      z
        .string()
        .refine((v) => isAbsolute(v.trim()), {
          error: "expected an absolute directory path, e.g. /var/lib/maintenance-mcp",
        })
        .transform((v) => v.trim()),
      undefined,
    ),
  };
}

/** MMS_AUTH. */
export const authSchemeValue = z.enum(["oauth", "hawk"], { error: "expected oauth or hawk" });

/** MMS_BUDGET_DISCOUNT. */
export const discountValue = z.enum(["percent", "amount"], {
  error:
    "expected percent or amount: whether the API's budget discount is a percentage of items_total or an amount in the budget's currency (leave it unset when unsure)",
});

/** MMS_RATE_SHARE: a share of the company's request budget, from 0.01 to 1. */
export const rateShareValue = z
  .string()
  .regex(/^(0?\.\d+|1(\.0*)?|0)$/, { error: "expected a share from 0.01 to 1, e.g. 0.5" })
  .transform(Number)
  .pipe(z.number().min(0.01, { error: "expected at least 0.01 (0.5 leaves half to other integrations)" }));

/** LOG_LEVEL. */
export const logLevelValue = z.enum(LOG_LEVELS, { error: `expected one of ${LOG_LEVELS.join(", ")}` });

/** MCP_HTTP_TOKEN. */
export const httpTokenValue = z
  .string()
  .min(16, { error: "expected at least 16 characters (e.g. the output of `openssl rand -hex 32`)" });

/**
 * parse(name, schema, fallback): the variable's value through `schema`, or `fallback` when unset; a
 * bad value is pushed on `problems` as what was expected, never echoed (it may be a secret).
 */
export function valueReader(env: Env, problems: ConfigProblem[]) {
  return <T>(name: string, schema: z.ZodType<T>, fallback: T): T => {
    const raw = read(env, name);
    if (raw === undefined) return fallback;
    const result = schema.safeParse(raw);
    if (result.success) return result.data;
    // Never echo the value: the variable may hold a secret.
    problems.push({ variable: name, expected: result.error.issues[0]?.message ?? "invalid value" });
    return fallback;
  };
}

/** The typed values of the environment, each parsed on its own; a bad value is a problem naming its variable. */
function parseValues(env: Env) {
  const problems: ConfigProblem[] = [];
  const parse = valueReader(env, problems);
  const values = {
    baseUrl: parse<string | undefined>("MMS_BASE_URL", httpUrl, undefined),
    authUrl: parse<string | undefined>("MMS_AUTH_URL", httpUrl, undefined),
    hubUrl: parse<string | undefined>("MMS_HUB_URL", httpUrl, undefined),
    auth: parse<AuthScheme | undefined>("MMS_AUTH", authSchemeValue, undefined),
    payloadHash: parse("MMS_HAWK_PAYLOAD_HASH", bool, true),
    timeoutMs: parse("MMS_TIMEOUT_MS", intIn(100, 600_000), 30_000),
    maxRetries: parse("MMS_MAX_RETRIES", intIn(0, 10), 3),
    budgetDiscount: parse<"percent" | "amount" | undefined>("MMS_BUDGET_DISCOUNT", discountValue, undefined),
    idempotencyTtlSeconds: parse("MCP_IDEMPOTENCY_TTL_SECONDS", intIn(60, 30 * 86_400), 86_400),
    tenantMaxInFlight: parse("MCP_TENANT_MAX_IN_FLIGHT", intIn(1, 10_000), 16),
    httpBodyTimeoutMs: parse("MCP_HTTP_BODY_TIMEOUT_MS", intIn(100, 60_000), 10_000),
    redisTimeoutMs: parse("MCP_REDIS_TIMEOUT_MS", intIn(10, 60_000), 1000),
    taskTtlSeconds: parse("MMS_TASK_TTL_SECONDS", intIn(10, 7 * 86_400), 900),
    // Unset: undefined, and the budget query's own default (src/domain/period.ts) applies.
    budgetLookbackDays: parse<number | undefined>("MMS_BUDGET_LOOKBACK_DAYS", intIn(1, 36_500), undefined),
    rateLimit: parse<number | undefined>("MMS_RATE_LIMIT", intIn(0, 1_000_000), undefined),
    rateShare: parse("MMS_RATE_SHARE", rateShareValue, 0.5),
    rateWindowMs: parse("MMS_RATE_WINDOW_MS", intIn(100, 3_600_000), 60_000),
    reviews: {
      deadlineMs: parse("MMS_REVIEW_DEADLINE_MS", intIn(1_000, 3_600_000), 45_000),
      cacheSeconds: parse("MMS_REVIEW_CACHE_SECONDS", intIn(0, 86_400), 300),
      cacheMb: parse("MMS_REVIEW_CACHE_MB", intIn(0, 65_536), 64),
      inflightMb: parse("MMS_INFLIGHT_MB", intIn(1, 65_536), 64),
      resumeKey: parse<string | undefined>("MMS_RESUME_KEY", secretKey, undefined),
    },
    history: historyValues(parse),
    logLevel: parse<LogLevel>("LOG_LEVEL", logLevelValue, "info"),
    httpToken: parse<string | undefined>("MCP_HTTP_TOKEN", httpTokenValue, undefined),
  };
  return { values, problems };
}

/**
 * Parse `env` into a Config: every value parsed (parseValues), every rule of rules.ts checked, each
 * problem with the misspelt names of its variable that `env` sets. Throws ConfigError listing every
 * problem at once.
 */
export function loadConfig(env: Env): Config {
  const { values, problems } = parseValues(env);
  const all = withMisspellings([...problems, ...ruleProblems(env)], env);
  if (all.length > 0) throw new ConfigError(all);

  const secrets = new SecretScope();
  const clientId = read(env, "MMS_CLIENT_ID");
  const clientSecret = read(env, "MMS_CLIENT_SECRET");
  const hawkId = read(env, "MMS_HAWK_ID");
  const hawkKey = read(env, "MMS_HAWK_KEY");
  const oauth: OAuthConfig | undefined =
    clientId !== undefined && clientSecret !== undefined && values.authUrl !== undefined
      ? { clientId, clientSecret: new Secret(clientSecret, secrets), authUrl: values.authUrl }
      : undefined;
  const hawk: HawkConfig | undefined =
    hawkId !== undefined && hawkKey !== undefined
      ? {
          id: hawkId,
          key: new Secret(hawkKey, secrets),
          app: read(env, "MMS_HAWK_APP"),
          dlg: read(env, "MMS_HAWK_DLG"),
          payloadHash: values.payloadHash,
        }
      : undefined;
  const { budgetDiscount, httpToken } = values;
  return {
    baseUrl: values.baseUrl!,
    // The hub lives on the auth host in deployments of this API family (upstream-notes "Hosts").
    hubUrl: oauth ? (values.hubUrl ?? values.authUrl) : undefined,
    auth: values.auth ?? (oauth || !hawk ? "oauth" : "hawk"),
    oauth,
    hawk,
    timeoutMs: values.timeoutMs,
    maxRetries: values.maxRetries,
    httpToken: httpToken === undefined ? undefined : new Secret(httpToken, secrets),
    logLevel: values.logLevel,
    idempotencyTtlSeconds: values.idempotencyTtlSeconds,
    tenantMaxInFlight: values.tenantMaxInFlight,
    httpBodyTimeoutMs: values.httpBodyTimeoutMs,
    secrets,
    ...(budgetDiscount === undefined ? {} : { budgetDiscount }),
    ...(values.budgetLookbackDays === undefined ? {} : { budgetLookbackDays: values.budgetLookbackDays }),
    rate: { limit: values.rateLimit, share: values.rateShare, windowMs: values.rateWindowMs },
    redisTimeoutMs: values.redisTimeoutMs,
    taskTtlSeconds: values.taskTtlSeconds,
    reviews: values.reviews,
    history: values.history,
  };
}

/** The server as an OAuth 2.1 resource server (interface.md §7c): MCP_OAUTH_* and MCP_PUBLIC_URL. */
export interface ResourceServerConfig {
  /** MCP_OAUTH_ISSUER, exactly as given: the issuer tokens must name. */
  issuer: string;
  /** MCP_PUBLIC_URL, byte for byte: the resource identifier and the audience tokens must carry. */
  publicUrl: string;
  /** MCP_OAUTH_TENANT_CLAIM: with a tenants file, the claim whose value names the tenant. */
  tenantClaim: string | undefined;
  /** MCP_OAUTH_INTROSPECTION_CLIENT_ID/_SECRET: introspection (RFC 7662) of opaque tokens. */
  introspection: { clientId: string; clientSecret: Secret } | undefined;
}

const OAUTH_VARIABLES = [
  "MCP_PUBLIC_URL",
  "MCP_OAUTH_TENANT_CLAIM",
  "MCP_OAUTH_INTROSPECTION_CLIENT_ID",
  "MCP_OAUTH_INTROSPECTION_CLIENT_SECRET",
] as const;

/** Why `raw` is not a usable public URL or issuer (https, or http on loopback; no query or fragment). */
function oauthUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "expected an absolute https:// URL";
  }
  const loopback = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback))
    return "expected an https:// URL (http:// only on localhost)";
  if (url.search !== "" || url.hash !== "") return "expected a URL without ?query or #fragment";
  return undefined;
}

/**
 * MCP_OAUTH_ISSUER and its companions, or undefined when it is not set (static tokens only).
 * Throws one ConfigError naming every problem; never echoes a value.
 */
export function loadResourceServerConfig(env: Env): ResourceServerConfig | undefined {
  const issuer = read(env, "MCP_OAUTH_ISSUER");
  const problems: ConfigProblem[] = [];
  if (issuer === undefined) {
    for (const name of OAUTH_VARIABLES)
      if (read(env, name) !== undefined)
        problems.push({
          variable: name,
          expected: "only used with MCP_OAUTH_ISSUER: set it, or remove this",
        });
    if (problems.length > 0) throw new ConfigError(problems);
    return undefined;
  }
  const publicUrl = read(env, "MCP_PUBLIC_URL");
  const issuerProblem = oauthUrlProblem(issuer);
  if (issuerProblem) problems.push({ variable: "MCP_OAUTH_ISSUER", expected: issuerProblem });
  if (publicUrl === undefined)
    problems.push({
      variable: "MCP_PUBLIC_URL",
      expected:
        "required with MCP_OAUTH_ISSUER: the MCP endpoint exactly as users type it, e.g. https://mcp.example.com/mcp",
    });
  else {
    const publicProblem = oauthUrlProblem(publicUrl);
    if (publicProblem) problems.push({ variable: "MCP_PUBLIC_URL", expected: publicProblem });
  }
  const tenantClaim = read(env, "MCP_OAUTH_TENANT_CLAIM");
  if (tenantClaim !== undefined && !/^[A-Za-z0-9_:./-]{1,128}$/.test(tenantClaim))
    problems.push({ variable: "MCP_OAUTH_TENANT_CLAIM", expected: "expected a claim name, e.g. org_id" });
  const clientId = read(env, "MCP_OAUTH_INTROSPECTION_CLIENT_ID");
  const clientSecret = read(env, "MCP_OAUTH_INTROSPECTION_CLIENT_SECRET");
  if ((clientId === undefined) !== (clientSecret === undefined))
    problems.push({
      variable:
        clientId === undefined
          ? "MCP_OAUTH_INTROSPECTION_CLIENT_ID"
          : "MCP_OAUTH_INTROSPECTION_CLIENT_SECRET",
      expected: "required with the other MCP_OAUTH_INTROSPECTION_* variable",
    });
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    issuer,
    publicUrl: publicUrl!,
    tenantClaim,
    introspection:
      clientId === undefined || clientSecret === undefined
        ? undefined
        : { clientId, clientSecret: new Secret(clientSecret) },
  };
}
