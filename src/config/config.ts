/**
 * Environment → typed, validated configuration (interface.md §2). A pure function: it reads
 * only the `env` object it is given, never `.env`, and collects every problem into one
 * ConfigError naming each variable. Secrets are wrapped in `Secret`, so neither an error nor
 * `JSON.stringify(config)` can show them.
 */
import { z } from "zod";
import { ConfigError, type ConfigProblem } from "../errors/api-error.js";
import { Secret, SecretScope } from "../errors/secret.js";
import { closest, editDistance, normalise } from "./suggest.js";
import { SAFETY_VARIABLES, SECRET_VARIABLES, VARIABLE_NAMES, type Variable } from "./variables.js";

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
  "MMS_RATE_LIMIT",
  "MMS_RATE_SHARE",
  "MMS_RATE_WINDOW_MS",
] as const;

/** Every MMS_* variable the server reads (the flag variables are read by src/main/cli.ts). */
export const KNOWN_VARIABLES: readonly string[] = VARIABLE_NAMES.filter((n) => n.startsWith("MMS_"));

/** LOG_LEVEL's values, most severe first (src/telemetry/logger.ts ranks them). */
export const LOG_LEVELS = ["error", "warn", "info", "debug"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `${user_config.x}` left as is: some MCP hosts keep the placeholder of an optional setting left empty. */
const PLACEHOLDER = /^\$\{[^}]*\}$/;

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
   * The company's request budget (interface.md §6c): `limit` is MMS_RATE_LIMIT (undefined: learnt
   * from the upstream; 0: no budget), `share` MMS_RATE_SHARE, `windowMs` MMS_RATE_WINDOW_MS.
   */
  rate?: { limit: number | undefined; share: number; windowMs: number } | undefined;
  /** How long an idempotency_key's first outcome is kept (interface.md §7), in seconds; loadConfig sets it (default 86400). */
  idempotencyTtlSeconds?: number | undefined;
  /** Requests one tenant may have in flight over HTTP (MCP_TENANT_MAX_IN_FLIGHT, interface.md §7b); loadConfig sets it (default 16). */
  tenantMaxInFlight?: number | undefined;
  /**
   * The secrets of this configuration (its credentials, and the tokens its clients fetch): what the
   * answers of the server built from it are scrubbed with. loadConfig makes one per call, so each
   * tenant has its own; without it the process's scope is used.
   */
  secrets?: SecretScope | undefined;
  /** The deadline of every Redis command, round trip included (interface.md §7b), in ms; loadConfig sets it (default 1000). */
  redisTimeoutMs?: number | undefined;
  /** Reviews (interface.md §6c): the call's deadline, the snapshots' life and memory, bytes in flight; loadConfig sets it. */
  reviews?: { deadlineMs: number; cacheSeconds: number; cacheMb: number; inflightMb: number } | undefined;
}

export type Env = Record<string, string | undefined>;

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

const bool = z
  .string()
  .transform((s) => s.toLowerCase())
  .pipe(z.enum(["true", "false", "1", "0", "yes", "no"], { error: "expected true or false" }))
  .transform((s) => s === "true" || s === "1" || s === "yes");

function read(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === "" || PLACEHOLDER.test(v) ? undefined : v;
}

/** What the start-up check of the environment found: problems stop the start, warnings are logged. */
export interface EnvironmentCheck {
  problems: ConfigProblem[];
  warnings: string[];
}

/**
 * Whether a name looks meant for this server: it starts with MMS or MCP (any case, with or without
 * the underscore), or its first part is one edit from either (MSS_, MPC_, MM_). Other software's
 * variables (IS_SANDBOX, HTTP_TOKEN) are never taken for ours.
 */
function looksOurs(name: string): boolean {
  const upper = name.toUpperCase();
  if (upper.startsWith("MMS") || upper.startsWith("MCP")) return true;
  const end = upper.search(/[_-]/);
  const head = end === -1 ? upper : upper.slice(0, end);
  // Runs for every variable of the environment at start: no allocation on the common path.
  return head.length >= 2 && head.length <= 4 && (withinOneEdit(head, "MMS") || withinOneEdit(head, "MCP"));
}

/** Whether `a` is at most one edit (insertion, deletion, substitution, adjacent swap) from `b`. */
function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  if (a.length === b.length) {
    const diff: number[] = [];
    for (let i = 0; i < a.length && diff.length <= 2; i++) if (a[i] !== b[i]) diff.push(i);
    if (diff.length <= 1) return true;
    const [i, j] = diff as [number, number];
    return diff.length === 2 && j === i + 1 && a[i] === b[j] && a[j] === b[i];
  }
  const [long, short] = a.length > b.length ? [a, b] : [b, a];
  let i = 0;
  while (i < short.length && long[i] === short[i]) i++;
  return long.slice(i + 1) === short.slice(i);
}

/**
 * The safety variable an unknown name is a near-miss of, if any: a name that looks ours and is
 * the same up to case, `_` and `-`, or a few edits away (a third of its length, at most 3).
 */
function nearSafetyVariable(name: string): Variable | undefined {
  if (!looksOurs(name)) return undefined;
  const needle = normalise(name);
  const limit = Math.min(3, Math.max(1, Math.floor(needle.length / 3)));
  let best: { variable: Variable; distance: number } | undefined;
  for (const variable of SAFETY_VARIABLES) {
    const distance = editDistance(needle, normalise(variable.name));
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { variable, distance };
  }
  return best?.variable;
}

/**
 * The start-up check of the environment's names (interface.md §1). A near-miss of a safety
 * variable (MMS_READONLY, MMS_READ_0NLY, mms_read_only, MCP_HTTP_TOKNE) that holds a value is a
 * problem: ignored, it would leave the server less safe than asked. An unknown MMS_* name, or an
 * MCP_* name close to a known one, is a warning with the closest known name; so is a placeholder
 * left unsubstituted. `caseInsensitive`: the platform's environment ignores case (Windows), so a
 * name that differs only in case is the variable itself. Never quotes a value.
 */
export function checkEnvironment(env: Env, options: { caseInsensitive?: boolean } = {}): EnvironmentCheck {
  const problems: ConfigProblem[] = [];
  const warnings: string[] = [];
  const known = new Set(VARIABLE_NAMES);
  for (const name of Object.keys(env).sort()) {
    const value = env[name]?.trim() ?? "";
    if (known.has(name) || (options.caseInsensitive && known.has(name.toUpperCase()))) {
      if (PLACEHOLDER.test(value))
        warnings.push(`${name} holds an unsubstituted placeholder and is treated as not set`);
      continue;
    }
    const safety = nearSafetyVariable(name);
    if (safety !== undefined && value !== "" && !PLACEHOLDER.test(value)) {
      problems.push({
        variable: name,
        expected: `not a variable this server reads; did you mean ${safety.name}? Ignored, ${safety.ifMissed}, so the server does not start: rename it to ${safety.name} (or remove it)`,
      });
      continue;
    }
    const lower = name.toLowerCase();
    if (!lower.startsWith("mms_") && !lower.startsWith("mcp_")) continue;
    const guess = closest(name, VARIABLE_NAMES);
    if (lower.startsWith("mms_") || guess !== undefined) {
      warnings.push(
        `${name} is not a variable this server reads and is ignored${guess ? `; did you mean ${guess}?` : ""} (see README, "Configuration")`,
      );
    }
  }
  return { problems, warnings };
}

/** The warnings of checkEnvironment (a misspelt name, an unsubstituted placeholder). */
export function configWarnings(env: Env): string[] {
  return checkEnvironment(env).warnings;
}

/**
 * The values in `env` that are credentials: those of the secret variables and of names close to
 * one (a misspelt MMS_CLIENT_SCRET still holds the secret). The caller wraps them in `Secret` so
 * that every text is scrubbed of them even when the configuration is refused.
 */
export function secretValues(env: Env): string[] {
  const values: string[] = [];
  for (const [name, raw] of Object.entries(env)) {
    const value = raw?.trim();
    if (value === undefined || value === "" || PLACEHOLDER.test(value)) continue;
    const secret = VARIABLE_NAMES.includes(name)
      ? SECRET_VARIABLES.includes(name)
      : looksOurs(name) && closest(name, SECRET_VARIABLES) !== undefined;
    if (secret) values.push(value);
  }
  return values;
}

/** A URL that includes the path the server appends itself, e.g. MMS_AUTH_URL ending in /oauth/token. */
function suffixProblem(name: string, url: string | undefined, suffix: RegExp, what: string): ConfigProblem[] {
  if (url === undefined || !suffix.test(url)) return [];
  return [
    {
      variable: name,
      expected: `should be the origin, without ${what}; the server appends that path: use ${url.replace(suffix, "")}`,
    },
  ];
}

/**
 * Parse `env` into a Config. Throws ConfigError listing every problem at once.
 */
export function loadConfig(env: Env): Config {
  const problems: ConfigProblem[] = [];

  const parse = <T>(name: string, schema: z.ZodType<T>, fallback: T): T => {
    const raw = read(env, name);
    if (raw === undefined) return fallback;
    const result = schema.safeParse(raw);
    if (result.success) return result.data;
    // Never echo the value: the variable may hold a secret.
    problems.push({ variable: name, expected: result.error.issues[0]?.message ?? "invalid value" });
    return fallback;
  };

  const baseUrl = parse<string | undefined>("MMS_BASE_URL", httpUrl, undefined);
  if (read(env, "MMS_BASE_URL") === undefined) {
    problems.push({
      variable: "MMS_BASE_URL",
      expected: "required: base URL of the main API, e.g. https://host/api",
    });
  }
  const authUrl = parse<string | undefined>("MMS_AUTH_URL", httpUrl, undefined);
  const hubUrlRaw = parse<string | undefined>("MMS_HUB_URL", httpUrl, undefined);
  problems.push(
    ...suffixProblem("MMS_AUTH_URL", authUrl, /\/oauth(\/token)?$/i, "/oauth/token"),
    ...suffixProblem("MMS_HUB_URL", hubUrlRaw, /\/hub(\/api(\/v1(\/dags)?)?)?$/i, "/hub/api/v1/dags"),
  );

  const clientId = read(env, "MMS_CLIENT_ID");
  const clientSecret = read(env, "MMS_CLIENT_SECRET");
  const hawkId = read(env, "MMS_HAWK_ID");
  const hawkKey = read(env, "MMS_HAWK_KEY");
  const hawkApp = read(env, "MMS_HAWK_APP");
  const hawkDlg = read(env, "MMS_HAWK_DLG");

  const pair = (a: string, av: unknown, b: string, bv: unknown) => {
    if (av !== undefined && bv === undefined)
      problems.push({ variable: b, expected: `required when ${a} is set` });
    if (bv !== undefined && av === undefined)
      problems.push({ variable: a, expected: `required when ${b} is set` });
  };
  pair("MMS_CLIENT_ID", clientId, "MMS_CLIENT_SECRET", clientSecret);
  pair("MMS_HAWK_ID", hawkId, "MMS_HAWK_KEY", hawkKey);
  if (hawkDlg !== undefined && hawkApp === undefined) {
    problems.push({
      variable: "MMS_HAWK_APP",
      expected: "required when MMS_HAWK_DLG is set (Hawk sends dlg only with app)",
    });
  }

  const hasOAuth = clientId !== undefined && clientSecret !== undefined;
  const hasHawk = hawkId !== undefined && hawkKey !== undefined;
  if (
    !hasOAuth &&
    !hasHawk &&
    clientId === undefined &&
    clientSecret === undefined &&
    hawkId === undefined &&
    hawkKey === undefined
  ) {
    problems.push({
      variable: "MMS_CLIENT_ID/MMS_CLIENT_SECRET or MMS_HAWK_ID/MMS_HAWK_KEY",
      expected: "required: OAuth client credentials, Hawk credentials, or both",
    });
  }
  if (hasOAuth && authUrl === undefined && read(env, "MMS_AUTH_URL") === undefined) {
    problems.push({
      variable: "MMS_AUTH_URL",
      expected: "required with OAuth credentials: the token endpoint is {MMS_AUTH_URL}/oauth/token",
    });
  }

  const auth = parse<AuthScheme>(
    "MMS_AUTH",
    z.enum(["oauth", "hawk"], { error: "expected oauth or hawk" }),
    hasOAuth || !hasHawk ? "oauth" : "hawk",
  );
  if (
    read(env, "MMS_AUTH") === "oauth" &&
    !hasOAuth &&
    clientId === undefined &&
    clientSecret === undefined
  ) {
    problems.push({
      variable: "MMS_CLIENT_ID",
      expected: "required when MMS_AUTH=oauth (with MMS_CLIENT_SECRET)",
    });
  }
  if (read(env, "MMS_AUTH") === "hawk" && !hasHawk && hawkId === undefined && hawkKey === undefined) {
    problems.push({ variable: "MMS_HAWK_ID", expected: "required when MMS_AUTH=hawk (with MMS_HAWK_KEY)" });
  }

  const payloadHash = parse("MMS_HAWK_PAYLOAD_HASH", bool, true);
  const timeoutMs = parse("MMS_TIMEOUT_MS", intIn(100, 600_000), 30_000);
  const maxRetries = parse("MMS_MAX_RETRIES", intIn(0, 10), 3);
  const budgetDiscount = parse<"percent" | "amount" | undefined>(
    "MMS_BUDGET_DISCOUNT",
    z.enum(["percent", "amount"], {
      error:
        "expected percent or amount: whether the API's budget discount is a percentage of items_total or an amount in the budget's currency (leave it unset when unsure)",
    }),
    undefined,
  );
  const rateLimit = parse<number | undefined>("MMS_RATE_LIMIT", intIn(0, 1_000_000), undefined);
  const rateShare = parse(
    "MMS_RATE_SHARE",
    z
      .string()
      .regex(/^(0?\.\d+|1(\.0*)?|0)$/, { error: "expected a share from 0.01 to 1, e.g. 0.5" })
      .transform(Number)
      .pipe(
        z.number().min(0.01, { error: "expected at least 0.01 (0.5 leaves half to other integrations)" }),
      ),
    0.5,
  );
  const rateWindowMs = parse("MMS_RATE_WINDOW_MS", intIn(100, 3_600_000), 60_000);
  const idempotencyTtlSeconds = parse("MCP_IDEMPOTENCY_TTL_SECONDS", intIn(60, 30 * 86_400), 86_400);
  const tenantMaxInFlight = parse("MCP_TENANT_MAX_IN_FLIGHT", intIn(1, 10_000), 16);
  const redisTimeoutMs = parse("MCP_REDIS_TIMEOUT_MS", intIn(10, 60_000), 1000);
  const reviews = {
    deadlineMs: parse("MMS_REVIEW_DEADLINE_MS", intIn(1_000, 3_600_000), 45_000),
    cacheSeconds: parse("MMS_REVIEW_CACHE_SECONDS", intIn(0, 86_400), 300),
    cacheMb: parse("MMS_REVIEW_CACHE_MB", intIn(0, 65_536), 64),
    inflightMb: parse("MMS_INFLIGHT_MB", intIn(1, 65_536), 64),
  };
  const logLevel = parse<LogLevel>(
    "LOG_LEVEL",
    z.enum(LOG_LEVELS, { error: `expected one of ${LOG_LEVELS.join(", ")}` }),
    "info",
  );
  const httpTokenRaw = parse<string | undefined>(
    "MCP_HTTP_TOKEN",
    z
      .string()
      .min(16, { error: "expected at least 16 characters (e.g. the output of `openssl rand -hex 32`)" }),
    undefined,
  );

  if (problems.length > 0) throw new ConfigError(problems);

  const secrets = new SecretScope();
  const oauth: OAuthConfig | undefined =
    hasOAuth && authUrl !== undefined
      ? { clientId, clientSecret: new Secret(clientSecret, secrets), authUrl }
      : undefined;
  return {
    baseUrl: baseUrl!,
    // The hub lives on the auth host in deployments of this API family (upstream-notes "Hosts").
    hubUrl: oauth ? (hubUrlRaw ?? authUrl) : undefined,
    auth,
    oauth,
    hawk: hasHawk
      ? { id: hawkId, key: new Secret(hawkKey, secrets), app: hawkApp, dlg: hawkDlg, payloadHash }
      : undefined,
    timeoutMs,
    maxRetries,
    httpToken: httpTokenRaw === undefined ? undefined : new Secret(httpTokenRaw, secrets),
    logLevel,
    idempotencyTtlSeconds,
    tenantMaxInFlight,
    secrets,
    ...(budgetDiscount === undefined ? {} : { budgetDiscount }),
    rate: { limit: rateLimit, share: rateShare, windowMs: rateWindowMs },
    redisTimeoutMs,
    reviews,
  };
}
