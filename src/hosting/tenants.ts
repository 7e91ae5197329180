/**
 * MCP_TENANTS_FILE (interface.md §7): one JSON file mapping the SHA-256 of each HTTP bearer token to a
 * tenant and its upstream settings. Each tenant's `upstream` is validated by `loadConfig`, so the rules
 * of the MMS_* variables live in one place. Every problem of every tenant is collected into one ConfigError.
 * The file is read once, at start; a change takes effect at the next start.
 * IMPORTANT: secrets are references ({env} or {file}) resolved here; no message ever contains a value
 * (not even a reference, nor the name of an unknown field, where a misplaced secret may sit): it names
 * the tenant (by index, and by name when the name is valid) and the field.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { z } from "zod";
import { type Config, type Env, loadConfig, UPSTREAM_VARIABLES } from "../config/config.js";
import { ConfigError, type ConfigProblem } from "../errors/api-error.js";

export interface Tenant {
  /** Safe to log, to put in a trace and in a Redis key: letters, digits, `.`, `_`, `-`. */
  readonly name: string;
  /** The upstream configuration, exactly as `loadConfig` builds it from MMS_* variables. */
  readonly config: Config;
  /** `read_only: true` offers this tenant only the readers. */
  readonly readOnly: boolean;
  /** SHA-256 of the bearer token (32 bytes); compared with `resolveTenant` only. */
  readonly tokenSha256: Buffer;
  /** The value of the OAuth tenant claim (MCP_OAUTH_TENANT_CLAIM) that names this tenant; default its name. */
  readonly oauthTenant: string;
}

/** Reads a file as UTF-8 text; injectable for tests. */
export type ReadFile = (path: string) => string;

const SECRET_NAMES = ["MMS_CLIENT_SECRET", "MMS_HAWK_KEY"] as const;
type SecretName = (typeof SECRET_NAMES)[number];
/** Every other upstream setting, as config.ts lists them (one list, one place). */
const PLAIN_NAMES = UPSTREAM_VARIABLES.filter(
  (n): n is Exclude<(typeof UPSTREAM_VARIABLES)[number], SecretName> =>
    !(SECRET_NAMES as readonly string[]).includes(n),
);

/** "an unknown field" / "2 unknown fields": never the names themselves (a misplaced secret may be one). */
const unknownNames = (count: number, what: string) =>
  count === 1 ? `an unknown ${what}` : `${count} unknown ${what}s`;

const TENANT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const secretRef = z.union(
  [
    z.strictObject({ env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/) }),
    z.strictObject({ file: z.string().min(1) }),
  ],
  {
    error:
      'expected a reference { "env": "VARIABLE" } or { "file": "/path/to/file" }; a secret is never written inline',
  },
);
const plainValue = z
  .union([z.string(), z.number(), z.boolean()], { error: "expected a string, number or boolean" })
  .transform(String);

const upstreamSchema = z.strictObject(
  {
    ...Object.fromEntries(SECRET_NAMES.map((n) => [n, secretRef.optional()])),
    ...Object.fromEntries(PLAIN_NAMES.map((n) => [n, plainValue.optional()])),
  } as Record<(typeof SECRET_NAMES)[number], z.ZodOptional<typeof secretRef>> &
    Record<(typeof PLAIN_NAMES)[number], z.ZodOptional<typeof plainValue>>,
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `${unknownNames(issue.keys.length, "setting")}: expected only the MMS_* names of docs/configuration.md (${[...PLAIN_NAMES, ...SECRET_NAMES].join(", ")})`
        : "expected an object of MMS_* settings",
  },
);

const tenantSchema = z.strictObject(
  {
    name: z.string({ error: "expected a string" }).regex(TENANT_NAME, {
      error: "expected 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
    }),
    token_sha256: z.string({ error: "expected a string" }).regex(/^[0-9a-f]{64}$/, {
      error:
        'expected 64 lowercase hex digits: the SHA-256 of the bearer token, e.g. `printf %s "$TOKEN" | sha256sum`',
    }),
    upstream: upstreamSchema,
    read_only: z.boolean({ error: "expected true or false" }).default(false),
    oauth_tenant: z
      .string({ error: "expected a string" })
      .min(1, { error: "expected the claim value that names this tenant" })
      .max(256, { error: "expected at most 256 characters" })
      .optional(),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `${unknownNames(issue.keys.length, "field")}: expected only name, token_sha256, upstream, read_only, oauth_tenant`
        : "expected an object { name, token_sha256, upstream, read_only, oauth_tenant }",
  },
);

const fileSchema = z.strictObject(
  {
    tenants: z
      .array(z.unknown(), { error: "expected an array of tenants" })
      .min(1, "expected at least one tenant"),
  },
  { error: 'expected an object { "tenants": [ ... ] }' },
);

/** Where a problem is: `MCP_TENANTS_FILE tenants[1] "plant-north" upstream.MMS_CLIENT_SECRET`. */
function where(index: number, name: string | undefined, field: string): string {
  const who = name === undefined ? `tenants[${index}]` : `tenants[${index}] "${name}"`;
  return `MCP_TENANTS_FILE ${who} ${field}`;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; expected: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    // IMPORTANT: V8's message quotes the text around the fault, which may be an inline secret.
    const message = String((error as Error).message);
    const pos = /position (\d+)/.exec(message)?.[1];
    if (pos === undefined)
      return {
        ok: false,
        expected: /end of JSON/.test(message)
          ? "not valid JSON: the text ends early"
          : "not valid JSON: an unquoted value or a stray character",
      };
    const before = text.slice(0, Number(pos)).split("\n");
    return {
      ok: false,
      expected: `not valid JSON: a syntax error at line ${before.length}, column ${before.at(-1)!.length + 1}`,
    };
  }
}

/** Where a key appears twice in one object: the path of that object and the repeated key. */
interface DuplicateKey {
  path: (string | number)[];
  key: string;
}

/**
 * Every key repeated within one object, at any depth, of a text JSON.parse accepted (it keeps the
 * last value silently: a second `read_only` would win). A small scanner rather than a parser
 * dependency: the text is already known to be valid JSON, so only strings and nesting need tracking.
 */
export function duplicateKeys(text: string): DuplicateKey[] {
  type Frame = { keys: Set<string> | undefined; at: string | number; expectKey: boolean };
  const stack: Frame[] = [];
  const found: DuplicateKey[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = stack.at(-1);
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      if (top?.keys !== undefined && top.expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) found.push({ path: stack.slice(0, -1).map((f) => f.at), key });
        top.keys.add(key);
        top.at = key;
        top.expectKey = false;
      }
      i = end;
    } else if (c === "{" || c === "[") {
      stack.push({ keys: c === "{" ? new Set() : undefined, at: c === "{" ? "" : 0, expectKey: c === "{" });
    } else if (c === "}" || c === "]") {
      stack.pop();
    } else if (c === "," && top !== undefined) {
      if (top.keys === undefined) top.at = (top.at as number) + 1;
      else top.expectKey = true;
    }
  }
  return found;
}

/** Field names a message may quote: the format's own. */
const KNOWN_FIELDS = new Set<string>([
  "tenants",
  "name",
  "token_sha256",
  "upstream",
  "read_only",
  "oauth_tenant",
  "env",
  "file",
  ...UPSTREAM_VARIABLES,
]);

const fieldLabel = (key: string | number) =>
  typeof key === "number" ? `[${key}]` : KNOWN_FIELDS.has(key) ? key : "(unknown field)";

/** A problem per repeated key, naming the tenant and the field (an unknown key is not quoted). */
function duplicateProblems(duplicates: DuplicateKey[], value: unknown): ConfigProblem[] {
  const tenants = (value as { tenants?: unknown } | null)?.tenants;
  return duplicates.map(({ path, key }) => {
    const repeated = KNOWN_FIELDS.has(key) ? `"${key}"` : "a field";
    const expected = `each key once: ${repeated} appears twice in this object, and JSON would silently keep only the last; remove one`;
    const [top, index, ...rest] = path;
    if (top !== "tenants" || typeof index !== "number") {
      const at = path.map(fieldLabel).join(".");
      return { variable: `MCP_TENANTS_FILE${at === "" ? "" : ` ${at}`}`, expected };
    }
    const name = Array.isArray(tenants) ? (tenants[index] as { name?: unknown } | null)?.name : undefined;
    const label = typeof name === "string" && TENANT_NAME.test(name) ? name : undefined;
    return { variable: where(index, label, rest.map(fieldLabel).join(".") || "(tenant)"), expected };
  });
}

function resolveSecret(
  ref: { env: string } | { file: string },
  env: Env,
  baseDir: string,
  readFile: ReadFile,
): { value: string } | { expected: string } {
  // The reference is not quoted either: a secret pasted in its place would be echoed.
  if ("env" in ref) {
    const value = env[ref.env];
    return value === undefined || value.trim() === ""
      ? {
          expected:
            'the environment variable named by "env" is not set or empty; set it where the server starts',
        }
      : { value };
  }
  const path = isAbsolute(ref.file) ? ref.file : resolve(baseDir, ref.file);
  let value: string;
  try {
    value = readFile(path);
  } catch (error) {
    return {
      expected: `cannot read the file named by "file" (${(error as NodeJS.ErrnoException).code ?? "error"}); a relative path is relative to the tenants file`,
    };
  }
  // A file written by `echo` ends with a newline that is not part of the secret.
  value = value.replace(/\r?\n$/, "");
  return value === "" ? { expected: 'the file named by "file" is empty' } : { value };
}

type Upstream = z.output<typeof upstreamSchema>;

/**
 * The upstream's settings as loadConfig reads them, each secret reference resolved. A reference that
 * does not resolve is a problem and gets a stand-in value, so that loadConfig still reports the
 * tenant's other problems (a pair it completes is not reported missing).
 */
function resolveUpstream(
  upstream: Upstream,
  env: Env,
  baseDir: string,
  readFile: ReadFile,
  problem: (field: string, expected: string) => void,
): { settings: Env; unresolved: Set<string> } {
  const settings: Env = {};
  const unresolved = new Set<string>();
  for (const [key, value] of Object.entries(upstream)) {
    if (value === undefined) continue;
    if (typeof value === "string") {
      settings[key] = value;
      continue;
    }
    const secret = resolveSecret(value, env, baseDir, readFile);
    if ("value" in secret) settings[key] = secret.value;
    else {
      unresolved.add(key);
      settings[key] = "unresolved-reference";
      problem(`upstream.${key}`, secret.expected);
    }
  }
  return { settings, unresolved };
}

/** loadConfig of the upstream's settings, its problems reported but those of an unresolved reference. */
function upstreamConfig(
  settings: Env,
  unresolved: Set<string>,
  problem: (field: string, expected: string) => void,
): Config | undefined {
  try {
    return loadConfig(settings);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const p of error.problems)
      if (!unresolved.has(p.variable)) problem(`upstream.${p.variable}`, p.expected);
    return undefined;
  }
}

/**
 * One tenant of the file, or undefined with its problems pushed: every problem of the tenant at once
 * (its fields, its secret references, its upstream's settings), whichever fails first.
 */
function loadTenant(
  raw: unknown,
  index: number,
  env: Env,
  baseDir: string,
  readFile: ReadFile,
  problems: ConfigProblem[],
): Tenant | undefined {
  const rawName = (raw as { name?: unknown } | null)?.name;
  // Only a valid name is quoted: anything else may be a value pasted in the wrong place.
  const label = typeof rawName === "string" && TENANT_NAME.test(rawName) ? rawName : undefined;
  const problem = (field: string, expected: string) =>
    problems.push({ variable: where(index, label, field), expected });
  const parsed = tenantSchema.safeParse(raw);
  if (!parsed.success)
    for (const issue of parsed.error.issues) problem(issue.path.join(".") || "(tenant)", issue.message);
  // A tenant whose other fields fail still has its upstream checked, so its problems come together.
  const upstream = parsed.success
    ? parsed.data.upstream
    : upstreamSchema.safeParse((raw as { upstream?: unknown } | null)?.upstream).data;
  if (upstream === undefined) return undefined;
  const { settings, unresolved } = resolveUpstream(upstream, env, baseDir, readFile, problem);
  const config = upstreamConfig(settings, unresolved, problem);
  if (!parsed.success || unresolved.size > 0 || config === undefined) return undefined;
  const t = parsed.data;
  return {
    name: t.name,
    config,
    readOnly: t.read_only,
    tokenSha256: Buffer.from(t.token_sha256, "hex"),
    oauthTenant: t.oauth_tenant ?? t.name,
  };
}

function sameNameOrToken(tenants: Tenant[], problems: ConfigProblem[]): void {
  const byName = new Map<string, number>();
  const byToken = new Map<string, string>();
  const byClaim = new Map<string, string>();
  tenants.forEach((t, i) => {
    const firstClaim = byClaim.get(t.oauthTenant);
    if (firstClaim === undefined) byClaim.set(t.oauthTenant, t.name);
    // A repeated name is its own problem (below); the claim value it defaults to is not another.
    else if (firstClaim !== t.name)
      problems.push({
        variable: where(i, t.name, "oauth_tenant"),
        expected: `a unique OAuth tenant: tenant "${firstClaim}" is named by the same claim value (oauth_tenant, default the name)`,
      });
    const firstName = byName.get(t.name);
    if (firstName === undefined) byName.set(t.name, i);
    else
      problems.push({
        variable: where(i, t.name, "name"),
        expected: `a unique name: tenants[${firstName}] has the same name`,
      });
    const hex = t.tokenSha256.toString("hex");
    const firstToken = byToken.get(hex);
    if (firstToken === undefined) byToken.set(hex, t.name);
    else
      problems.push({
        variable: where(i, t.name, "token_sha256"),
        expected: `a unique token: tenant "${firstToken}" has the same token_sha256; give each tenant its own token`,
      });
  });
}

/**
 * Read, parse and validate the tenants file at `path`. Secret references resolve against `env`
 * (`{env}`) and the file system (`{file}`, relative to the tenants file). Throws one ConfigError
 * listing every problem, each naming the tenant and field, never a secret.
 */
export function loadTenants(
  path: string,
  env: Env,
  readFile: ReadFile = (p) => readFileSync(p, "utf8"),
): Tenant[] {
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    throw new ConfigError([
      {
        variable: "MCP_TENANTS_FILE",
        expected: `a readable JSON file; cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      },
    ]);
  }
  // A BOM (Windows editors write one) is not part of the JSON text.
  if (text.startsWith("\uFEFF")) text = text.slice(1);
  const json = parseJson(text);
  if (!json.ok) throw new ConfigError([{ variable: "MCP_TENANTS_FILE", expected: json.expected }]);
  const repeated = duplicateKeys(text);
  if (repeated.length > 0) throw new ConfigError(duplicateProblems(repeated, json.value));
  const file = fileSchema.safeParse(json.value);
  if (!file.success)
    throw new ConfigError(
      file.error.issues.map((i) => ({
        variable: `MCP_TENANTS_FILE ${i.path.join(".")}`.trim(),
        expected: i.message,
      })),
    );

  const problems: ConfigProblem[] = [];
  const baseDir = dirname(resolve(path));
  const tenants = file.data.tenants.flatMap((raw, i) => {
    const t = loadTenant(raw, i, env, baseDir, readFile, problems);
    return t === undefined ? [] : [t];
  });
  sameNameOrToken(tenants, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return tenants;
}

/**
 * The tenant whose token_sha256 is the SHA-256 of `bearerToken`, or undefined (→ HTTP 401).
 * IMPORTANT: compares in constant time against every tenant, with no early exit, so the time taken
 * does not tell which tenant (or whether any) came close.
 */
export function resolveTenant(
  tenants: readonly Tenant[],
  bearerToken: string | undefined,
): Tenant | undefined {
  if (bearerToken === undefined || bearerToken === "") return undefined;
  const presented = createHash("sha256").update(bearerToken, "utf8").digest();
  let found: Tenant | undefined;
  for (const tenant of tenants) {
    const same = timingSafeEqual(presented, tenant.tokenSha256);
    found = same && found === undefined ? tenant : found;
  }
  return found;
}

/** The tenant whose oauth_tenant (default: its name) is `claimValue`, or undefined (→ HTTP 403). */
export function tenantByClaim(tenants: readonly Tenant[], claimValue: string): Tenant | undefined {
  return tenants.find((t) => t.oauthTenant === claimValue);
}

/** Lowercase hex SHA-256 of a token: the value to put in `token_sha256`. */
export function tokenSha256(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}
