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

/**
 * Every encoded form of a secret but two holds one of these marks: a percent-escape, a \\u or \\x
 * escape, an HTML entity. The other two are its characters as they are, each in either letter
 * case, punctuation maybe after backslashes (the text form; its hex is text too), and its base64,
 * maybe broken across lines and after backslashes (JSON's "\\/"). So a text without a mark can hold
 * a secret only where, with backslashes (and, for base64, line breaks) taken out, the secret's
 * characters, its hex or its base64 appear as they are: a check of plain strings. Its regular
 * expressions, whose compilation costs V8 50-400 ms per secret on the first scan (issue 33: the
 * first tool result of every start), are built and run only when that check finds something.
 */
const MARKS = /%[0-9a-f]{2}|\\u[0-9a-f]{4}|\\x[0-9a-f]{2}|&(?:#|[a-z]+;)/i;
/** A line break inside base64 (WRAP), raw or JSON-escaped. */
const WRAPS = /\r?\n|\\r\\n|\\n/g;

/** Letter case folded one character at a time (as the "i" flag compares), so that a fold of a text contains the fold of each of its parts. */
function fold(text: string): string {
  // Each non-ASCII code point folded on its own (no context: a capital sigma is always σ), then the
  // ASCII letters; lowering what is already folded changes nothing. Per character over a whole
  // 40 KB result with accented names cost 7 ms a call and most of its garbage.
  return text.replace(NON_ASCII, foldChar).toLowerCase();
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: everything outside ASCII is what it matches
const NON_ASCII = /[^\u0000-\u007f]/gu;
const FOLDED = new Map<string, string>();
function foldChar(ch: string): string {
  let folded = FOLDED.get(ch);
  if (folded === undefined) {
    folded = ch.toUpperCase().toLowerCase();
    if (FOLDED.size < 4096) FOLDED.set(ch, folded);
  }
  return folded;
}

/** What the plain-string check reads of one text, each part computed once whatever the number of secrets. */
class TextView {
  #marked?: boolean;
  #plain?: string;
  #unwrapped?: string;
  constructor(readonly text: string) {}
  /** Whether the text holds an escape or an entity (MARKS). */
  get marked(): boolean {
    this.#marked ??= MARKS.test(this.text);
    return this.#marked;
  }
  /** Backslashes out, letter case folded: where the text and hex forms appear as they are. */
  get plain(): string {
    this.#plain ??= fold(this.text.replaceAll("\\", ""));
    return this.#plain;
  }
  /** Line breaks, then backslashes, out: where base64 appears as it is (case kept). */
  get unwrapped(): string {
    this.#unwrapped ??= this.text.replace(WRAPS, "").replaceAll("\\", "");
    return this.#unwrapped;
  }
}

/** One known secret: the plain strings its forms reduce to, and its regular expressions, built on first need. */
class SecretForms {
  readonly length: number;
  /** A secret the plain-string check cannot stand for (backslash, control character, space): its regexes always run. */
  readonly #always: boolean;
  readonly #folded: string;
  readonly #hex: string;
  /** Each base64 core without its first and last character (a line break's removal may take the first). */
  readonly #cores: string[];
  #regexes?: RegExp[];

  constructor(readonly value: string) {
    this.length = value.length;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
    this.#always = /[\\\u0000-\u001f ]/.test(value);
    this.#folded = fold(value);
    this.#hex = Buffer.from(value, "utf8").toString("hex");
    this.#cores = (value.length >= 6 ? base64Cores(value) : []).map((core) => core.slice(1, -1));
  }

  /** False only when no form of the secret can be in the text (MARKS). */
  mayBeIn(view: TextView): boolean {
    if (this.#always || view.marked) return true;
    const { plain } = view;
    if (plain.includes(this.#folded) || plain.includes(this.#hex)) return true;
    return this.#cores.some((core) => view.unwrapped.includes(core));
  }

  /** Text, hex and HTML forms in any case; base64 is case-sensitive (its own regex). */
  regexes(): RegExp[] {
    if (this.#regexes === undefined) {
      const value = this.value;
      this.#regexes = [new RegExp(`${textPattern(value, true)}|${hexPattern(value)}`, "gi")];
      const cores = value.length >= 6 ? base64Cores(value) : [];
      if (cores.length > 0) this.#regexes.push(new RegExp(cores.map(wrappedPattern).join("|"), "g"));
    }
    return this.#regexes;
  }
}

interface Known {
  version: number;
  secrets: SecretForms[];
  /** Per secret value, reused across changes of the known set (its regexes are compiled once). */
  byValue: Map<string, SecretForms>;
}
const byScope = new WeakMap<SecretScope, Known>();

/** The known secrets of `scope` (min. 4 characters). */
function knownSecrets(scope: SecretScope): SecretForms[] {
  const version = scope.version();
  let cache = byScope.get(scope);
  if (cache?.version === version) return cache.secrets;
  cache ??= { version: -1, secrets: [], byValue: new Map() };
  const { byValue } = cache;
  const values = scope.knownValues().filter((v) => v.length >= MIN_SECRET_LENGTH);
  for (const value of byValue.keys()) if (!values.includes(value)) byValue.delete(value);
  const secrets = values.map((value) => {
    const forms = byValue.get(value) ?? new SecretForms(value);
    byValue.set(value, forms);
    return forms;
  });
  byScope.set(scope, { version, secrets, byValue });
  return secrets;
}

/**
 * Replace every known secret value (min. 4 chars) in a string, in any of its encoded forms:
 * URL-encoded (%20 or +, either hex case), base64 and base64url at any alignment and broken across
 * lines, JSON-escaped, hex, HTML entities, and in any letter case.
 */
export function scrubText(text: string, scope: SecretScope = PROCESS_SECRETS): string {
  if (text.length < MIN_SECRET_LENGTH) return text;
  let out = text;
  let left = knownSecrets(scope);
  // A mask could, in theory, complete another secret's form: the others are checked again on the result.
  while (left.length > 0) {
    const view = new TextView(out);
    const found = left.filter((s) => s.mayBeIn(view));
    if (found.length === 0) break;
    left = left.filter((s) => !found.includes(s));
    // Longer patterns first, so a secret containing another is masked whole.
    const matchers = found.flatMap((s) => s.regexes()).sort((a, b) => b.source.length - a.source.length);
    const before = out;
    for (const matcher of matchers) out = out.replace(matcher, REDACTED_TEXT);
    if (out === before) break;
  }
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
