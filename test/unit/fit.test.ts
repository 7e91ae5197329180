/** src/domain/fit.ts: jsonLength is JSON.stringify(record).length, on any plain data record. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonLength } from "../../src/domain/fit.js";

// Text with what JSON escapes (quotes, backslashes, control characters, lone surrogates) and what it does not.
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.string({
    unit: fc.constantFrom("a", '"', "\\", "\n", "\u0000", "\u001f", "\ud800", "\udc00", "é", "😀", "\u2028"),
  }),
);
const number = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(-0, 1e21, 1e-7, Number.NaN, Number.POSITIVE_INFINITY),
);
const value = fc.oneof(
  text,
  number,
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant(() => 1),
  fc.array(fc.oneof(text, number, fc.constant(undefined)), { maxLength: 3 }),
  fc.dictionary(text, fc.oneof(text, number), { maxKeys: 3 }),
);

describe("jsonLength", () => {
  it("equals JSON.stringify(record).length on generated records", () => {
    fc.assert(
      fc.property(fc.dictionary(text, value, { maxKeys: 12 }), (record) => {
        expect(jsonLength(record)).toBe(JSON.stringify(record).length);
      }),
      { numRuns: 2_000 },
    );
  });

  it("measures the records results carry", () => {
    const budget = {
      folio: "B-7001",
      wo_folio: null,
      status: 1,
      third_party: 'Ferretería "El Sol"\n',
      currency: "CLP",
      currency_unmapped: undefined,
      items_total: 51_300.5,
      date_create: "2026-10-01",
    };
    expect(jsonLength(budget)).toBe(JSON.stringify(budget).length);
    expect(jsonLength({})).toBe(2);
    expect(jsonLength({ only: undefined })).toBe(2);
  });
});
