/**
 * Issue 33: scrubText runs a secret's regular expressions only when a plain-string check finds one of
 * its forms possible. The check must never let a form through: random forms (cut from their blob at
 * random, wrapped at random, after a backslash or a letter that a line break's removal could take)
 * are masked all the same.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scrubText, scrubTextEveryRegex } from "../../src/errors/redact.js";
import { REDACTED_TEXT, SecretScope } from "../../src/errors/secret.js";

// Letters a line break's removal could take (n, r), punctuation JSON escapes, a non-ASCII letter.
const SECRETS = ["nrsecret/+=value9", "rn-tok_en.9Zq~", "Kx9µΣ/pass", "abcdEFGH1234"];
const scope = new SecretScope();
for (const s of SECRETS) scope.add(s);

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
/** `text` broken by `br` at each of `cuts` (at most once between two characters, as MIME and PEM wrap). */
const wrapAt = (text: string, cuts: number[], br: string) =>
  [...new Set(cuts.map((c) => c % (text.length + 1)))]
    .sort((a, b) => b - a)
    .reduce((t, c) => t.slice(0, c) + br + t.slice(c), text);

const form = fc.record({
  secret: fc.constantFrom(...SECRETS),
  shape: fc.constantFrom("plain", "upper", "json", "hex", "b64", "b64url", "percent", "unicode"),
  lead: fc.string({ maxLength: 2 }),
  cuts: fc.array(fc.nat(80), { maxLength: 4 }),
  br: fc.constantFrom("\n", "\r\n", "\\n", "\\r\\n"),
});

interface Form {
  secret: string;
  shape: string;
  lead: string;
  cuts: number[];
  br: string;
}

function encode({ secret, shape, lead, cuts, br }: Form): string {
  switch (shape) {
    case "plain":
      return secret;
    case "upper":
      return secret.toUpperCase();
    case "json":
      return JSON.stringify(secret).slice(1, -1).replace(/\//g, "\\/");
    case "hex":
      return Buffer.from(secret, "utf8").toString("hex");
    case "b64":
      return wrapAt(b64(`${lead}${secret}`), cuts, br);
    case "b64url":
      return wrapAt(Buffer.from(`${lead}${secret}`, "utf8").toString("base64url"), cuts, br);
    case "percent":
      return encodeURIComponent(secret);
    default:
      return Array.from(secret, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
  }
}

describe("scrubText's plain-string check (issue 33)", () => {
  it("lets no form through, whatever stands before and after it", () => {
    const around = fc.constantFrom("", "\\", "n", "r", "\\n", "\\r", "\n", "x", " ", '"');
    fc.assert(
      fc.property(form, around, around, (f, before, after) => {
        const text = `${before}${encode(f)}${after}`;
        expect(scrubText(text, scope)).toContain(REDACTED_TEXT);
      }),
      { numRuns: 400 },
    );
  });

  it("finds every text a regex would match: random texts scrub exactly as with every regex run", () => {
    // Secrets that begin with what an escape ends with (hex digits, "u0041"), a non-ASCII one, and
    // one with % (whose regexes always run); texts of escapes, their pieces, and forms of each secret
    // with every character encoded its own way, base64 wrapped by spaces and indents, hex after \\x.
    const secrets = ["41bcDEtok9-x", "u0041Zq/+=tok", "Kx9µΣ/pass", "nrsecret/+=value9", "pct%41secret"];
    const refScope = new SecretScope();
    for (const s of secrets) refScope.add(s);
    const hex2 = (b: number) => b.toString(16).padStart(2, "0");
    const charForms = (c: string): string[] => {
      const cp = c.codePointAt(0)!;
      const bytes = [...Buffer.from(c, "utf8")];
      return [
        c,
        c.toUpperCase(),
        bytes.map((b) => `%${hex2(b).toUpperCase()}`).join(""),
        bytes.map((b) => `%25${hex2(b)}`).join(""),
        Array.from(
          { length: c.length },
          (_, i) => `\\\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`,
        ).join(""),
        `&#${cp};`,
        `&#x00${cp.toString(16).toUpperCase()};`,
        c === "/" ? "&sol;" : c === "+" ? "&PLUS;" : c === "=" ? "&equals;" : `\\${c}`,
      ];
    };
    const mixed = (secret: string, picks: number[]) =>
      Array.from(secret, (c, i) => {
        const forms = charForms(c);
        return forms[(picks[i] ?? 0) % forms.length]!;
      }).join("");
    const spaced = (text: string, cuts: number[], br: string) => wrapAt(text, cuts, br);
    const secretForm = fc
      .record({
        secret: fc.constantFrom(...secrets),
        kind: fc.constantFrom("mixed", "b64", "b64url", "hex"),
        picks: fc.array(fc.nat(20), { maxLength: 16 }),
        lead: fc.string({ maxLength: 2 }),
        cuts: fc.array(fc.nat(60), { maxLength: 3 }),
        br: fc.constantFrom(" ", "\n  ", "\t", "\r\n ", "\\n"),
      })
      .map(({ secret, kind, picks, lead, cuts, br }) => {
        const bytes = Buffer.from(`${lead}${secret}`, "utf8");
        if (kind === "mixed") return mixed(secret, picks);
        if (kind === "hex")
          return [...Buffer.from(secret, "utf8")]
            .map((b, i) => `${(picks[i] ?? 0 % 2) ? "\\x" : ""}${hex2(b)}`)
            .join("");
        const b64 = kind === "b64" ? bytes.toString("base64") : bytes.toString("base64url");
        return spaced(
          b64.replace(/\+/g, (p) => ((picks[0] ?? 0) % 2 ? "%2B" : p)),
          cuts,
          br,
        );
      });
    const piece = fc.constantFrom(
      "%",
      "%2",
      "%25",
      "%4",
      "%41",
      "\\",
      "\\u00",
      "\\u0041",
      "&#",
      "&#x",
      "&amp;",
      ";",
      "41",
      "u00",
      "x",
      " ",
      "\n",
      "&sol;",
      "bc",
      "é",
    );
    const text = fc
      .array(fc.oneof(piece, secretForm, fc.string({ maxLength: 3 })), { maxLength: 8 })
      .map((parts) => parts.join(""));
    // A match that starts inside an escape the decoding takes whole, the rest of the secret escaped.
    const examples = ["%41bc%44Etok9-x", "%2541bc%44Etok9-x", "\\u0041Zq%2F+=tok", "\\\\u0041Zq&sol;+=tok"];
    for (const t of examples) {
      expect(scrubTextEveryRegex(t, refScope)).toContain(REDACTED_TEXT);
      expect(scrubText(t, refScope), t).toBe(scrubTextEveryRegex(t, refScope));
    }
    fc.assert(
      fc.property(text, (t) => {
        expect(scrubText(t, refScope)).toBe(scrubTextEveryRegex(t, refScope));
      }),
      { numRuns: 3000 },
    );
  });

  it("returns a text without any form unchanged", () => {
    const clean = 'Group 7 "north" / spare parts\\n- #12 enabled; 25% of 4 & more';
    expect(scrubText(clean, scope)).toBe(clean);
  });
});
