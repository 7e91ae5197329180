/**
 * The view's "since" figures (interface.md §6e; src/ui/changes.ts, src/ui/contract.ts): read from
 * structuredContent.changes defensively, said in en, es and pt, and compare_to kept when the
 * controls, "Continue" and "Read again" re-run the review.
 */
import { describe, expect, it } from "vitest";
import { readChanges } from "../../src/ui/changes.js";
import {
  argumentsFor,
  freshArguments,
  type Review,
  readResult,
  resumeArguments,
} from "../../src/ui/contract.js";
import { messagesFor } from "../../src/ui/messages/index.js";

const set = (count: number, byCurrency: { currency: string; total: number }[] = []) => ({
  count,
  by_currency: byCurrency,
  folios: [],
});
const changes = {
  compared_to: { as_of: "2026-11-27T08:00:00.000Z", age_days: 1, complete: true },
  new: set(5, [
    { currency: "USD", total: 2300 },
    { currency: "EUR", total: 410 },
  ]),
  approved: set(3, [{ currency: "USD", total: 744 }]),
  rejected: set(1, [{ currency: "EUR", total: 99.5 }]),
  gone: set(0),
  changed: set(2, [{ currency: "USD", total: 10 }]),
  unchanged: { count: 87 },
};

describe("the view's since figures", () => {
  it("reads changes beside the review's figures", () => {
    const review = readResult({ budgets: [], groups: [], complete: true, changes }) as Review;
    expect(review.changes).toMatchObject({
      asOf: "2026-11-27T08:00:00.000Z",
      ageDays: 1,
      partial: false,
      new: {
        count: 5,
        byCurrency: [
          { currency: "USD", total: 2300, mapped: true },
          { currency: "EUR", total: 410, mapped: true },
        ],
      },
      approved: { count: 3 },
      unchanged: 87,
    });
  });

  it("reads 6f's removed, not compared and changed amounts; a 6e result reads as none of them", () => {
    const sixF = {
      ...changes,
      removed: set(1, [{ currency: "CLP", total: 971139 }]),
      not_compared: { count: 160, reason: "earlier reads covered pending budgets only" },
      changed: {
        ...set(1),
        amounts: [
          {
            folio: "230",
            before: { currency: "MXN", total: 7539.5 },
            after: { currency: "MXN", total: 8457.5 },
          },
          { folio: "bad", before: { currency: "MXN" } },
        ],
      },
    };
    expect(readChanges({ changes: sixF })).toMatchObject({
      removed: { count: 1, byCurrency: [{ currency: "CLP", total: 971139, mapped: true }] },
      notCompared: { count: 160, reason: "earlier reads covered pending budgets only" },
      amounts: [
        {
          folio: "230",
          before: { currency: "MXN", total: 7539.5, mapped: true },
          after: { currency: "MXN", total: 8457.5, mapped: true },
        },
      ],
    });
    expect(readChanges({ changes })).toMatchObject({
      removed: { count: 0, byCurrency: [] },
      notCompared: { count: 0, reason: "" },
      amounts: [],
    });
    for (const lang of ["en", "es", "pt"] as const) {
      const t = messagesFor(lang).since;
      expect(t.removed(2, 1)).toMatch(/2/);
      expect(t.notCompared(160)).toMatch(/160/);
    }
  });

  it.each([
    ["absent", undefined],
    ["not an object", "5 new"],
    ["without compared_to", { ...changes, compared_to: undefined }],
    ["a kind missing", { ...changes, rejected: undefined }],
  ])("shows nothing when changes are %s", (_, value) => {
    expect(readChanges({ changes: value })).toBeUndefined();
    expect((readResult({ budgets: [], changes: value }) as Review).changes).toBeUndefined();
  });

  it.each([
    ["en", "+5 new since yesterday", "3 approved", "1 rejected", "2 changed", "87 unchanged"],
    ["es-CL", "+5 nuevos desde ayer", "3 aprobados", "1 rechazado", "2 modificados", "87 sin cambios"],
    ["pt-BR", "+5 novos desde ontem", "3 aprovados", "1 rejeitado", "2 alterados", "87 sem alteração"],
  ])("says them in %s", (locale, added, approved, rejected, changed, unchanged) => {
    const t = messagesFor(locale).since;
    expect([t.added(5, 1), t.approved(3, 1), t.rejected(1, 1), t.changed(2), t.unchanged(87)]).toEqual([
      added,
      approved,
      rejected,
      changed,
      unchanged,
    ]);
    expect(t.added(5, 3)).not.toBe(added);
  });

  it("keeps compare_to when the controls, Continue and Read again re-run the review", () => {
    const asked = { since: "P30D", group_by: ["status"], compare_to: "previous", resume: "r" };
    expect(argumentsFor(asked, { status: "pending", period: "current", group: "currency" })).toMatchObject({
      compare_to: "previous",
    });
    expect(resumeArguments(asked, "t2")).toMatchObject({ compare_to: "previous", resume: "t2" });
    expect(freshArguments(asked)).toMatchObject({ compare_to: "previous", fresh: true });
  });
});
