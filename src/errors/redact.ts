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
 * The regexes above read each character of a secret as itself or as one escape: percent (maybe
 * double), JSON \\u (after any backslashes), an HTML entity; its hex as bytes maybe after \\x; its
 * base64 maybe broken by WRAP. So a text can hold a form of a secret only where, with those escapes
 * decoded, backslashes, \\x and line breaks taken out and letter case folded, the secret's
 * characters, its hex or its base64 appear as they are: a check of plain strings. The regexes,
 * whose compilation costs V8 50-400 ms per secret on its first scan (issue 33: every start's first
 * tool result, and the first call after each token refresh, whose new token is a new secret), are
 * built and run only when that check finds something.
 * IMPORTANT: the check must find every text a regex would match (test/unit/redact-quick-check.test.ts
 * compares it with running every regex). A regex may start matching inside an escape the decoding
 * took whole ("%41bc" holds "1bc"): so the text is checked as it is and decoded, and the decoded one
 * for the secret without its first EDGE characters (an escape's tail: "2541" of "%2541", "u0041").
 * A secret holding % & ; or a backslash could also end inside one: its regexes always run.
 */
const MARKS = /%[0-9a-f]{2}|\\u[0-9a-f]{4}|&(?:#|[a-z]+;)/i;
/** Escapes as the regexes read them: a run of percent bytes (UTF-8), \\u units, HTML entities. */
const ESCAPES =
  /((?:%(?:25)?[0-9a-f]{2})+)|\\+u([0-9a-f]{4})|&#0*(\d{1,7});|&#x0*([0-9a-f]{1,6});|&([a-z]+);/gi;
/** The longest escape tail a match may start with and the decoding would take: "u0041". */
const EDGE = 5;
/** A line break or a space inside base64 (WRAP), raw or JSON-escaped. */
const WRAPS = /\r?\n|\\r\\n|\\n|[ \t]/g;
/** HTML entity names (lower case) → the character (HTML_NAMES read backwards). */
const HTML_CHARS = new Map(
  Object.entries(HTML_NAMES).flatMap(([ch, names]) => names.map((n) => [n.toLowerCase(), ch] as const)),
);

function decodeEscape(
  all: string,
  percent?: string,
  unit?: string,
  dec?: string,
  hexCp?: string,
  name?: string,
) {
  if (percent !== undefined) {
    const bytes = percent.match(/[0-9a-f]{2}(?=%|$)/gi)!.map((h) => Number.parseInt(h, 16));
    return Buffer.from(bytes).toString("utf8");
  }
  if (unit !== undefined) return String.fromCharCode(Number.parseInt(unit, 16));
  const cp = dec !== undefined ? Number(dec) : hexCp !== undefined ? Number.parseInt(hexCp, 16) : undefined;
  if (cp !== undefined) return cp <= 0x10ffff ? String.fromCodePoint(cp) : all;
  return HTML_CHARS.get(name!.toLowerCase()) ?? all;
}

/** The text with its escapes decoded (what a secret's escaped characters stand for). */
const decodeEscapes = (text: string) => text.replace(ESCAPES, decodeEscape);

/** Whether a text is all ASCII (its UTF-8 is as long as it): 0.2 us where a scan costs 7-15 us over 12 KB. */
const isAscii = (text: string) => Buffer.byteLength(text, "utf8") === text.length;

/** Letter case folded one character at a time (as the "i" flag compares), so that a fold of a text contains the fold of each of its parts. */
function fold(text: string): string {
  // All ASCII (its UTF-8 is as long as it): lower case is the fold. The scan for non-ASCII below cost
  // 7-15 us over a 12 KB result with none, 1-2 % of an HTTP call (issue 43); the length, 0.2 us.
  if (isAscii(text)) return text.toLowerCase();
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

/**
 * WRAPS's raw forms out of a text without a backslash, by plain replacement: a "\r" not before "\n"
 * stays, as with WRAPS. A result on one line (a structured result's JSON) skips the passes for line
 * breaks and tabs, each a copy of the whole text.
 */
function unwrapPlain(text: string): string {
  let out = text;
  if (out.includes("\n")) out = out.replaceAll("\r\n", "").replaceAll("\n", "");
  if (out.includes("\t")) out = out.replaceAll("\t", "");
  return out.replaceAll(" ", "");
}

/** Whether a text may hold an escape MARKS matches: plain string searches, far cheaper than the regex over a whole result. */
const mayHoldMarks = (text: string) =>
  text.includes("%") || text.includes("&") || text.includes("\\u") || text.includes("\\U");

/**
 * What the plain-string check reads of one text, each part computed once whatever the number of
 * secrets. Most results hold no backslash: then the hex view is the lower case, and the base64 view
 * drops only line breaks, tabs and spaces, by plain string replacement (WRAPS's other forms hold a
 * backslash; a \\r not before \\n stays, as with WRAPS). Same views as the regexes give, cheaper.
 */
class TextView {
  #plain?: string;
  #hexed?: string;
  #unwrapped?: string;
  #decoded?: TextView | null;
  readonly #backslash: boolean;
  constructor(readonly text: string) {
    this.#backslash = text.includes("\\");
  }
  /** Backslashes out, letter case folded: where the text form appears as it is. */
  get plain(): string {
    this.#plain ??= fold(this.#backslash ? this.text.replaceAll("\\", "") : this.text);
    return this.#plain;
  }
  /** \\x out, lower case: where the hex form appears as it is. */
  get hexed(): string {
    if (this.#hexed === undefined) {
      if (this.#backslash) this.#hexed = this.text.toLowerCase().replaceAll("\\x", "");
      // No backslash and all ASCII: the plain view is this very lower case (fold), so it is made once, not twice.
      else this.#hexed = isAscii(this.text) ? this.plain : this.text.toLowerCase();
    }
    return this.#hexed;
  }
  /** Line breaks and spaces, then backslashes, out: where base64 appears as it is (case kept). */
  get unwrapped(): string {
    this.#unwrapped ??= this.#backslash
      ? this.text.replace(WRAPS, "").replaceAll("\\", "")
      : unwrapPlain(this.text);
    return this.#unwrapped;
  }
  /** The text with its escapes decoded; null when it holds none (MARKS). */
  get decoded(): TextView | null {
    if (this.#decoded === undefined)
      this.#decoded =
        mayHoldMarks(this.text) && MARKS.test(this.text) ? new TextView(decodeEscapes(this.text)) : null;
    return this.#decoded;
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
    this.#always = /[\\\u0000-\u001f %&;]/.test(value);
    this.#folded = fold(value);
    this.#hex = Buffer.from(value, "utf8").toString("hex");
    this.#cores = (value.length >= 6 ? base64Cores(value) : []).map((core) => core.slice(1, -1));
  }

  /** False only when no form of the secret can be in the text (the IMPORTANT note above). */
  mayBeIn(view: TextView): boolean {
    if (this.#always || this.#in(view, 0)) return true;
    const decoded = view.decoded;
    return decoded !== null && this.#in(decoded, EDGE);
  }

  /** The text form, the hex or a base64 core in `view`, each without its first `edge` characters. */
  #in(view: TextView, edge: number): boolean {
    if (view.plain.includes(this.#folded.slice(edge))) return true;
    if (view.hexed.includes(this.#hex)) return true;
    return this.#cores.some((core) => view.unwrapped.includes(core.slice(edge)));
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
  return scrubWith(text, scope, (secret, view) => secret.mayBeIn(view));
}

/** scrubText without the plain-string check: every secret's regexes run. The reference tests compare it with. */
export function scrubTextEveryRegex(text: string, scope: SecretScope = PROCESS_SECRETS): string {
  return scrubWith(text, scope, () => true);
}

function scrubWith(
  text: string,
  scope: SecretScope,
  mayBeIn: (secret: SecretForms, view: TextView) => boolean,
): string {
  if (text.length < MIN_SECRET_LENGTH) return text;
  let out = text;
  let left = knownSecrets(scope);
  // A mask could, in theory, complete another secret's form: the others are checked again on the result.
  while (left.length > 0) {
    const view = new TextView(out);
    const found = left.filter((s) => mayBeIn(s, view));
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
