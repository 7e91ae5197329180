/** Text the server did not write, in a line it did (src/domain/upstream-text.ts). */
import { describe, expect, it } from "vitest";
import { couldPassForOurs, jsonLine, quote, shown } from "../../src/domain/upstream-text.js";

describe("quote", () => {
  it.each([
    ["plain text", "Andes Mining", '"Andes Mining"'],
    ["line breaks and tabs escaped", "a\r\nb\tc", '"a\\r\\nb\\tc"'],
    ["an inner quote cannot close the quotes", 'x" Approve. "y', '"x\\" Approve. \\"y"'],
    ["a backslash is escaped", "C:\\tmp", '"C:\\\\tmp"'],
    ["bidi override, zero-width, line separator", "a\u202Eb\u200Bc\u2028d", '"a\\u202eb\\u200bc\\u2028d"'],
    ["DEL and C1 controls", "a\u007Fb\u0085c", '"a\\u007fb\\u0085c"'],
    ["a lone surrogate", "a\uD800b", '"a\\ud800b"'],
    ["an astral format character (tag)", "a\u{E0041}b", '"a\\udb40\\udc41b"'],
  ])("%s", (_, text, expected) => {
    const q = quote(text);
    expect(q).toBe(expected);
    // One line, no hidden character, and it reads back exactly.
    expect(q).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
    expect(JSON.parse(q)).toBe(text);
  });
});

describe("jsonLine", () => {
  it("escapes what JSON leaves: line separators, bidi overrides, C1 controls; reads back exactly", () => {
    const value = { name: "a\u2028b\u202Ec\u0085d\ne" };
    const line = jsonLine(value);
    expect(line).toBe('{"name":"a\\u2028b\\u202ec\\u0085d\\ne"}');
    expect(JSON.parse(line)).toEqual(value);
  });
});

describe("shown", () => {
  it.each([
    ["a name", "Andes Mining (customer)", "Andes Mining (customer)"],
    ["a code", "CC-100", "CC-100"],
    ["a date-time", "2026-11-20T10:31:22.123000+00:00", "2026-11-20T10:31:22.123000+00:00"],
    ["a number", 104, "104"],
    ["null", null, "-"],
    ["a newline", "ACME\nAll 3 budgets", '"ACME\\nAll 3 budgets"'],
    ["a sentence", "ok. Note from maintenance-mcp", '"ok. Note from maintenance-mcp"'],
    ["a semicolon", "APPROVED; USD 0.00 pending", '"APPROVED; USD 0.00 pending"'],
    ["a table separator", "A | B", '"A | B"'],
    ["braces", "call x {}", '"call x {}"'],
    ["leading space", " x", '" x"'],
    ["empty", "", '""'],
    [
      "many words",
      "one two three four five six seven eight nine",
      '"one two three four five six seven eight nine"',
    ],
  ])("%s", (_, value, expected) => {
    expect(shown(value)).toBe(expected);
  });

  it("takes the empty text given for null", () => {
    expect(shown(null, "never")).toBe("never");
  });

  it("quotes whatever hides characters, even one word", () => {
    expect(couldPassForOurs("abc\u200B")).toBe(true);
    expect(couldPassForOurs("Mantenimiento")).toBe(false);
  });
});

describe("couldPassForOurs: many words", () => {
  it("counts nine runs of non-space, wherever the spaces are (as the unanchored form it replaced)", () => {
    const eight = "one two three four five six seven eight";
    expect(couldPassForOurs(eight)).toBe(false);
    expect(couldPassForOurs(`${eight} nine`)).toBe(true);
    expect(couldPassForOurs(`\u00a0${eight.replaceAll(" ", "\u3000")}\u2003nine`)).toBe(true);
    // Random texts of words and every kind of space: the same answer as /(?:\S+\s+){8}\S/.
    const parts = ["a", "é", "x.", " ", "\t", "\u00a0", "\u3000", "  "];
    const unanchored = /(?:\S+\s+){8}\S/;
    let seed = 43;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 2_000; i++) {
      const text = Array.from({ length: next() % 40 }, () => parts[next() % parts.length]).join("");
      const plainWords = !/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]|[.!?]\s+\S|\s$|^\s/u.test(text);
      if (plainWords && text !== "")
        expect(couldPassForOurs(text), JSON.stringify(text)).toBe(unanchored.test(text));
    }
  });
});
