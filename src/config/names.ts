/**
 * The start-up check of the environment's names (interface.md §1, §9): which names are ours, which
 * unknown ones are near-misses of a safety setting (a problem: the start stops, the host is told) and
 * which are only misspelt (a warning). Never quotes a value: a misspelt name may hold a secret.
 */
import type { ConfigProblem } from "../errors/api-error.js";
import { closest, editDistance, normalise } from "./suggest.js";
import { URL_VARIABLES, urlCredentials } from "./url-credentials.js";
import { SAFETY_VARIABLES, SECRET_VARIABLES, VARIABLE_NAMES, type Variable } from "./variables.js";

export type Env = Record<string, string | undefined>;

/** `${user_config.x}` left as is: some MCP hosts keep the placeholder of an optional setting left empty. */
export const PLACEHOLDER = /^\$\{[^}]*\}$/;

/**
 * Other software's MCP_* names that share a word with a safety setting and that a client may pass
 * down to the servers it starts (the MCP Inspector's proxy token): never ours, never refused.
 */
const FOREIGN_NAMES = new Set(["mcp_proxy_auth_token"]);

/** A word of a safety setting (interface.md §9) and what ignoring a name holding it would leave undone. */
interface SafetyWord {
  meant: string;
  ifMissed: string;
}
const readOnly = { meant: "MMS_READ_ONLY", ifMissed: "the tools that write upstream would be offered" };
const tenants = {
  meant: "MCP_TENANTS_FILE",
  ifMissed: "the tenants file, and with it every tenant's token, would be ignored",
};
const auth = {
  meant: "MCP_HTTP_TOKEN (or the MCP_OAUTH_* settings)",
  ifMissed: "the HTTP server could serve clients it was meant to authenticate",
};
/**
 * IMPORTANT: TOOLS, not TOOL: Claude Code passes its own MCP_TOOL_TIMEOUT down to the servers it starts.
 */
const SAFETY_WORDS = new Map<string, SafetyWord>([
  ["CONFIRM", { meant: "MMS_CONFIRM_WRITES", ifMissed: "writes would be sent without asking the user" }],
  ["READ", readOnly],
  ["READONLY", readOnly],
  ["RO", readOnly],
  ["TOKEN", { meant: "MCP_HTTP_TOKEN", ifMissed: "the HTTP server would serve without a token" }],
  ["TENANT", tenants],
  ["TENANTS", tenants],
  [
    "TOOLS",
    {
      meant: "the --tools flag (in the entry's args)",
      ifMissed: "every tool would be offered, not only those asked for",
    },
  ],
  ["AUTH", auth],
  ["OAUTH", auth],
]);

/** Safety words of four letters or more: a word that begins with one (CONFIRMATION, TOKENS) is as near (§9b). */
const LONG_SAFETY_WORDS = [...SAFETY_WORDS].filter(([w]) => w.length >= 4);

/**
 * Whether a name looks meant for this server: it starts with MMS or MCP (any case, with or without
 * the underscore), or its first part is one edit from either (MSS_, MPC_, MM_). Other software's
 * variables (IS_SANDBOX, HTTP_TOKEN) are never taken for ours.
 */
export function looksOurs(name: string): boolean {
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
 * The safety word an unknown name shares (interface.md §9): an MMS_ or MCP_ name, or bare READ_ONLY,
 * with CONFIRM, READ/READONLY/RO, TOKEN, TENANT(S), TOOLS, AUTH or OAUTH among its words, or a word
 * beginning with one of four letters or more (MMS_CONFIRM, MMS_RO, MCP_BEARER_TOKEN, MCP_TOOLS,
 * MMS_CONFIRMATION, MCP_AUTHORIZATION). Undefined for other software's names.
 */
export function safetyWordOf(name: string): { word: string; safety: SafetyWord } | undefined {
  const upper = name.toUpperCase();
  if (FOREIGN_NAMES.has(name.toLowerCase())) return undefined;
  const words = upper.split(/[_-]+/);
  if (!looksOurs(name) && !/^READ[_-]?ONLY$/.test(upper)) return undefined;
  for (const word of looksOurs(name) ? words.slice(1) : words) {
    const safety = SAFETY_WORDS.get(word);
    if (safety !== undefined) return { word, safety };
    const begun = LONG_SAFETY_WORDS.find(([w]) => word.startsWith(w));
    if (begun !== undefined) return { word: begun[0], safety: begun[1] };
  }
  return undefined;
}

/** What the start-up check of the environment found: problems stop the start, warnings are logged. */
export interface EnvironmentCheck {
  problems: ConfigProblem[];
  warnings: string[];
}

/** The problem of an unknown name that holds a value and is a near-miss of a safety setting, if it is one. */
export function safetyNearMiss(name: string): ConfigProblem | undefined {
  const variable = nearSafetyVariable(name);
  if (variable !== undefined) {
    return {
      variable: name,
      expected: `not a variable this server reads; did you mean ${variable.name}? Ignored, ${variable.ifMissed}, so no tool runs until it is fixed: rename it to ${variable.name} (or remove it)`,
    };
  }
  const shared = safetyWordOf(name);
  if (shared === undefined) return undefined;
  const guess = closest(name, VARIABLE_NAMES);
  return {
    variable: name,
    expected: `not a variable this server reads${guess ? `; did you mean ${guess}?` : "."} It shares the word ${shared.word} with a safety setting (${shared.safety.meant}): ignored, ${shared.safety.ifMissed}, so no tool runs until it is fixed: rename it to the setting you meant (or remove it)`,
  };
}

/**
 * The start-up check of the environment's names (interface.md §1, §9). A near-miss of a safety
 * setting that holds a value is a problem: ignored, it would leave the server less safe than asked.
 * An unknown MMS_* name, or an MCP_* name close to a known one, is a warning with the closest known
 * name; so is a placeholder left unsubstituted. `caseInsensitive`: the platform's environment ignores
 * case (Windows), so a name that differs only in case is the variable itself.
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
    const nearMiss = value === "" || PLACEHOLDER.test(value) ? undefined : safetyNearMiss(name);
    if (nearMiss !== undefined) {
      problems.push(nearMiss);
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
 * The problems with, for each variable a problem names, the misspelt names of it that `env` sets:
 * "MMS_CLIENT_SECRET: required" alone hides the MMS_CLIENT_SECERT the user did set, and the host sees
 * only the problems (its warnings go to stderr, which hosts hide).
 */
export function withMisspellings(problems: readonly ConfigProblem[], env: Env): ConfigProblem[] {
  const misspelt = new Map<string, string[]>();
  for (const name of Object.keys(env).sort()) {
    if (VARIABLE_NAMES.includes(name) || !looksOurs(name) || (env[name]?.trim() ?? "") === "") continue;
    const meant = closest(name, VARIABLE_NAMES);
    if (meant !== undefined) misspelt.set(meant, [...(misspelt.get(meant) ?? []), name]);
  }
  if (misspelt.size === 0) return [...problems];
  return problems.map((p) => {
    const named = p.variable.match(/\b(?:MMS|MCP)_[A-Z0-9_]*[A-Z0-9]/g) ?? [];
    const notes = named.flatMap((v) =>
      (misspelt.get(v) ?? []).map((name) => `${name} is set: did you mean ${v}?`),
    );
    return notes.length === 0 ? p : { ...p, expected: `${p.expected} (${notes.join("; ")})` };
  });
}

/**
 * The values in `env` that are credentials: those of the secret variables and of names close to
 * one (a misspelt MMS_CLIENT_SCRET still holds the secret), and those inside configured URLs. The caller wraps them in `Secret` so
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
    if ((URL_VARIABLES as readonly string[]).includes(name)) values.push(...urlCredentials(value).values);
  }
  return values;
}
