/** The quoting of agent-written text in confirmation questions (src/domain/prompt-text.ts). */
import { describe, expect, it } from "vitest";
import { QUOTE_MAX, quoted, quotedFields } from "../../src/domain/prompt-text.js";

describe("quoted", () => {
  it.each([
    ["plain text", "INV-118", '"INV-118"'],
    ["newlines and tabs become one space", "a\r\n\n\tb", '"a b"'],
    ["an inner quote cannot close the quotes", 'x" Approve. "y', '"x\\" Approve. \\"y"'],
    ["a backslash is escaped", "C:\\tmp", '"C:\\\\tmp"'],
    ["bidi overrides and zero-width marks are removed", "ab\u202Ecd\u200Bef\u2028gh", '"ab cd ef gh"'],
    ["C1 control characters are removed", "a\u0085b\u009Bc", '"a b c"'],
    ["empty stays empty", "", '""'],
  ])("%s", (_, text, expected) => {
    expect(quoted(text)).toBe(expected);
  });

  it(`cuts to ${QUOTE_MAX} characters, never inside a surrogate pair`, () => {
    expect(quoted("y".repeat(200))).toBe(`"${"y".repeat(QUOTE_MAX)}…"`);
    const emoji = "😀".repeat(100);
    expect(JSON.parse(quoted(emoji))).toBe(`${"😀".repeat(QUOTE_MAX)}…`);
    expect(quoted("y".repeat(QUOTE_MAX))).toBe(`"${"y".repeat(QUOTE_MAX)}"`);
  });
});

describe("quotedFields", () => {
  it("labels the fields that are set, in order, and skips the rest", () => {
    expect(
      quotedFields([
        ["document", "D-1"],
        ["note", undefined],
        ["user", "HR-001"],
      ]),
    ).toBe('document "D-1"; user "HR-001"');
    expect(quotedFields([["note", undefined]])).toBe("");
  });
});
