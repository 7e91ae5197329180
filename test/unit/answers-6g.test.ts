/**
 * The pure parts of interface 6g, table-driven: a third party's role from its code, a discount read
 * both ways for one budget and for a review's totals, ties at a ranking's edge, and the basis line's
 * words for the same, the differing and the unsettled case.
 */
import { describe, expect, it } from "vitest";
import type { Budget } from "../../src/client/types.js";
import { type BasisFacts, basisLine, companyLine } from "../../src/domain/basis-line.js";
import { matcher } from "../../src/domain/budget-review.js";
import { price, readingsText } from "../../src/domain/budget-view.js";
import { DiscountReadings, readingsLine } from "../../src/domain/discount-readings.js";
import { tieLine, tieOf } from "../../src/domain/ranking-ties.js";
import { roleOf, ThirdPartyCodes, thirdPartyText } from "../../src/domain/third-party.js";

const USD = { code: "USD", mapped: true };

function budget(over: Partial<Budget> & { total?: number }): Budget {
  const { total = 100, ...rest } = over;
  return {
    folio: "1",
    wo_folio: "4001",
    status: 1,
    discount: null,
    date_create: "2026-06-01T10:00:00.000000+00:00",
    currency_description: "US Dollar",
    third_parties_name: "EuroParts GmbH",
    third_parties_code: "SUP-002",
    list_items: [{ total_cost: total }],
    ...rest,
  } as unknown as Budget;
}

describe("who a third party is", () => {
  it.each([
    ["SUP-001", "supplier"],
    ["sup_9", "supplier"],
    ["PROV-3", "supplier"],
    ["CUS-001", "customer"],
    ["CLI-77", "customer"],
    ["ACME", undefined],
    [null, undefined],
  ])("%s is %s", (code, role) => {
    expect(roleOf(code)).toBe(role);
  });

  it("a name with its code and role; several codes under one name are all listed", () => {
    expect(
      thirdPartyText("EuroParts GmbH", { third_party_code: "SUP-002", third_party_role: "supplier" }),
    ).toBe("EuroParts GmbH (SUP-002, supplier)");
    expect(thirdPartyText("Acme", {})).toBe("Acme");
    // The sandbox's customer is named "Andes Mining (customer)": its role is not said twice.
    expect(
      thirdPartyText("Andes Mining (customer)", {
        third_party_code: "CUS-001",
        third_party_role: "customer",
      }),
    ).toBe("Andes Mining (customer) (CUS-001)");
    const codes = new ThirdPartyCodes();
    codes.add({ third_parties_name: "Acme", third_parties_code: "SUP-9" });
    codes.add({ third_parties_name: "Acme", third_parties_code: "CUS-9" });
    codes.add({ third_parties_name: "Beta", third_parties_code: "SUP-1" });
    expect(codes.of("Acme")).toEqual({ third_party_code: "CUS-9, SUP-9" });
    expect(codes.of("Beta")).toEqual({ third_party_code: "SUP-1", third_party_role: "supplier" });
  });
});

describe("third_party filters", () => {
  const keeps = (asked: string, b: Partial<Budget>) => matcher({ third_party: asked })(price(budget(b)));
  it.each([
    ["sup-002", true],
    ["europarts", true],
    ["EuroParts GmbH (SUP-002, supplier)", true],
    ["EuroParts GmbH (SUP-001, supplier)", false],
    ["Other (SUP-002)", true],
    ["SUP-00", false],
  ])("%s keeps EuroParts GmbH (SUP-002): %s", (asked, kept) => {
    expect(keeps(asked, {})).toBe(kept);
  });
  it("a name that ends in parentheses still matches as a name", () => {
    expect(
      keeps("Andes Mining (customer)", {
        third_parties_name: "Andes Mining (customer)",
        third_parties_code: "CUS-001",
      }),
    ).toBe(true);
  });
});

describe("a discount read both ways", () => {
  it.each([
    [1515, 12.5, " (net USD 1,325.63 if %, USD 1,502.50 if an amount)"],
    [0.3, 12.5, " (net USD 0.26 if %, USD -12.20 if an amount, below zero: not its reading)"],
    [100, 0, ""],
    [100, null, ""],
  ])("items_total %s, discount %s", (total, discount, text) => {
    expect(readingsText(total, discount, USD)).toBe(text);
  });

  it("a review's totals after the discounts, exact per currency", () => {
    const r = new DiscountReadings();
    expect(r.result()).toBeUndefined();
    r.add(price(budget({ total: 0.1, discount: 10 })));
    r.add(price(budget({ total: 0.2 })));
    r.add(price(budget({ total: 1000, discount: 12.5, currency_description: "Euro" })));
    const f = r.result()!;
    expect(f).toEqual({
      discounted: 2,
      matched: 3,
      totals: [
        { currency: "EUR", net_if_percent: 875, net_if_amount: 987.5 },
        { currency: "USD", net_if_percent: 0.29, net_if_amount: -9.7 },
      ],
    });
    expect(readingsLine(f)).toBe(
      "Discounts: 2 of the 3 matching budgets have one; items_total after them, read as percentages: EUR 875.00, USD 0.29; as amounts: EUR 987.50, USD -9.70.",
    );
  });
});

describe("ties at a ranking's edge", () => {
  const ranked = (folio: string, total: number, date = "2026-06-01T10:00:00Z") => ({
    p: price(budget({ folio, total, date_create: date })),
    seq: Number(folio),
  });

  it("by amount: the same total ties; another does not", () => {
    const tie = tieOf("total_desc", "items", ranked("1", 50), ranked("2", 50))!;
    expect(tie).toEqual({ currency: "USD", last: "1", next: "2", amount: 50 });
    expect(tieLine(tie, 1)).toBe(
      "The next budget, folio 2, ties the last one shown (folio 1) at USD 50.00 (start=1 shows it).",
    );
    expect(tieOf("total_desc", "items", ranked("1", 50), ranked("2", 49))).toBeUndefined();
    expect(tieOf("total_desc", "items", ranked("1", 50), undefined)).toBeUndefined();
  });

  it("by date: the same day ties, with both times", () => {
    const tie = tieOf("date_asc", "items", ranked("1", 5), ranked("2", 9, "2026-06-01T17:30:05Z"))!;
    expect(tie).toMatchObject({
      day: "2026-06-01",
      last_at: "2026-06-01T10:00:00Z",
      next_at: "2026-06-01T17:30:05Z",
    });
    expect(tieLine(tie, null)).toBe(
      "The next budget was created the same day (2026-06-01) as the last one shown: folio 1 at 10:00:00Z, folio 2 at 17:30:05Z.",
    );
    expect(
      tieOf("date_asc", "items", ranked("1", 5), ranked("2", 5, "2026-06-02T00:00:00Z")),
    ).toBeUndefined();
  });
});

describe("the basis line", () => {
  const facts = (bases: BasisFacts["bases"], company?: BasisFacts["company"]): BasisFacts => ({
    bases,
    company,
  });

  it("the same answer on every other basis: one sentence", () => {
    const same = facts([
      { type_date: "approval_date", settled: true, same: true, matched: 16 },
      { type_date: "budget_created", settled: true, same: true, matched: 16 },
    ]);
    expect(basisLine(same, 16)).toBe(
      "The same 16 budgets match by approval date and by the budget's own date.",
    );
    expect(basisLine(facts([]), 16)).toBeUndefined();
  });

  it("a basis that differs gives its figures and folios; one not settled names the call", () => {
    const line = basisLine(
      facts([
        {
          type_date: "approval_date",
          settled: true,
          same: false,
          matched: 14,
          totals: [{ currency: "CLP", items_total: 2_410_000 }],
          only_there: { count: 1, folios: ["166"] },
          only_here: { count: 4, folios: ["101", "103", "104"] },
        },
        { type_date: "budget_created", settled: false, unsettled: "size", budgets: 1240 },
      ]),
      17,
    );
    expect(line).toBe(
      'By approval date: 14 budgets, CLP 2,410,000 (adds folio 166; leaves out folios 101, 103, 104 and 1 more); by the budget\'s own date: not settled: it holds 1240 budgets, more than a check reads (this call with type_date "budget_created" settles it).',
    );
  });

  it("every budget of the company read, or none there", () => {
    expect(companyLine(facts([], { budgets: 260, all_read: true }), undefined, undefined)).toBe(
      "All 260 budgets of the company were read (the API's count for every date).",
    );
    expect(companyLine(facts([], { budgets: 0, all_read: true }), "pending", "2020-01-31T23:59:59Z")).toBe(
      "The company has no pending budget up to 2020-01-31T23:59:59Z (the API's count for every date).",
    );
    expect(companyLine(facts([], { budgets: 300, all_read: false }), undefined, undefined)).toBeUndefined();
  });
});
