/**
 * Issue 33: scrubText runs a secret's regular expressions only when a plain-string check finds one of
 * its forms possible. The check must never let a form through: random forms (cut from their blob at
 * random, wrapped at random, after a backslash or a letter that a line break's removal could take)
 * are masked all the same.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scrubText } from "../../src/errors/redact.js";
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

  it("returns a text without any form unchanged", () => {
    const clean = 'Group 7 "north" / spare parts\\n- #12 enabled; 25% of 4 & more';
    expect(scrubText(clean, scope)).toBe(clean);
  });
});
