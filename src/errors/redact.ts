/**
 * Redaction shared by the logger, error builders and every tool result. Keys that name credentials
 * are masked whatever their value; any string containing a known secret value, plain or in any usual
 * encoding (URL, base64/base64url even broken across lines, JSON escapes, hex, HTML entities, upper
 * or lower case), is scrubbed as well.
 * The known values are those of a scope: the process's (the default: logs) or one configuration's
 * (a tenant's answers: they must not depend on another tenant's secrets).
 */
import { PROCESS_SECRETS, REDACTED_TEXT, Secret, type SecretScope } from "./secret.js";

const SENSITIVE_KEY =
  /^(authorization|proxy-authorization|server-authorization|www-authenticate|cookie|set-cookie|client_secret|clientsecret|secret|password|access_token|accesstoken|refresh_token|token|bearer|hawk_key|hawkkey|key|mac|tsm|mcp_http_token|mms_client_secret|mms_hawk_key)$/i;

/** True when a property name denotes a credential. */
export function isSensitiveKey(key: string): boolean {
  return SENSITIVE_KEY.test(key);
}

/** The shortest value that is scrubbed: shorter ones would mask ordinary text. */
const MIN_SECRET_LENGTH = 4;

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
/** A hex digit matched in either case ("2f" and "2F"). */
const hexDigit = (d: string) => (/[a-f]/i.test(d) ? `[${d.toLowerCase()}${d.toUpperCase()}]` : d);
const hex = (n: number, width: number) => [...n.toString(16).padStart(width, "0")].map(hexDigit).join("");

/**
 * The names HTML escapes a character with (proxy and firewall error pages escape what they echo):
 * the five of XML and the HTML5 names of the punctuation a credential usually holds.
 */
const HTML_NAMES: Record<string, string[]> = {
  "&": ["amp"],
  "<": ["lt"],
  ">": ["gt"],
  '"': ["quot"],
  "'": ["apos"],
  "/": ["sol"],
  ":": ["colon"],
  "=": ["equals"],
  "+": ["plus"],
  ".": ["period"],
  _: ["lowbar", "UnderBar"],
  "-": ["hyphen", "dash"],
  "#": ["num"],
  "!": ["excl"],
  "%": ["percnt"],
  "@": ["commat"],
  $: ["dollar"],
  "~": ["tilde"],
  "?": ["quest"],
  ",": ["comma"],
  ";": ["semi"],
  " ": ["nbsp"],
};

/**
 * One character in every form it may take in text: itself, percent-encoded (UTF-8, also
 * double-encoded %25XX), JSON \uXXXX, an HTML entity (decimal, hex or named), "+" for a space (form
 * encoding), and, for punctuation, preceded by JSON backslashes (`\/`, `\"`). `all` = false leaves
 * letters and digits literal. Matched case-insensitively: hex digits and upper-cased text alike.
 */
function charPattern(ch: string, all: boolean): string {
  const literal = escapeRegex(ch);
  if (!all && /[A-Za-z0-9]/.test(ch)) return literal;
  const cp = ch.codePointAt(0)!;
  const bytes = [...Buffer.from(ch, "utf8")].map((b) => `%(?:25)?${hex(b, 2)}`).join("");
  const units = [...Array.from({ length: ch.length }, (_, i) => ch.charCodeAt(i))]
    .map((u) => `\\\\+u${hex(u, 4)}`)
    .join("");
  const entities = [`&#0*${cp};`, `&#x0*${cp.toString(16)};`, ...(HTML_NAMES[ch] ?? []).map((n) => `&${n};`)];
  const forms = [literal, bytes, units, ...entities];
  if (cp === 0x20) forms.push("\\+");
  const alternatives = `(?:${forms.join("|")})`;
  return /[A-Za-z0-9]/.test(ch) ? alternatives : `\\\\*${alternatives}`;
}

const textPattern = (text: string, all: boolean) => Array.from(text, (ch) => charPattern(ch, all)).join("");

/** The value's UTF-8 bytes in hex (either case under the "i" flag), plain or as `\xNN` escapes. */
const hexPattern = (value: string) =>
  [...Buffer.from(value, "utf8")].map((b) => `(?:\\\\x)?${b.toString(16).padStart(2, "0")}`).join("");

/**
 * A line break base64 may carry (MIME wraps at 76, PEM at 64), raw (a folded header's indent too),
 * JSON-escaped, or turned into one space by a text shown on one line.
 */
const WRAP = "(?:\\r?\\n[ \\t]?|\\\\r\\\\n|\\\\n| )?";

/** A base64 core that may be broken across lines between any two characters (case-sensitive). */
const wrappedPattern = (core: string) => Array.from(core, (ch) => charPattern(ch, false)).join(WRAP);

/**
 * The part of base64(prefix + value + suffix) that depends on `value` alone, for each of the three
 * alignments, in the standard and the URL-safe alphabets: a secret inside a base64 blob (a Basic
 * header, "Bearer <token>" encoded) is found wherever it starts.
 */
function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const cores = new Set<string>();
  for (let shift = 0; shift < 3; shift++) {
    const b64 = Buffer.concat([Buffer.alloc(shift), bytes]).toString("base64");
    const core = b64.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6));
    if (core.length < MIN_SECRET_LENGTH) continue;
    cores.add(core);
    cores.add(core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return [...cores];
}

interface Matchers {
  version: number;
  matchers: RegExp[];
  /** Compiled matchers per secret value, reused across changes of the known set. */
  compiled: Map<string, RegExp[]>;
}
const byScope = new WeakMap<SecretScope, Matchers>();

/** The regular expressions of the known secrets of `scope`, matching their plain and encoded forms (longest first). */
function secretMatchers(scope: SecretScope): RegExp[] {
  const version = scope.version();
  let cache = byScope.get(scope);
  if (cache?.version === version) return cache.matchers;
  cache ??= { version: -1, matchers: [], compiled: new Map() };
  const { compiled } = cache;
  const values = scope.knownValues().filter((v) => v.length >= MIN_SECRET_LENGTH);
  for (const value of compiled.keys()) if (!values.includes(value)) compiled.delete(value);
  const matchers = values.flatMap((value) => {
    let res = compiled.get(value);
    if (res === undefined) {
      // Text, hex and HTML forms in any case; base64 is case-sensitive (its own regex).
      res = [new RegExp(`${textPattern(value, true)}|${hexPattern(value)}`, "gi")];
      const cores = value.length >= 6 ? base64Cores(value) : [];
      if (cores.length > 0) res.push(new RegExp(cores.map(wrappedPattern).join("|"), "g"));
      compiled.set(value, res);
    }
    return res;
  });
  // Longer secrets first, so a secret containing another is masked whole.
  matchers.sort((a, b) => b.source.length - a.source.length);
  byScope.set(scope, { version, matchers, compiled });
  return matchers;
}

/**
 * Replace every known secret value (min. 4 chars) in a string, in any of its encoded forms:
 * URL-encoded (%20 or +, either hex case), base64 and base64url at any alignment and broken across
 * lines, JSON-escaped, hex, HTML entities, and in any letter case.
 */
export function scrubText(text: string, scope: SecretScope = PROCESS_SECRETS): string {
  if (text.length < MIN_SECRET_LENGTH) return text;
  let out = text;
  for (const matcher of secretMatchers(scope)) out = out.replace(matcher, REDACTED_TEXT);
  return out;
}

/**
 * Deep copy of a value with credentials masked (the known values of `scope`, by default every
 * secret of the process). Handles cycles and Errors.
 */
export function redact(value: unknown, scope: SecretScope = PROCESS_SECRETS): unknown {
  return redactIn(value, scope, new WeakSet<object>());
}

function redactIn(value: unknown, scope: SecretScope, seen: WeakSet<object>): unknown {
  if (typeof value === "string") return scrubText(value, scope);
  if (value === null || typeof value !== "object") return value;
  if (value instanceof Secret) return REDACTED_TEXT;
  if (seen.has(value)) return "[circular]";
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => redactIn(v, scope, seen));
  if (value instanceof Error) {
    const json = (value as { toJSON?: () => unknown }).toJSON?.();
    if (json !== undefined) return redactIn(json, scope, seen);
    return {
      name: value.name,
      message: scrubText(value.message, scope),
      code: (value as { code?: unknown }).code,
    };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSensitiveKey(k) ? REDACTED_TEXT : redactIn(v, scope, seen);
  }
  return out;
}

/**
 * `value` with every known secret of `scope` scrubbed from its strings and keys, its shape otherwise
 * unchanged (no key-based masking: a result keeps its schema). Returns `value` itself when its JSON
 * holds no secret in any form, so a clean result (the usual case) costs one scan of its JSON.
 */
export function scrubValues(value: unknown, scope: SecretScope = PROCESS_SECRETS): unknown {
  const json = JSON.stringify(value);
  if (json === undefined || scrubText(json, scope) === json) return value;
  return scrubIn(value, scope);
}

function scrubIn(value: unknown, scope: SecretScope): unknown {
  if (typeof value === "string") return scrubText(value, scope);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => scrubIn(v, scope));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [scrubText(k, scope), scrubIn(v, scope)]));
}
